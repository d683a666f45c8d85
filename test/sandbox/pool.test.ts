/** The pool: warm isolates, reuse after clean runs only, recycling, counters, close. */
import { describe, expect, it, vi } from 'vitest';
import { SandboxPool } from '../../src/sandbox/index.js';
import { expectFailure, expectOk, recordingDispatch, runBody, sleep } from './helpers.js';

async function withPool<T>(
  options: ConstructorParameters<typeof SandboxPool>[0],
  body: (pool: SandboxPool) => Promise<T>,
): Promise<T> {
  const pool = new SandboxPool(options);
  try {
    return await body(pool);
  } finally {
    await pool.close();
  }
}

const EMPTY = {
  alive: 0,
  warm: 0,
  preparing: 0,
  running: 0,
  created: 0,
  disposed: 0,
  runs: 0,
  recycled: 0,
};

describe('SandboxPool', () => {
  it('warms up to its size', async () => {
    await withPool({ size: 3 }, async (pool) => {
      expect(pool.stats()).toEqual(EMPTY);
      await pool.warmup();
      expect(pool.stats()).toEqual({ ...EMPTY, alive: 3, warm: 3, created: 3 });
    });
  });

  it('reuses an isolate after clean runs (returned, threw, invalid output), each in a fresh context', async () => {
    await withPool({ size: 1, maxIdle: 1 }, async (pool) => {
      await pool.warmup();
      expect(
        expectOk(await runBody(pool, `globalThis.marker = 'set'; return typeof marker;`)),
      ).toBe('string');
      expectFailure(await runBody(pool, `throw new Error('x');`), 'exception');
      expectFailure(await runBody(pool, `return () => 1;`), 'invalid-output');
      expect(expectOk(await runBody(pool, `return typeof globalThis.marker;`))).toBe('undefined');
      // As soon as a run has settled, its isolate counts as warm (it is preparing its next context).
      expect(pool.stats()).toMatchObject({ alive: 1, warm: 1, running: 0 });
      await vi.waitFor(() => expect(pool.stats()).toMatchObject({ warm: 1, preparing: 0 }));
      expect(pool.stats()).toEqual({ ...EMPTY, alive: 1, warm: 1, created: 1, runs: 4 });
    });
  });

  it('never reuses an isolate after a limit kill, an abort or an output limit', async () => {
    await withPool(
      { size: 1, maxIdle: 1, defaultLimits: { memoryMb: 16, cpuMs: 2_000, wallMs: 5_000 } },
      async (pool) => {
        await pool.warmup();
        const kills: [string, string, () => Parameters<typeof runBody>[2]][] = [
          [
            `const a = []; while (true) a.push(new Array(1e4).fill(a.length));`,
            'memory',
            () => ({}),
          ],
          [`while (true) {}`, 'timeout', () => ({ limits: { cpuMs: 50 } })],
          [`await null; for (;;) {}`, 'timeout', () => ({ limits: { cpuMs: 50 } })],
          [`await new Promise(() => {});`, 'timeout', () => ({ limits: { wallMs: 50 } })],
          [
            `for (;;) console.log('flood');`,
            'output-limit',
            () => ({ limits: { maxLogBytes: 100 } }),
          ],
          [
            `return 'x'.repeat(5000);`,
            'output-limit',
            () => ({ limits: { maxResultBytes: 1000 } }),
          ],
          [`await new Promise(() => {});`, 'aborted', () => ({ signal: AbortSignal.timeout(50) })],
        ];
        let disposed = 0;
        for (const [body, kind, extra] of kills) {
          expectFailure(await runBody(pool, body, extra()), kind);
          disposed++;
          await vi.waitFor(() => expect(pool.stats().disposed).toBe(disposed));
          // A clean run in between: it may reuse an isolate, but never the one just stopped.
          expectOk(await runBody(pool, `return 1;`));
        }
        const stats = pool.stats();
        expect(stats.recycled).toBe(0);
        expect(stats.runs).toBe(kills.length * 2);
        expect(stats.created - stats.alive).toBe(disposed);
      },
    );
  });

  it('counts a running program', async () => {
    await withPool({ size: 1 }, async (pool) => {
      await pool.warmup();
      const running = runBody(pool, `while (true) {}`, { limits: { cpuMs: 100 } });
      await vi.waitFor(() => expect(pool.stats().running).toBe(1));
      expect(pool.stats().alive).toBeGreaterThanOrEqual(1);
      expectFailure(await running, 'timeout');
      expect(pool.stats().running).toBe(0);
    });
  });

  it('recycles an isolate after maxRunsPerIsolate runs', async () => {
    // No pre-warming: each isolate is made by the run that finds none, then reused.
    await withPool({ size: 0, maxIdle: 1, maxRunsPerIsolate: 3 }, async (pool) => {
      for (let i = 0; i < 7; i++) expectOk(await runBody(pool, `return ${i};`));
      await vi.waitFor(() => expect(pool.stats()).toMatchObject({ warm: 1, preparing: 0 }));
      expect(pool.stats()).toEqual({
        ...EMPTY,
        alive: 1,
        warm: 1,
        created: 3,
        disposed: 2,
        runs: 7,
        recycled: 2,
      });
    });
  });

  it('recycles an isolate whose heap after a run is over recycleHeapFraction of its limit', async () => {
    // A fresh context alone takes more than 1% of 32 MiB: every isolate is retired after one run.
    await withPool({ size: 0, maxIdle: 1, recycleHeapFraction: 0.01 }, async (pool) => {
      for (let i = 0; i < 3; i++) expectOk(await runBody(pool, `return ${i};`));
      await vi.waitFor(() => expect(pool.stats().recycled).toBe(3));
      expect(pool.stats()).toMatchObject({ alive: 0, created: 3, disposed: 3, runs: 3 });
    });
  });

  it('with maxRunsPerIsolate 1, gives every run a brand-new isolate', async () => {
    await withPool({ size: 0, maxRunsPerIsolate: 1 }, async (pool) => {
      for (let i = 0; i < 3; i++) expectOk(await runBody(pool, `return ${i};`));
      await vi.waitFor(() => expect(pool.stats().recycled).toBe(3));
      expect(pool.stats()).toMatchObject({ alive: 0, created: 3, disposed: 3, runs: 3 });
    });
  });

  it('runs with another memory limit on a cold isolate, used once, leaving the warm ones alone', async () => {
    await withPool({ size: 1 }, async (pool) => {
      await pool.warmup();
      const outcome = await runBody(pool, `return 1;`, { limits: { memoryMb: 16 } });
      expect(expectOk(outcome)).toBe(1);
      expect(pool.stats()).toEqual({
        ...EMPTY,
        alive: 1,
        warm: 1,
        created: 2,
        disposed: 1,
        runs: 1,
      });
    });
  });

  it('works with no warm isolates, keeping none idle with maxIdle 0', async () => {
    await withPool({ size: 0, maxIdle: 0 }, async (pool) => {
      await pool.warmup();
      expect(expectOk(await runBody(pool, `return 2;`))).toBe(2);
      await vi.waitFor(() => expect(pool.stats().disposed).toBe(1));
      expect(pool.stats()).toEqual({ ...EMPTY, created: 1, disposed: 1, runs: 1 });
    });
    await withPool({ size: 0 }, async (pool) => {
      expectOk(await runBody(pool, `return 1;`));
      await vi.waitFor(() => expect(pool.stats().warm).toBe(1));
      expectOk(await runBody(pool, `return 2;`));
      expect(pool.stats()).toMatchObject({ created: 1, runs: 2 });
    });
  });

  it('close() aborts running programs, waits for their dispatches, and disposes everything', async () => {
    const pool = new SandboxPool({ size: 2 });
    await pool.warmup();
    let dispatchSettled = false;
    const { dispatch } = recordingDispatch(
      (_tool, _args, signal) =>
        new Promise((resolve) =>
          signal.addEventListener('abort', () =>
            setTimeout(() => {
              dispatchSettled = true;
              resolve({ ok: false, code: 'ABORTED', message: 'aborted' });
            }, 30),
          ),
        ),
    );
    const waiting = runBody(pool, `await tools.echo({});`, { dispatch });
    const spinning = runBody(pool, `while (true) {}`);
    await vi.waitFor(() => expect(pool.stats().running).toBe(2));
    await pool.close();
    expect(dispatchSettled).toBe(true);
    for (const outcome of await Promise.all([waiting, spinning])) {
      expect(expectFailure(outcome, 'aborted').message).toBe(
        'the run was aborted: the sandbox is shutting down',
      );
    }
    const stats = pool.stats();
    expect(stats).toMatchObject({ alive: 0, warm: 0, running: 0 });
    expect(stats.disposed).toBe(stats.created);
    await expect(runBody(pool, `return 1;`)).rejects.toMatchObject({ code: 'SHUTTING_DOWN' });
    await pool.close();
  });

  it('close() while isolates are being prepared disposes them too', async () => {
    const pool = new SandboxPool({ size: 3 });
    const warming = pool.warmup();
    await pool.close();
    await warming;
    await sleep(5);
    const stats = pool.stats();
    expect(stats.alive).toBe(0);
    expect(stats.disposed).toBe(stats.created);
  });

  it('refuses invalid options', () => {
    for (const options of [
      { size: -1 },
      { watchdogIntervalMs: 0 },
      { defaultLimits: { maxCalls: 1.5 } },
      { maxRunsPerIsolate: 0 },
      { maxIdle: -1 },
      { recycleHeapFraction: 0 },
      { recycleHeapFraction: 1.5 },
    ]) {
      expect(() => new SandboxPool(options)).toThrow(
        expect.objectContaining({ code: 'INVALID_CONFIG' }) as Error,
      );
    }
  });
});
