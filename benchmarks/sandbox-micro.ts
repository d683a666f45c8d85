/**
 * Micro-measurements behind docs/decisions/004-isolate-strategy.md:
 *   node --no-node-snapshot --import tsx benchmarks/sandbox-micro.ts
 * Prints a Markdown table (medians) and the shared-isolate out-of-memory experiment.
 */
import ivm from 'isolated-vm';
import { ENTRY_SPECIFIER, loadIsolateModules } from '../src/sandbox/isolate-code.js';
import { SandboxPool, type Dispatch } from '../src/sandbox/index.js';
import { SandboxIsolate } from '../src/sandbox/sandbox-isolate.js';

const rows: [string, string][] = [];
const median = (xs: number[]): number =>
  [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
const ms = (x: number): string => `${x.toFixed(3)} ms`;
const us = (x: number): string => `${(x * 1000).toFixed(1)} µs`;
async function time(n: number, fn: () => unknown): Promise<number> {
  const samples: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await fn();
    samples.push(performance.now() - t);
  }
  return median(samples);
}
const program = (body: string): string => `(async function () {\n'use strict';\n${body}\n})`;
const echo: Dispatch = (_tool, args) => Promise.resolve({ ok: true, value: args });

// 1. Bare isolate creation and its memory.
await loadIsolateModules();
rows.push([
  'new Isolate({ memoryLimit: 64 })',
  ms(await time(50, () => new ivm.Isolate({ memoryLimit: 64 }).dispose())),
]);
{
  global.gc?.();
  const before = process.memoryUsage().rss;
  const kept = Array.from({ length: 50 }, () => new ivm.Isolate({ memoryLimit: 64 }));
  const after = process.memoryUsage().rss;
  rows.push([
    'RSS per idle isolate (50 kept)',
    `${((after - before) / 50 / 1024 / 1024).toFixed(2)} MiB`,
  ]);
  const heap = kept[0]?.getHeapStatisticsSync();
  rows.push([
    'isolate heap after creation (total_heap_size)',
    `${((heap?.total_heap_size ?? 0) / 1024 / 1024).toFixed(2)} MiB`,
  ]);
  for (const isolate of kept) isolate.dispose();
}

// 2. Context creation: in a fresh isolate vs in a shared, warm isolate.
rows.push([
  'isolate + createContext (fresh isolate)',
  ms(
    await time(50, async () => {
      const isolate = new ivm.Isolate({ memoryLimit: 64 });
      await isolate.createContext();
      isolate.dispose();
    }),
  ),
]);
{
  const shared = new ivm.Isolate({ memoryLimit: 64 });
  rows.push([
    'createContext + release (shared warm isolate)',
    ms(
      await time(50, async () => {
        (await shared.createContext()).release();
      }),
    ),
  ]);
  shared.dispose();
}

// 3. Bootstrap: compile + link + evaluate the isolate modules, lockdown.
{
  const sources = await loadIsolateModules();
  rows.push([
    'isolate modules (count, bytes of JS)',
    `${sources.length}, ${sources.reduce((n, s) => n + s.code.length, 0)}`,
  ]);
  for (const mode of ['sync', 'async'] as const) {
    const samples: number[] = [];
    for (let i = 0; i < 30; i++) {
      const isolate = new ivm.Isolate({ memoryLimit: 64 });
      const context = await isolate.createContext();
      const t = performance.now();
      const modules = new Map<string, ivm.Module>();
      for (const source of sources) {
        const options = { filename: source.filename };
        modules.set(
          source.specifier,
          mode === 'sync'
            ? isolate.compileModuleSync(source.code, options)
            : await isolate.compileModule(source.code, options),
        );
      }
      const entry = modules.get(ENTRY_SPECIFIER);
      if (!entry) throw new Error('no entry');
      const resolve = (specifier: string): ivm.Module => modules.get(specifier) as ivm.Module;
      if (mode === 'sync') {
        entry.instantiateSync(context, resolve);
        entry.evaluateSync();
        (
          entry.namespace.getSync('lockdown', { reference: true }) as ivm.Reference<() => void>
        ).applySync(undefined, []);
      } else {
        await entry.instantiate(context, resolve);
        await entry.evaluate();
        await (
          (await entry.namespace.get('lockdown', { reference: true })) as ivm.Reference<() => void>
        ).apply(undefined, []);
      }
      samples.push(performance.now() - t);
      isolate.dispose();
    }
    rows.push([
      `bootstrap: compile + link + evaluate + lockdown (${mode === 'sync' ? 'synchronous calls, as used' : 'awaited calls'})`,
      ms(median(samples)),
    ]);
  }
}
rows.push([
  'SandboxIsolate.create (isolate + context + bootstrap), off the hot path',
  ms(await time(30, async () => (await SandboxIsolate.create(64)).dispose())),
]);

// 4. Runs end to end, warm pool vs cold.
const warm = new SandboxPool({ size: 2 });
await warm.warmup();
const trivial = { js: program('return 1;'), bindings: [], dispatch: echo };
{
  const latencies: number[] = [];
  const isolateMs: number[] = [];
  for (let i = 0; i < 50; i++) {
    await new Promise((resolve) => setTimeout(resolve, 15)); // let the refill finish
    const t = performance.now();
    const outcome = await warm.run(trivial);
    latencies.push(performance.now() - t);
    isolateMs.push(outcome.stats.isolateMs);
  }
  rows.push([
    'run() `return 1`, warm pool, runs 15 ms apart (install + compile + tick + dispose)',
    ms(median(latencies)),
  ]);
  rows.push(['  of which isolateMs (taking the warm isolate)', ms(median(isolateMs))]);
  const t = performance.now();
  for (let i = 0; i < 100; i++) await warm.run(trivial);
  rows.push([
    'run() `return 1`, back to back (steady state: one isolate prepared per run)',
    ms((performance.now() - t) / 100),
  ]);
}
const cold = new SandboxPool({ size: 0 });
rows.push([
  'run() `return 1` — no warm pool (cold isolate per run)',
  ms(await time(30, () => cold.run(trivial))),
]);
await cold.close();

// 5. Bridge round trips, measured inside the isolate with Date.now() over many calls.
const bindings = [{ path: ['echo'], tool: 'echo' }];
for (const [label, body] of [
  [
    'bridge round trip, sequential (await each of 2,000)',
    `const t = Date.now(); for (let i = 0; i < 2000; i++) await tools.echo({ i }); return (Date.now() - t) / 2000;`,
  ],
  [
    'bridge round trip, parallel (Promise.all of 1,000), per call',
    `const t = Date.now(); await Promise.all(Array.from({ length: 1000 }, (_, i) => tools.echo({ i }))); return (Date.now() - t) / 1000;`,
  ],
] as const) {
  const samples: number[] = [];
  for (let i = 0; i < 5; i++) {
    const outcome = await warm.run({
      js: program(body),
      bindings,
      dispatch: echo,
      limits: { maxCalls: 5000, maxCallsInFlight: 1000 },
    });
    if (!outcome.ok) throw new Error(outcome.message);
    samples.push(outcome.result as number);
  }
  rows.push([label, us(median(samples))]);
}
await warm.close();

// Raw isolated-vm round trip (trivial async host function), for comparison with the bridge.
{
  const isolate = new ivm.Isolate({ memoryLimit: 64 });
  const context = await isolate.createContext();
  await context.global.set('host', new ivm.Reference(() => Promise.resolve('')));
  for (const [label, body] of [
    [
      'raw Reference.apply round trip, sequential',
      `let t = Date.now(); for (let i = 0; i < 2000; i++) await host.apply(undefined, [], O); return (Date.now() - t) / 2000;`,
    ],
    [
      'raw Reference.apply round trip, parallel, per call',
      `let t = Date.now(); await Promise.all(Array.from({ length: 1000 }, () => host.apply(undefined, [], O))); return (Date.now() - t) / 1000;`,
    ],
  ] as const) {
    const samples: number[] = [];
    for (let i = 0; i < 5; i++) {
      const code = `(async () => { const O = { result: { promise: true, copy: true } }; ${body} })()`;
      samples.push((await context.eval(code, { promise: true, copy: true })) as number);
    }
    rows.push([label, us(median(samples))]);
  }
  isolate.dispose();
}

console.log('| measurement | median |\n|---|---|');
for (const [name, value] of rows) console.log(`| ${name} | ${value} |`);

// 6. Shared isolate: one context's out-of-memory kills its sibling.
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
