/**
 * The sandbox process boundary, through the runtime: programs that crash, pin or bloat their
 * process fail with a typed kind, the host carries on, and the next run of another tenant works.
 */
import { until } from '../sources/helpers.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool, type Runtime } from '../../src/index.js';
import { benign, echo, kind, runIn, tenants, value } from './helpers.js';

let rt: Runtime;
/** Calls of `entered`: a program that made one is running in its worker. */
let entered = 0;
const enter = defineTool({
  name: 'entered',
  description: 'Counts that a program is running.',
  input: z.object({}),
  execute: () => ++entered,
});
const hostRss = (): number => process.memoryUsage.rss();

beforeAll(async () => {
  rt = await tenants(
    {
      typecheck: 'off',
      limits: { cpuMs: 5_000, wallMs: 10_000, memoryMb: 32 },
      workers: { maxWorkers: 4, spareWorkers: 1, rssBudgetMb: 256 },
    },
    [echo, enter],
  );
});
afterAll(() => rt.close());

const workers = () => rt.stats().runner?.sandbox.workers;

describe('the host survives what a program does to its process', () => {
  it('runs programs in worker processes, not in the host', async () => {
    expect(await benign(rt, 'a')).toBe('a');
    expect(rt.stats().runner?.sandbox.mode).toBe('process');
    expect(workers()?.workers).toBeGreaterThanOrEqual(1);
  });

  it('refuses a program nested too deep for the native parser, without a crash', async () => {
    const deep = `return ${'['.repeat(40_000)}${']'.repeat(40_000)};`;
    const r = await runIn(rt, 'a', deep);
    expect(kind(r)).toBe('syntax');
    expect(value(r)).toMatch(/nests brackets more than 128 deep/);
    // The same depth in other brackets and in template substitutions.
    for (const code of [
      `return ${'('.repeat(30_000)}1${')'.repeat(30_000)};`,
      `return ${'`${'.repeat(10_000)}1${'}`'.repeat(10_000)};`,
    ])
      expect(kind(await runIn(rt, 'a', code))).toBe('syntax');
    expect(await benign(rt, 'b')).toBe('b');
  });

  it('reports a crash of the transpiler or the isolate process as kind crashed, and carries on', async () => {
    // Kill the worker that serves a run while it waits on nothing (a crash from outside).
    const before = workers()?.crashed ?? 0;
    const was = entered;
    const pending = runIn(rt, 'a', 'await tools.entered({}); while (true) {}');
    // Not "a worker is leased": a lease may wait on a worker still starting, and a worker that dies
    // before it ran anything is retried elsewhere (the run would then spin until its CPU limit).
    await until(() => entered > was, 'the program to run in its worker');
    // Kill every worker: the idle ones are replaced as well, and only the run in flight fails.
    for (const pid of runnerPids(rt)) process.kill(pid, 'SIGKILL');
    const r = await pending;
    expect(kind(r)).toBe('crashed');
    expect(value(r)).toMatch(/sandbox process.*crashed/);
    expect((workers()?.crashed ?? 0) - before).toBeGreaterThanOrEqual(1);
    expect(await benign(rt, 'b')).toBe('b');
  });

  it('turns a last-resort out-of-memory of V8 into kind memory (the host does not abort)', async () => {
    const r = await runIn(
      rt,
      'a',
      'const a: number[] = []; for (let i = 0; i < 1e9; i++) a.push(i); return a.length;',
    );
    expect(kind(r)).toBe('memory');
    expect(await benign(rt, 'b')).toBe('b');
  });

  it('stops a builtin that ignores termination by killing its process (timeout), before and after return', async () => {
    // indexOf over a huge holey array never checks for termination.
    const spin =
      'const a: number[] = []; a[2 ** 31] = 1; a.indexOf(5); a.indexOf(5); a.indexOf(5);';
    const r = await runIn(rt, 'a', `${spin} return 1;`);
    expect(kind(r)).toBe('timeout');
    expect(await benign(rt, 'b')).toBe('b');
    // Started after the program returned: the run itself may succeed; its process must not keep
    // a core busy — it is killed and replaced.
    // Counted by the pool's kills, not by pids listed before the run: the worker that serves it may
    // be a spare that was still starting behind the wall then, with no pid to list yet.
    const kills = (): number => {
      const killed = workers()?.killed;
      return killed === undefined ? 0 : Object.values(killed).reduce((a, b) => a + b, 0);
    };
    const killsBefore = kills();
    const after = await runIn(rt, 'a', `Promise.resolve().then(() => { ${spin} }); return 2;`);
    expect([2, undefined]).toContain(after.ok ? value(after) : undefined);
    await until(() => kills() > killsBefore, 'the worker left burning CPU to be killed', 15_000);
    expect(await benign(rt, 'b')).toBe('b');
  });

  it('has no resizable or transferable array buffers that would grow outside the heap limit', async () => {
    const rss = hostRss();
    const r = await runIn(
      rt,
      'a',
      `const b = new ArrayBuffer(0, { maxByteLength: 2 ** 31 } as any) as any;
return [typeof b.resize, typeof b.transfer, typeof (ArrayBuffer.prototype as any).resize, b.byteLength];`,
    );
    expect(value(r)).toEqual(['undefined', 'undefined', 'undefined', 0]);
    expect(hostRss() - rss).toBeLessThan(256 * 2 ** 20);
  });

  it('catches native memory outside the V8 heap (Intl) with the process budget → kind memory', async () => {
    const r = await runIn(
      rt,
      'a',
      `const keep: unknown[] = [];
const locales = ['en', 'de', 'fr', 'ja', 'ar', 'zh', 'ru', 'hi'];
for (let i = 0; i < 2e6; i++) keep.push(new Intl.NumberFormat(locales[i % 8], { style: 'currency', currency: 'EUR', minimumFractionDigits: i % 10 }), new Intl.Collator(locales[i % 8]));
return keep.length;`,
    );
    expect(['memory', 'timeout']).toContain(kind(r));
    expect(await benign(rt, 'b')).toBe('b');
  });

  it('refuses a flood of queued calls with large arguments inside the sandbox (LIMIT_EXCEEDED)', async () => {
    const rss = hostRss();
    const r = await runIn(
      rt,
      'a',
      `const big = 'x'.repeat(200_000);
const settled = await Promise.allSettled(Array.from({ length: 100 }, () => tools.echo({ v: big })));
return settled.filter((s) => s.status === 'rejected').map((s) => ((s as PromiseRejectedResult).reason as { code?: string }).code)[0];`,
    );
    expect(value(r)).toBe('LIMIT_EXCEEDED');
    expect(hostRss() - rss).toBeLessThan(256 * 2 ** 20);
    expect(await benign(rt, 'b')).toBe('b');
  });

  it('agrees with the executor on nesting depth: a 300-deep result is invalid output in the sandbox', async () => {
    const r = await runIn(
      rt,
      'a',
      'let v: unknown = 1; for (let i = 0; i < 300; i++) v = [v]; return v;',
    );
    expect(kind(r)).toBe('invalid-output');
    expect(value(r)).toMatch(/256 levels/);
  });
});

describe('transpile and run in one message (type-check off)', () => {
  // One worker and no spare: which process serves a run is known, and nothing else retires it.
  let one: Runtime;
  let slowCalls = 0;
  beforeAll(async () => {
    one = await tenants({ typecheck: 'off', workers: { maxWorkers: 1, spareWorkers: 0 } }, [
      echo,
      defineTool({
        name: 'slow',
        description: 'Answers when the run is aborted.',
        input: z.object({}),
        execute: (_args: object, ctx) => {
          slowCalls += 1;
          return new Promise((resolve) =>
            ctx.signal.addEventListener('abort', () => resolve(null), { once: true }),
          );
        },
      }),
      defineTool({
        name: 'fickle',
        description: 'Changes its result after returning it (a BigInt, a cycle).',
        input: z.object({ k: z.number() }),
        execute: ({ k }: { k: number }) => {
          const o: Record<string, unknown> = { a: 1 };
          // After k microtasks: some k land after the executor checked it, before the reply left.
          let p = Promise.resolve();
          for (let i = 0; i < k; i++) p = p.then(() => undefined);
          void p.then(() => Object.assign(o, { b: 10n, self: o }));
          return o as { a: number };
        },
      }),
    ]);
  });
  afterAll(() => one.close());
  const pool = () => one.stats().runner?.sandbox.workers;

  it('refuses a program that does not parse, then runs the next program on the same worker', async () => {
    // The first run of the only worker carries the scope's tools tree; its program does not parse.
    for (let i = 0; i < 3; i++) {
      const r = await runIn(one, 'a', 'return 1 +;');
      expect(kind(r)).toBe('syntax');
      expect(value(r)).toMatch(/does not parse/);
      // The next run on the same worker has its tools (sent with the run that did not transpile).
      expect(await benign(one, 'a')).toBe('a');
    }
    // A program that did not transpile is not a failed run: its worker is kept.
    expect(runnerPids(one)).toHaveLength(1);
    expect(pool()?.spawned).toBe(1);
  });

  it('a tool that changes its result after returning it fails its own call, never the worker', async () => {
    expect(await benign(one, 'a')).toBe('a');
    const [served] = runnerPids(one);
    const r = await runIn(
      one,
      'a',
      `const seen = [];
       for (let k = 0; k < 80; k++) {
         try { seen.push(JSON.stringify(await tools.fickle({ k }))); }
         catch (e) { seen.push(/not JSON|no longer JSON/.test((e as Error).message) ? 'not JSON' : (e as Error).message); }
       }
       return seen;`,
    );
    expect(r.ok, JSON.stringify(r)).toBe(true);
    for (const seen of value(r) as string[]) expect(seen).toMatch(/^\{"a":1\}$|^not JSON$/);
    expect(runnerPids(one)).toEqual([served]);
    expect(await benign(one, 'a')).toBe('a');
  });

  it('keeps the worker of a run aborted while it waited on a tool (a parked or cancelled run)', async () => {
    expect(await benign(one, 'a')).toBe('a');
    const [served] = runnerPids(one);
    const spawned = pool()?.spawned;
    for (let i = 0; i < 3; i++) {
      const controller = new AbortController();
      const pending = one.execute(
        {
          name: 'run_code',
          args: { code: 'await tools.slow({}); return 1;', description: 'aborted' },
        },
        { scope: 'a', signal: controller.signal },
      );
      await until(() => slowCalls > i, 'the program to call the slow tool');
      controller.abort();
      const r = await pending;
      expect(r.ok).toBe(false);
      expect(await benign(one, 'a')).toBe('a');
    }
    // The worker reported each abort in time: it serves on, no process was started for it.
    expect(runnerPids(one)).toEqual([served]);
    expect(pool()?.spawned).toBe(spawned);
  });

  it('runs a program on a fresh worker when its worker was lost just before the message', async () => {
    expect(await benign(one, 'a')).toBe('a');
    const [lost] = runnerPids(one);
    const crashed = pool()?.crashed ?? 0;
    // No turn of the event loop between the kill and the lease: the pool leases the worker it has
    // not yet seen die, whose transpile-and-run never gets an answer; the slot retries on a new one.
    if (lost !== undefined) process.kill(lost, 'SIGKILL');
    expect(await benign(one, 'a')).toBe('a');
    expect((pool()?.crashed ?? 0) - crashed).toBe(1);
    expect(runnerPids(one)).not.toContain(lost);
    expect(await benign(one, 'b')).toBe('b');
  });
});

function runnerPids(runtime: Runtime): number[] {
  return runtime.stats().runner?.sandbox.workers?.pids ?? [];
}
