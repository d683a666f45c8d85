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

describe('createRuntime when the code runner cannot start', () => {
  it('rejects with the start error and closes the runner first', async () => {
    const closed: string[] = [];
    const runner = {
      ...scriptedRunner(() => 1),
      warmup: () =>
        Promise.reject(new IsocodeError('DEPENDENCY_MISSING', 'the checker is not installed')),
      close: () => {
        closed.push('runner');
        return Promise.resolve();
      },
    };
    const error = await createRuntime({
      tools: [echo],
      scopes: { default: { mode: 'code' } },
      codeMode: { runner },
    }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isIsocodeError(error) && error.code).toBe('DEPENDENCY_MISSING');
    expect(closed).toEqual(['runner']);
  });

  it('a runner that starts is not closed by createRuntime', async () => {
    const closed: string[] = [];
    const runner = {
      ...scriptedRunner(() => 1),
      warmup: () => Promise.resolve(),
      close: () => {
        closed.push('runner');
        return Promise.resolve();
      },
    };
    const rt = await createRuntime({
      tools: [echo],
      scopes: { default: { mode: 'code' } },
      codeMode: { runner },
    });
    expect(closed).toEqual([]);
    await rt.close();
    expect(closed).toEqual(['runner']);
  });
});
