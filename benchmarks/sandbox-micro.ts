/**
 * Micro-measurements behind docs/decisions/004-isolate-strategy.md:
 *
 *   node --no-node-snapshot --expose-gc --import tsx benchmarks/sandbox-micro.ts \
 *     [--baseline <checkout>] [--rounds <n>]
 *
 * `--baseline` points at another checkout of isocode (e.g. `git worktree add /tmp/before 6d41acf`,
 * with `node_modules` linked): its `SandboxPool` is measured in the same process, interleaved
 * round by round with this one, so the machine's load hits both alike. Without it, the current
 * pool is compared with itself set to `maxRunsPerIsolate: 1` (a brand-new isolate per run).
 * Prints Markdown: medians over rounds, the range of the round medians, and ratios.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { join, resolve } from 'node:path';
import ivm from 'isolated-vm';
import {
  ENTRY_SPECIFIER,
  loadBootstrapScript,
  loadIsolateModules,
} from '../src/sandbox/isolate-code.js';
import { SandboxPool, type Dispatch, type RunRequest } from '../src/sandbox/index.js';
import { SandboxIsolate } from '../src/sandbox/sandbox-isolate.js';

const { values } = parseArgs({
  options: { baseline: { type: 'string' }, rounds: { type: 'string', default: '7' } },
});
const ROUNDS = Number(values.rounds);

const median = (xs: readonly number[]): number =>
  [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
const fmt = (x: number, unit: string): string =>
  unit === 'µs'
    ? `${(x * 1000).toFixed(1)} µs`
    : unit === 'ms'
      ? `${x.toFixed(3)} ms`
      : x.toFixed(0);
const program = (body: string): string => `(async function () {\n'use strict';\n${body}\n})`;
const echo: Dispatch = (_tool, args) => Promise.resolve({ ok: true, value: args });
const pause = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
async function time(n: number, fn: () => unknown): Promise<number> {
  const samples: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await fn();
    samples.push(performance.now() - t);
  }
  return median(samples);
}
function table(title: string, columns: string[], rows: string[][]): void {
  console.log(
    `\n### ${title}\n\n| ${columns.join(' | ')} |\n|${columns.map(() => '---').join('|')}|`,
  );
  for (const row of rows) console.log(`| ${row.join(' | ')} |`);
}

// 1. The pieces of a run's isolate and context, measured alone (one isolate, idle machine part).
{
  const rows: string[][] = [];
  const sources = await loadIsolateModules();
  const script = await loadBootstrapScript();
  rows.push([
    'new Isolate({ memoryLimit: 64 })',
    fmt(await time(30, () => new ivm.Isolate({ memoryLimit: 64 }).dispose()), 'ms'),
  ]);
  const isolate = new ivm.Isolate({ memoryLimit: 64 });
  rows.push([
    'createContext() in a warm isolate (awaited) + release',
    fmt(await time(100, async () => (await isolate.createContext()).release()), 'ms'),
  ]);
  // Before: the 11 modules compiled, linked and evaluated in every context.
  const modulesPerContext = await time(60, async () => {
    const context = await isolate.createContext();
    const modules = new Map<string, ivm.Module>();
    for (const s of sources)
      modules.set(s.specifier, isolate.compileModuleSync(s.code, { filename: s.filename }));
    const entry = modules.get(ENTRY_SPECIFIER);
    if (entry === undefined) throw new Error('no entry');
    entry.instantiateSync(context, (specifier) => modules.get(specifier) as ivm.Module);
    entry.evaluateSync();
    const ns = entry.namespace;
    // prepare() locks the context down, as the linked script's completion does.
    const prepare = ns.getSync('prepare', { reference: true }) as ivm.Reference<() => unknown>;
    (prepare.applySync(undefined, [], { result: { reference: true } }) as ivm.Reference).release();
    prepare.release();
    ns.release();
    for (const m of modules.values()) m.release();
    context.release();
  });
  // After: one linked script compiled once per isolate, run in each context (prepare + lockdown).
  const bootstrap = isolate.compileScriptSync(script.code, { filename: script.filename });
  const scriptPerContext = await time(60, async () => {
    const context = await isolate.createContext();
    ((await bootstrap.run(context, { reference: true })) as ivm.Reference<unknown>).release();
    context.release();
  });
  rows.push([
    'context + bootstrap: 11 modules compiled, linked, evaluated per context (before)',
    fmt(modulesPerContext, 'ms'),
  ]);
  rows.push([
    'context + bootstrap: linked script compiled once per isolate, run per context (now)',
    fmt(scriptPerContext, 'ms'),
  ]);
  isolate.dispose();
  const producer = new ivm.Isolate({ memoryLimit: 64 });
  const cache = (
    producer.compileScriptSync(script.code, {
      filename: script.filename,
      produceCachedData: true,
    }) as unknown as ivm.CachedDataResult
  ).cachedData;
  producer.dispose();
  for (const cached of [false, true]) {
    const samples: number[] = [];
    let rejected = false;
    for (let i = 0; i < 30; i++) {
      const fresh = new ivm.Isolate({ memoryLimit: 64 });
      const t = performance.now();
      const compiled = fresh.compileScriptSync(
        script.code,
        cached && cache !== undefined
          ? { filename: script.filename, cachedData: cache }
          : { filename: script.filename },
      ) as unknown as { cachedDataRejected?: boolean };
      samples.push(performance.now() - t);
      rejected ||= compiled.cachedDataRejected === true;
      fresh.dispose();
    }
    rows.push([
      `compile the bootstrap script in a new isolate, ${cached ? `from V8's code cache${rejected ? ' (REJECTED)' : ''}` : 'no cache'}`,
      fmt(median(samples), 'ms'),
    ]);
  }
  rows.push([
    'SandboxIsolate.create (isolate + bootstrap + first context), off the hot path',
    fmt(await time(20, async () => (await SandboxIsolate.create(64)).dispose()), 'ms'),
  ]);
  {
    const warm = await SandboxIsolate.create(64);
    const heap = warm.isolate.getHeapStatisticsSync();
    rows.push([
      'heap of a warm isolate (context prepared): used / total',
      `${(heap.used_heap_size / 1048576).toFixed(2)} / ${(heap.total_heap_size / 1048576).toFixed(2)} MiB`,
    ]);
    warm.dispose();
  }
  rows.push(['bootstrap script (bytes of JS)', String(script.code.length)]);
  table('Isolate and context, one at a time', ['measurement', 'median'], rows);
}

// 2. Runs end to end, configurations interleaved round by round.
type Pool = {
  run(r: RunRequest): Promise<unknown>;
  warmup(): Promise<void>;
  close(): Promise<void>;
};
const configs: [string, () => Promise<Pool>][] = [
  ['reuse (now)', () => Promise.resolve(new SandboxPool({ size: 2 }))],
];
if (values.baseline !== undefined) {
  const url = pathToFileURL(join(resolve(values.baseline), 'src/sandbox/index.ts')).href;
  const mod = (await import(url)) as { SandboxPool: new (o: object) => Pool };
  configs.push([
    `baseline (${values.baseline})`,
    () => Promise.resolve(new mod.SandboxPool({ size: 2 })),
  ]);
} else {
  configs.push([
    'brand-new isolate per run (maxRunsPerIsolate: 1)',
    () => Promise.resolve(new SandboxPool({ size: 2, maxRunsPerIsolate: 1 })),
  ]);
}
const tools50 = Array.from({ length: 50 }, (_, i) => ({
  path: [`ns${i % 5}`, `tool${i}`],
  tool: `ns${i % 5}.tool${i}`,
}));
const echoBinding = [{ path: ['echo'], tool: 'echo' }];
const bindings51 = [...tools50, ...echoBinding];
const threeCalls: RunRequest = {
  js: program(
    `const a = await tools.echo({ i: 1 }); const b = await tools.echo({ i: 2 }); const c = await tools.echo({ i: 3 }); return [a, b, c];`,
  ),
  bindings: bindings51,
  dispatch: echo,
};
const trivial: RunRequest = { js: program('return 1;'), bindings: echoBinding, dispatch: echo };
const bridgeRun = (body: string): RunRequest => ({
  js: program(body),
  bindings: echoBinding,
  dispatch: echo,
  limits: { maxCalls: 5000, maxCallsInFlight: 1000 },
});

interface Metric {
  label: string;
  unit: 'ms' | 'µs' | 'runs/s';
  measure(pool: Pool): Promise<number>;
}
const backToBack = (request: RunRequest) => async (pool: Pool) => time(60, () => pool.run(request));
const throughput = (concurrency: number) => async (pool: Pool) => {
  const n = 400;
  let started = 0;
  const t = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (started < n) {
        started++;
        await pool.run(threeCalls);
      }
    }),
  );
  return n / ((performance.now() - t) / 1000);
};
const bridge = (body: string) => async (pool: Pool) => {
  const outcome = (await pool.run(bridgeRun(body))) as { ok: boolean; result?: unknown };
  if (!outcome.ok) throw new Error('bridge run failed');
  return outcome.result as number;
};
const metrics: Metric[] = [
  { label: 'run() `return 1`, back to back, p50', unit: 'ms', measure: backToBack(trivial) },
  {
    label: 'run() 3 sequential calls, 51 bindings, back to back, p50',
    unit: 'ms',
    measure: backToBack(threeCalls),
  },
  { label: 'throughput, 3 calls, concurrency 8', unit: 'runs/s', measure: throughput(8) },
  {
    label: 'bridge round trip, sequential (2,000 awaited calls)',
    unit: 'µs',
    measure: bridge(
      `const t = Date.now(); for (let i = 0; i < 2000; i++) await tools.echo({ i }); return (Date.now() - t) / 2000;`,
    ),
  },
  {
    label: 'bridge, Promise.all of 1,000, per call',
    unit: 'µs',
    measure: bridge(
      `const t = Date.now(); await Promise.all(Array.from({ length: 1000 }, (_, i) => tools.echo({ i }))); return (Date.now() - t) / 1000;`,
    ),
  },
];
{
  const pools = await Promise.all(
    configs.map(async ([name, make]) => [name, await make()] as const),
  );
  for (const [, pool] of pools) await pool.warmup();
  const samples = new Map<string, number[]>();
  for (let round = 0; round < ROUNDS; round++) {
    for (const metric of metrics) {
      for (const [name, pool] of round % 2 === 0 ? pools : [...pools].reverse()) {
        await pause(20);
        const key = `${metric.label}\u0000${name}`;
        samples.set(key, [...(samples.get(key) ?? []), await metric.measure(pool)]);
      }
    }
  }
  for (const [, pool] of pools) await pool.close();
  const [now, other] = configs.map(([name]) => name);
  const rows = metrics.map((metric) => {
    const a = samples.get(`${metric.label}\u0000${now}`) ?? [];
    const b = samples.get(`${metric.label}\u0000${other}`) ?? [];
    const range = (xs: number[]): string =>
      `${fmt(Math.min(...xs), metric.unit)} – ${fmt(Math.max(...xs), metric.unit)}`;
    const ratio = metric.unit === 'runs/s' ? median(a) / median(b) : median(b) / median(a);
    return [
      metric.label,
      fmt(median(b), metric.unit),
      range(b),
      fmt(median(a), metric.unit),
      range(a),
      `${ratio.toFixed(2)}×`,
    ];
  });
  table(
    `Runs, ${ROUNDS} interleaved rounds: "${other}" vs "${now}"`,
    ['measurement', `${other} median`, 'range', `${now} median`, 'range', 'gain'],
    rows,
  );
}

// 3. Throughput by concurrency, with the OS threads created per run: isolated-vm runs isolate tasks
// on (cores + 1) threads and starts a new thread for a task that finds them all busy.
{
  const created = (): number =>
    Number(/processes (\d+)/.exec(readFileSync('/proc/stat', 'utf8'))?.[1] ?? NaN);
  const pool = new SandboxPool({ size: 2 });
  await pool.warmup();
  const rows: string[][] = [];
  for (const concurrency of [1, 2, 3, 4, 8, 16]) {
    const rates: number[] = [];
    const threads: number[] = [];
    const cpu: number[] = [];
    for (let round = 0; round < Math.max(3, Math.floor(ROUNDS / 2)); round++) {
      const before = created();
      const usage = process.cpuUsage();
      rates.push(await throughput(concurrency)(pool));
      const used = process.cpuUsage(usage);
      threads.push((created() - before) / 400);
      cpu.push((used.user + used.system) / 1000 / 400);
    }
    rows.push([
      String(concurrency),
      fmt(median(rates), 'runs/s'),
      `${fmt(Math.min(...rates), '')} – ${fmt(Math.max(...rates), '')}`,
      median(cpu).toFixed(2),
      median(threads).toFixed(2),
    ]);
  }
  await pool.close();
  table(
    'Throughput by concurrency (3 calls, 51 bindings)',
    ['concurrency', 'runs/s median', 'range', 'process CPU ms/run', 'OS threads created per run'],
    rows,
  );
}

// 4. The watchdog: one 5 ms timer for all runs; throughput with it against a 1 s interval.
{
  const fast = new SandboxPool({ size: 2, watchdogIntervalMs: 5 });
  const slow = new SandboxPool({ size: 2, watchdogIntervalMs: 1000 });
  await fast.warmup();
  await slow.warmup();
  const a: number[] = [];
  const b: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    a.push(await throughput(8)(fast));
    b.push(await throughput(8)(slow));
  }
  await fast.close();
  await slow.close();
  table(
    'Watchdog polling, throughput at concurrency 8',
    ['interval', 'runs/s median', 'range'],
    [
      [
        '5 ms (default)',
        fmt(median(a), 'runs/s'),
        `${fmt(Math.min(...a), '')} – ${fmt(Math.max(...a), '')}`,
      ],
      [
        '1000 ms',
        fmt(median(b), 'runs/s'),
        `${fmt(Math.min(...b), '')} – ${fmt(Math.max(...b), '')}`,
      ],
    ],
  );
}

// 5. Raw isolated-vm round trips (trivial host function), the floor of the bridge.
{
  const isolate = new ivm.Isolate({ memoryLimit: 64 });
  const context = await isolate.createContext();
  await context.global.set('host', new ivm.Reference(() => Promise.resolve('')));
  const rows: string[][] = [];
  for (const [label, body] of [
    [
      'raw Reference.apply round trip, sequential',
      `for (let i = 0; i < 2000; i++) await host.apply(undefined, [], O); return (Date.now() - t) / 2000;`,
    ],
    [
      'raw Reference.apply round trip, parallel, per call',
      `await Promise.all(Array.from({ length: 1000 }, () => host.apply(undefined, [], O))); return (Date.now() - t) / 1000;`,
    ],
  ] as const) {
    const xs: number[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      const code = `(async () => { const O = { result: { promise: true } }; const t = Date.now(); ${body} })()`;
      xs.push((await context.eval(code, { promise: true, copy: true })) as number);
    }
    rows.push([
      label,
      fmt(median(xs), 'µs'),
      `${fmt(Math.min(...xs), 'µs')} – ${fmt(Math.max(...xs), 'µs')}`,
    ]);
  }
  isolate.dispose();
  table('isolated-vm floor', ['measurement', 'median', 'range'], rows);
}

// 6. Why not a snapshot: contexts made from a snapshot taken after the bootstrap lose part of it.
{
  const script = await loadBootstrapScript();
  const snapshot = ivm.Isolate.createSnapshot([
    { code: `globalThis.__entry = ${script.code};`, filename: script.filename },
  ]);
  const isolate = new ivm.Isolate({ memoryLimit: 64, snapshot });
  const context = await isolate.createContext();
  const seen = (await context.eval(
    `[typeof globalThis.__entry, typeof WebAssembly, typeof SharedArrayBuffer].join(' ')`,
    { copy: true },
  )) as string;
  isolate.dispose();
  console.log(
    `\nsnapshot taken after the bootstrap: a new context sees [entry, WebAssembly, SharedArrayBuffer] = ${seen} (lockdown had removed the last two)`,
  );
}

// 7. Shared isolate: one context's out-of-memory kills its sibling.
{
  const shared = new ivm.Isolate({ memoryLimit: 32 });
  const sibling = await shared.createContext();
  const bomb = await shared.createContext();
  const pendingHost = new ivm.Reference(
    () => new Promise<string>((resolve) => setTimeout(() => resolve('late'), 500)),
  );
  await sibling.global.set('host', pendingHost);
  const siblingRun = sibling
    .eval(`host.apply(undefined, [], { result: { promise: true, copy: true } })`, {
      promise: true,
      copy: true,
    })
    .then(
      (v) => `sibling finished: ${JSON.stringify(v)}`,
      (e: unknown) => `sibling failed: ${(e as Error).message}`,
    );
  const bombRun = bomb.eval(`const a = []; for (;;) a.push(new Array(1e4).fill(0));`).then(
    () => 'bomb finished',
    (e: unknown) => `bomb failed: ${(e as Error).message}`,
  );
  console.log(
    `\nshared isolate, 32 MiB: ${await bombRun}; ${await siblingRun}; isolate disposed: ${shared.isDisposed}`,
  );
  // Let the killed isolate finish tearing down before exiting (see the decision record).
  await new Promise((resolve) => setTimeout(resolve, 100));
}
