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

const echo = defineTool({
  name: 'echo',
  description: 'echoes',
  input: z.object({ text: z.string() }),
  execute: ({ text }) => text,
});

/** A scripted runner whose warm-up is `warmup`, counting its closes; and a code-mode runtime on it. */
function startWith(warmup: () => Promise<void>): {
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
      createRuntime({ tools: [echo], scopes: { default: { mode: 'code' } }, codeMode: { runner } }),
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
