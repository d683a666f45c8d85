/**
 * A pool set up as a sandbox worker process sets it up (`syncReplies`): replies to binding calls
 * resume the program on the calling thread, each resumed slice under isolated-vm's timeout. The
 * limits, the refusals and the containment of a resumed program are those of the one-way path.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SandboxPool } from '../../src/sandbox/index.js';
import { expectFailure, expectOk, recordingDispatch, runBody, sleep } from './helpers.js';

const pool = new SandboxPool({
  size: 1,
  syncReplies: true,
  defaultLimits: { cpuMs: 500, wallMs: 2_000, memoryMb: 32 },
});
beforeAll(() => pool.warmup());
afterAll(() => pool.close());

describe('replies resumed on the calling thread', () => {
  it('carries sequential and parallel calls, in order, with their own results', async () => {
    const { dispatch, calls } = recordingDispatch((_tool, args) => ({ ok: true, value: args }));
    const body = `
      const seq = [];
      for (let i = 0; i < 20; i++) seq.push((await tools.echo({ i })).i);
      const par = await Promise.all([0, 1, 2, 3, 4].map((i) => tools.echo({ i })));
      return { seq, par: par.map((r) => r.i) };`;
    expect(expectOk(await runBody(pool, body, { dispatch }))).toEqual({
      seq: Array.from({ length: 20 }, (_, i) => i),
      par: [0, 1, 2, 3, 4],
    });
    expect(calls).toHaveLength(25);
  });

  it('gives each failed call its own error', async () => {
    const { dispatch } = recordingDispatch((_tool, args) =>
      (args as { i: number }).i % 2 === 0
        ? { ok: true, value: 'even' }
        : { ok: false, code: 'TOOL_ERROR', message: `odd ${(args as { i: number }).i}` },
    );
    const body = `
      const out = await Promise.allSettled([0, 1, 2, 3].map((i) => tools.echo({ i })));
      return out.map((o) => o.status === 'fulfilled' ? o.value : o.reason.code + ':' + o.reason.message);`;
    expect(expectOk(await runBody(pool, body, { dispatch }))).toEqual([
      'even',
      'TOOL_ERROR:odd 1',
      'even',
      'TOOL_ERROR:odd 3',
    ]);
  });

  it('stops a program that spins after a reply (CPU limit), as the watchdog does', async () => {
    const failure = expectFailure(
      await runBody(pool, `await tools.echo({}); while (true) {}`, { limits: { cpuMs: 100 } }),
      'timeout',
    );
    expect(failure.message).toBe('the program used more than 100 ms of CPU time (CPU time limit)');
  });

  it('stops a spin inside a reaction to a reply (CPU limit)', async () => {
    const failure = expectFailure(
      await runBody(pool, `await tools.echo({}).then(() => { for (;;) {} }); return 1;`, {
        limits: { cpuMs: 100 },
      }),
      'timeout',
    );
    expect(failure.message).toMatch(/CPU time limit/);
  });

  it('ignores a rejection left unhandled in a resumed slice, even one that reads like a time-out', async () => {
    const body = `
      await tools.echo({});
      Promise.reject(new Error('Script execution timed out.'));
      Promise.reject(new Error('Isolate was disposed during execution'));
      return (await tools.echo({ again: true })).args;`;
    expect(expectOk(await runBody(pool, body))).toEqual({ again: true });
  });

  it('still stops a program awaiting forever after a reply (wall-clock limit)', async () => {
    const failure = expectFailure(
      await runBody(pool, `await tools.echo({}); await new Promise(() => {});`, {
        limits: { wallMs: 200 },
      }),
      'timeout',
    );
    expect(failure.message).toMatch(/wall-clock limit/);
  });

  it('does not count time spent waiting on the host as CPU', async () => {
    const { dispatch } = recordingDispatch(async () => {
      await sleep(150);
      return { ok: true, value: 1 };
    });
    const outcome = await runBody(
      pool,
      `let n = 0; for (let i = 0; i < 3; i++) n += await tools.echo({}); return n;`,
      { dispatch, limits: { cpuMs: 100 } },
    );
    expect(expectOk(outcome)).toBe(3);
  });

  it('serves the next run on the same isolate after a clean run', async () => {
    expect(expectOk(await runBody(pool, `return (await tools.echo({ a: 1 })).args.a;`))).toBe(1);
    expect(
      expectOk(
        await runBody(pool, `return typeof globalThis.leaked + (await tools.echo({})).tool;`),
      ),
    ).toBe('undefinedecho');
  });
});
