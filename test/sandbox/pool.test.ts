/** The pool: warm isolates, refills, never reusing an isolate, counters, close. */
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

describe('SandboxPool', () => {
  it('warms up to its size', async () => {
    await withPool({ size: 3 }, async (pool) => {
      expect(pool.stats()).toEqual({ alive: 0, warm: 0, running: 0, created: 0, disposed: 0 });
      await pool.warmup();
      expect(pool.stats()).toEqual({ alive: 3, warm: 3, running: 0, created: 3, disposed: 0 });
    });
  });

  it('uses a fresh isolate and context for every run and refills off the hot path', async () => {
    await withPool({ size: 2 }, async (pool) => {
      await pool.warmup();
      expect(
        expectOk(await runBody(pool, `globalThis.marker = 'set'; return typeof marker;`)),
      ).toBe('string');
      expect(expectOk(await runBody(pool, `return typeof globalThis.marker;`))).toBe('undefined');
      await vi.waitFor(() => expect(pool.stats().warm).toBe(2));
      expect(pool.stats()).toEqual({ alive: 2, warm: 2, running: 0, created: 4, disposed: 2 });
    });
  });

  it('counts a running program and never returns its isolate to the pool after a limit kill', async () => {
    await withPool({ size: 1 }, async (pool) => {
      await pool.warmup();
      const running = runBody(pool, `while (true) {}`, { limits: { cpuMs: 100 } });
      await vi.waitFor(() => expect(pool.stats().running).toBe(1));
      expect(pool.stats().alive).toBeGreaterThanOrEqual(1);
      expectFailure(await running, 'timeout');
      await vi.waitFor(() => expect(pool.stats().warm).toBe(1));
      const after = pool.stats();
      expect(after).toEqual({ alive: 1, warm: 1, running: 0, created: 2, disposed: 1 });
      expectFailure(
        await runBody(pool, `const a = []; while (true) a.push(new Array(1e4).fill(0));`),
        'memory',
      );
      await vi.waitFor(() => expect(pool.stats().warm).toBe(1));
      expect(pool.stats()).toEqual({ alive: 1, warm: 1, running: 0, created: 3, disposed: 2 });
    });
  });

  it('runs with another memory limit on a cold isolate, leaving the warm ones alone', async () => {
    await withPool({ size: 1 }, async (pool) => {
      await pool.warmup();
      const outcome = await runBody(pool, `return 1;`, { limits: { memoryMb: 16 } });
      expect(expectOk(outcome)).toBe(1);
      expect(pool.stats()).toEqual({ alive: 1, warm: 1, running: 0, created: 2, disposed: 1 });
    });
  });

  it('works with no warm isolates at all', async () => {
    await withPool({ size: 0 }, async (pool) => {
      await pool.warmup();
      expect(expectOk(await runBody(pool, `return 2;`))).toBe(2);
      await sleep(5);
      expect(pool.stats()).toEqual({ alive: 0, warm: 0, running: 0, created: 1, disposed: 1 });
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

  it('refuses invalid options', () => {
    expect(() => new SandboxPool({ size: -1 })).toThrow(
      expect.objectContaining({ code: 'INVALID_CONFIG' }) as Error,
    );
    expect(() => new SandboxPool({ watchdogIntervalMs: 0 })).toThrow(
      expect.objectContaining({ code: 'INVALID_CONFIG' }) as Error,
    );
    expect(() => new SandboxPool({ defaultLimits: { maxCalls: 1.5 } })).toThrow(
      expect.objectContaining({ code: 'INVALID_CONFIG' }) as Error,
    );
  });
});
