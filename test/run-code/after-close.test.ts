/**
 * A runtime that was closed says so with the service's code: a run_code call after `close()` is
 * SHUTTING_DOWN (what HTTP answers 503), never a tool failure a caller would
 * read as the program's.
 */
import { describe, expect, it } from 'vitest';
import { createRuntime } from '../../src/index.js';

describe('after close()', () => {
  it('run_code settles SHUTTING_DOWN', async () => {
    const rt = await createRuntime({
      tools: [],
      scopes: { default: { mode: 'code' } },
      codeMode: { typecheck: 'off', sandbox: 'in-process' },
    });
    await rt.close();
    const res = await rt.execute({
      name: 'run_code',
      args: { code: 'return 1;', description: 'd' },
    });
    expect(!res.ok && res.error.code).toBe('SHUTTING_DOWN');
    expect(res.content).toEqual([
      { type: 'text', text: expect.stringMatching(/^Error SHUTTING_DOWN: /) as unknown },
    ]);
  });
});
