/**
 * Host time is metered per run and limited (issue 24, docs/decisions/029-host-work.md): the time the
 * host's thread spends on a run's tool calls is the run's `timings.hostMs`; past the run's `hostMs`
 * limit the run ends `host-limit`, no further call runs, and another tenant's runs are unaffected.
 * Through the public runtime and the real sandbox.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createRuntime, defineTool, type Runtime } from '../../src/index.js';

/** Keeps the host's thread busy for `ms` (a CPU-heavy tool body: the host's time, not the program's). */
const busy = (ms: number): void => {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // spin
  }
};

let burned = 0;
let rt: Runtime;
beforeAll(async () => {
  rt = await createRuntime({
    tools: [
      defineTool({
        name: 'work.burn',
        description: 'Burns 40 ms of host CPU.',
        input: z.object({}),
        output: z.number(),
        execute: () => {
          busy(40);
          return ++burned;
        },
      }),
      defineTool({
        name: 'work.wait',
        description: 'Waits 40 ms without using the CPU.',
        input: z.object({}),
        output: z.number(),
        isConcurrencySafe: true,
        execute: async () => {
          await new Promise((r) => setTimeout(r, 40));
          return 1;
        },
      }),
    ],
    scopes: { tight: { mode: 'code' }, other: { mode: 'code' } },
    codeMode: { scopeLimits: { tight: { hostMs: 300 } } },
  });
});
afterAll(() => rt.close());

const run = (code: string, scope: string) =>
  rt.execute({ name: 'run_code', args: { code, description: 'host meter' } }, { scope });

describe('host time per run', () => {
  it('a run whose calls keep the host busy past hostMs ends host-limit, and no call runs after', async () => {
    burned = 0;
    const r = await run(
      'for (let i = 0; i < 50; i++) await tools.work.burn({});\nreturn "done";',
      'tight',
    );
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error.code).toBe('CODE_RUN_FAILED');
    expect(r.error.details).toMatchObject({ kind: 'host-limit' });
    expect(r.error.message).toMatch(/host time limit, hostMs/);
    // 300 ms at 40 ms a call: the eighth call crosses it (load can only make calls slower, so fewer).
    expect(burned).toBeGreaterThanOrEqual(1);
    expect(burned).toBeLessThanOrEqual(9);
    const after = burned;
    await new Promise((r) => setTimeout(r, 100));
    expect(burned).toBe(after);
  });

  it('waiting is not host time: calls that only wait stay under the same limit', async () => {
    const r = await run(
      'for (let i = 0; i < 20; i++) await tools.work.wait({});\nreturn "done";',
      'tight',
    );
    expect(r).toMatchObject({ ok: true });
  });

  it("another scope's limit is its own: the same program runs there", async () => {
    burned = 0;
    const r = await run(
      'for (let i = 0; i < 10; i++) await tools.work.burn({});\nreturn "done";',
      'other',
    );
    expect(r).toMatchObject({ ok: true });
    expect(burned).toBe(10);
  });

  it('refuses a hostMs that is not a positive integer', async () => {
    await expect(
      createRuntime({ tools: [], codeMode: { limits: { hostMs: 0 } } }),
    ).rejects.toMatchObject({ code: 'INVALID_CONFIG' });
  });
});
