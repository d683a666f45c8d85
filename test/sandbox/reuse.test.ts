/**
 * Sequential reuse of an isolate: nothing of one run reaches the next run on the same isolate —
 * globals, prototypes, intrinsics, logs, calls, late replies, collector callbacks, CPU budget — and
 * guest code left running after a run's outcome gets the isolate disposed, not reused.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { SandboxPool, type SandboxPoolStats } from '../../src/sandbox/index.js';
import {
  bindingsFor,
  expectFailure,
  expectOk,
  recordingDispatch,
  runBody,
  sleep,
} from './helpers.js';

/**
 * One isolate at a time: consecutive runs share it unless it was disposed. 64 MiB: the collection-heavy
 * runs below leave garbage that the recycle rule (heap over half the limit) counts, and with 32 MiB
 * Node 22's V8 left more than 16 MiB after them in 1 of ~6 runs.
 */
const pool = new SandboxPool({
  size: 1,
  maxIdle: 1,
  defaultLimits: { memoryMb: 64, cpuMs: 1_000, wallMs: 5_000 },
});
beforeAll(() => pool.warmup());
afterAll(() => pool.close());

/**
 * The pool at rest: nothing running, no creation or renewal under way, every live isolate idle. A
 * renewal of the previous run's isolate can still end in a disposal or a recycle, so counters read
 * before it ends are not final.
 */
async function atRest(): Promise<SandboxPoolStats> {
  await vi.waitFor(
    () => {
      const stats = pool.stats();
      expect(stats).toMatchObject({ preparing: 0, running: 0 });
      expect(stats.warm).toBe(stats.alive);
    },
    { timeout: 10_000 },
  );
  return pool.stats();
}

/** Disposals for a cause other than the recycle rule (guest code left running, a failed renewal). */
const forCause = (stats: SandboxPoolStats): number => stats.disposed - stats.recycled;

/**
 * Runs `run`'s bodies one after the other and checks they all ran on one isolate: with one isolate at a
 * time, a run that did not get the previous run's isolate needs a new one. The isolate may be recycled
 * after the last run (its heap is the collector's business), never disposed for a cause.
 */
async function onOneIsolate<T>(run: () => Promise<T>): Promise<T> {
  if ((await atRest()).warm === 0) await pool.warmup();
  const before = await atRest();
  expect(before.warm, 'one warm isolate before the runs').toBe(1);
  const result = await run();
  const after = await atRest();
  const seen = JSON.stringify({ before, after });
  expect(after.created, `no isolate was created: the runs shared one (${seen})`).toBe(
    before.created,
  );
  expect(forCause(after), `no isolate was disposed for a cause (${seen})`).toBe(forCause(before));
  expect(after.warm + (after.recycled - before.recycled), seen).toBe(1);
  return result;
}

describe('isolate reuse', () => {
  it('makes globals, prototype pollution and replaced intrinsics of one run invisible to the next', async () => {
    await onOneIsolate(async () => {
      const first = await runBody(
        pool,
        `globalThis.x = 1; var declared = 2; Object.prototype.polluted = 'yes';
         Array.prototype.extra = 3; JSON.stringify = () => '"forged"'; Math.random = () => 4;
         Object.defineProperty(globalThis, 'sticky', { value: 5, configurable: false });
         delete globalThis.console; ToolCallError = null;
         return [typeof x, ({}).polluted, [].extra];`,
      );
      expect(expectOk(first)).toEqual(['number', 'yes', 3]);
      const second = await runBody(
        pool,
        `console.log('console works');
         return [typeof x, typeof declared, typeof ({}).polluted, typeof [].extra, JSON.stringify({ a: 1 }),
           Math.random() === 4, typeof sticky, typeof ToolCallError];`,
      );
      expect(expectOk(second)).toEqual([
        'undefined',
        'undefined',
        'undefined',
        'undefined',
        '{"a":1}',
        false,
        'undefined',
        'function',
      ]);
      expect(second.logs).toEqual([{ level: 'log', text: 'console works' }]);
    });
  });

  it("never delivers a run's late reply, logs or calls into the next run", async () => {
    const first = recordingDispatch(async (tool) => {
      // Settles well after the program returned (ignoring the run's abort signal).
      if (tool === 'slow') await sleep(50);
      return { ok: true, value: tool };
    });
    const second = recordingDispatch();
    const [one, two] = await onOneIsolate(async () => [
      await runBody(
        pool,
        `tools.slow().then((v) => { console.log('late ' + v); tools.echo({ from: 'first' }); },
                           (e) => console.log('late failure ' + e.code));
         return 'one';`,
        { dispatch: first.dispatch, bindings: bindingsFor('echo', 'slow') },
      ),
      await runBody(pool, `await tools.echo({ from: 'second' }); return 'two';`, {
        dispatch: second.dispatch,
        bindings: bindingsFor('echo', 'slow'),
      }),
    ]);
    expect(expectOk(one)).toBe('one');
    expect(expectOk(two)).toBe('two');
    expect(one.logs).toEqual([]);
    expect(two.logs).toEqual([]);
    expect(first.calls.map((c) => c.tool)).toEqual(['slow']);
    expect(second.calls.map((c) => c.args)).toEqual([{ from: 'second' }]);
    await sleep(20);
    expect(first.calls).toHaveLength(1);
    expect(second.calls).toHaveLength(1);
  });

  it('gives a run with other tools than the previous one a context with exactly its tools', async () => {
    // The isolate prepares its next context with the previous run's tools installed; a run with
    // other tools gets that context replaced.
    const keys = `return Object.keys(tools);`;
    const outcomes = await onOneIsolate(async () => [
      await runBody(pool, keys, { bindings: bindingsFor('a') }),
      await runBody(pool, keys, { bindings: bindingsFor('b', 'c') }),
      await runBody(pool, keys, { bindings: bindingsFor('b', 'c') }),
      await runBody(pool, keys, { bindings: bindingsFor('a') }),
    ]);
    expect(outcomes.map(expectOk)).toEqual([['a'], ['b', 'c'], ['b', 'c'], ['a']]);
  });

  it('measures the CPU budget from the start of each run, not from the start of the isolate', async () => {
    // Each run spins ~120 ms of a 200 ms budget: together they would exceed it.
    const spin = `const end = Date.now() + 120; while (Date.now() < end) {} return 'spun';`;
    const outcomes = await onOneIsolate(async () => [
      await runBody(pool, spin, { limits: { cpuMs: 200 } }),
      await runBody(pool, spin, { limits: { cpuMs: 200 } }),
      await runBody(pool, spin, { limits: { cpuMs: 200 } }),
    ]);
    for (const outcome of outcomes) {
      expect(expectOk(outcome)).toBe('spun');
      expect(outcome.stats.cpuMs).toBeLessThan(200);
    }
  });

  // These runs are collection-heavy: 250–600 ms of CPU on a loaded 2-core machine. A callback that ran
  // after its run would spin until the limit, so a generous limit only makes a failure slower.
  const GC_HEAVY = { limits: { cpuMs: 5_000, wallMs: 10_000 } };

  it("never runs a finished run's FinalizationRegistry callbacks, even when the collector gets to them later", async () => {
    await onOneIsolate(async () => {
      // Targets die in collections during this run while the registry is alive: the collector
      // queues the callbacks, which would spin if they ran after the run was over.
      const first = await runBody(
        pool,
        `let over = false;
         const registry = new FinalizationRegistry(() => { if (over) { console.log('cleanup'); for (;;) {} } });
         for (let i = 0; i < 2000; i++) registry.register({ payload: new Array(50).fill(i) }, i);
         for (let round = 0; round < 20; round++) { const junk = []; for (let i = 0; i < 20000; i++) junk.push({ i }); }
         globalThis.registry = registry;
         over = true;
         return [registry instanceof FinalizationRegistry, typeof registry.register];`,
        GC_HEAVY,
      );
      expect(expectOk(first)).toEqual([true, 'function']);
      // Garbage enough for full collections while the next run holds the isolate.
      const second = await runBody(
        pool,
        `for (let round = 0; round < 40; round++) { const junk = []; for (let i = 0; i < 20000; i++) junk.push({ i }); }
         return 'collected';`,
        GC_HEAVY,
      );
      expect(expectOk(second)).toBe('collected');
      expect(second.logs).toEqual([]);
    });
    // Within a run, FinalizationRegistry still works (and subclasses construct as usual).
    const within = await runBody(
      pool,
      `class Sub extends FinalizationRegistry {}
       const sub = new Sub(() => {});
       let threw = false; try { FinalizationRegistry(() => {}); } catch (e) { threw = e instanceof TypeError; }
       return [sub instanceof Sub, sub instanceof FinalizationRegistry, threw,
         Object.getPrototypeOf(sub).constructor === Sub, FinalizationRegistry.prototype.constructor === FinalizationRegistry];`,
    );
    expect(expectOk(within)).toEqual([true, true, true, true, true]);
  });

  it('disposes the isolate when guest code keeps running after the outcome, and keeps the outcome', async () => {
    const before = await atRest();
    const outcome = await runBody(
      pool,
      `(async () => { for (let i = 0; i < 3; i++) await null; for (;;) {} })(); return 'returned';`,
    );
    expect(expectOk(outcome)).toBe('returned');
    const after = await atRest();
    expect(after.disposed).toBe(before.disposed + 1);
    expect(after.recycled).toBe(before.recycled);
    expect(expectOk(await runBody(pool, `return 'next';`))).toBe('next');
  });

  it('keeps a stack overflow an exception, on an isolate that is reused afterwards', async () => {
    await onOneIsolate(async () => {
      expectFailure(await runBody(pool, `const f = () => f(); f();`), 'exception');
      expect(expectOk(await runBody(pool, `return [1, 2].map((x) => x * 2);`))).toEqual([2, 4]);
    });
  });
});
