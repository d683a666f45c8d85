/**
 * A runtime that cannot start leaves nothing running: what `createRuntime` opened before the failure
 * (the code runner's sandbox workers and checker, the audit file) is closed before it rejects, so a
 * process whose start failed can exit (seen: `isocode run` without the compiler's platform package
 * printed DEPENDENCY_MISSING and then hung on its sandbox worker).
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createRuntime, defineTool, IsocodeError, isIsocodeError } from '../src/index.js';
import { scriptedRunner } from '../src/testing.js';
import { childPids } from './support/children.js';

const echo = defineTool({
  name: 'echo',
  description: 'echoes',
  input: z.object({ text: z.string() }),
  execute: ({ text }) => text,
});

/** A scripted runner whose warm-up is `warmup`, counting its closes; and a code-mode runtime on it. */
function startWith(
  warmup: () => Promise<void>,
  tools: Iterable<unknown> = [echo],
): {
  closes: () => number;
  start: () => ReturnType<typeof createRuntime>;
} {
  let closes = 0;
  const runner = {
    ...scriptedRunner(() => 1),
    warmup,
    close: () => {
      closes++;
      return Promise.resolve();
    },
  };
  return {
    closes: () => closes,
    start: () =>
      createRuntime({
        tools: tools as never,
        scopes: { default: { mode: 'code' } },
        codeMode: { runner },
      }),
  };
}

describe('createRuntime when the code runner cannot start', () => {
  it('rejects with the start error and closes the runner first', async () => {
    const failing = startWith(() =>
      Promise.reject(new IsocodeError('DEPENDENCY_MISSING', 'the checker is not installed')),
    );
    const error = await failing.start().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isIsocodeError(error) && error.code).toBe('DEPENDENCY_MISSING');
    expect(failing.closes()).toBe(1);
  });

  it('a runner that starts is not closed by createRuntime', async () => {
    const starting = startWith(() => Promise.resolve());
    const rt = await starting.start();
    expect(starting.closes()).toBe(0);
    await rt.close();
    expect(starting.closes()).toBe(1);
  });
});

/** Pids of this process's children that are sandbox workers. */
const sandboxWorkers = (): number[] => childPids(/sandbox[/-]worker|worker\/main\.ts/);

describe('createRuntime when the catalog cannot be compiled', () => {
  const broken = {
    name: 'broken',
    description: 'a tool whose input schema ajv cannot compile',
    input: { type: 'object', properties: { id: { type: 'string', pattern: '(?P<id>x)' } } },
    execute: () => 1,
  };

  it('starts the sandbox before it compiles the tools, and closes it when a schema fails', async () => {
    let warmedBeforeTools = false;
    let warmed = false;
    // The definitions are read when the catalog is compiled: record whether the sandbox had started.
    function* tools(): Generator<unknown> {
      warmedBeforeTools = warmed;
      yield echo;
      yield broken;
    }
    const failing = startWith(() => {
      warmed = true;
      return Promise.resolve();
    }, tools());
    const error = await failing.start().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isIsocodeError(error) && error.code).toBe('INVALID_TOOL_DEFINITION');
    expect(isIsocodeError(error) && error.message).toContain('tool "broken" input');
    expect(warmedBeforeTools).toBe(true);
    expect(failing.closes()).toBe(1);
  });

  it('leaves no sandbox worker process behind (the real runner)', async () => {
    const before = sandboxWorkers();
    const error = await createRuntime({
      tools: [echo, broken as never],
      scopes: { default: { mode: 'code' } },
      codeMode: { typecheck: 'off', savings: false },
    }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isIsocodeError(error) && error.code).toBe('INVALID_TOOL_DEFINITION');
    // close() waited for the workers it started: none is left once it returned.
    expect(sandboxWorkers().filter((pid) => !before.includes(pid))).toEqual([]);
    // The process can start a healthy runtime afterwards.
    const rt = await createRuntime({
      tools: [echo],
      scopes: { default: { mode: 'code' } },
      codeMode: { typecheck: 'off', savings: false },
    });
    const result = await rt.execute({
      name: 'run_code',
      args: { code: "return await tools.echo({ text: 'hi' });", description: 'echo' },
    });
    await rt.close();
    expect(result.ok ? result.value : result.error).toMatchObject({ result: 'hi' });
  });
});
