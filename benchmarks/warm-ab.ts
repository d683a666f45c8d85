/**
 * The per-run path of two checkouts of isocode, interleaved in one process:
 *
 *   node --no-node-snapshot --import tsx benchmarks/warm-ab.ts <checkout-A> [<checkout-B>] [--rounds 8]
 *
 * (e.g. `git worktree add --detach /tmp/before <commit>` with `node_modules` linked). A checkout may
 * be followed by `:` and JSON merged into `codeMode` (`.:{"workers":{"maxRunsPerWorker":5000}}`), to
 * compare options of one checkout. `--built` loads each checkout's `dist/` (build both first) instead of
 * its sources through tsx. Each runtime
 * runs the realistic 3-call program of scenario 2 against the 50-tool catalog, with type-checking on
 * and off (sandbox worker processes, as shipped), round by round in alternating order so that the
 * machine's load hits both alike:
 *
 * - `seq`: sequential runs, end-to-end wall time per run (p50 over every round);
 * - `c8`: runs at concurrency 8, runs per second (median over rounds);
 *
 * each with the same program every time (`same`: what a cache of check results serves) and with a
 * per-run unique trailing comment (`unique`: every check is a real one). CPU per run is the whole
 * process tree's (this process and its children: sandbox workers and the checker) over the block,
 * so it is the cost of one runtime's runs while the other is idle. Prints medians and B ÷ A.
 */
import { parseArgs } from 'node:util';
import { catalogTools, importCheckout, type CheckoutRuntime } from './lib/checkout.js';
import { treeCpuMs } from './lib/processes.js';
import { buildCatalog } from './scenarios/catalog.js';
import { REALISTIC_PROGRAM } from './scenarios/programs.js';

type Runtime = CheckoutRuntime;

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    rounds: { type: 'string', default: '8' },
    runs: { type: 'string', default: '40' },
    tput: { type: 'string', default: '160' },
    concurrency: { type: 'string', default: '8' },
    checks: { type: 'string', default: 'on,off' },
    programs: { type: 'string', default: 'same,unique' },
    modes: { type: 'string', default: 'seq,c8' },
    built: { type: 'boolean', default: false },
  },
});
if (positionals.length === 0) {
  console.error('usage: warm-ab.ts <checkout-A> [<checkout-B>] [--rounds N]');
  process.exit(2);
}
const ROUNDS = Number(values.rounds);
const RUNS = Number(values.runs);
const TPUT = Number(values.tput);
const CONCURRENCY = Number(values.concurrency);
const CHECKS = values.checks.split(',') as Array<'on' | 'off'>;
const PROGRAMS = values.programs.split(',') as Array<'same' | 'unique'>;
const MODES = values.modes.split(',') as Array<'seq' | 'c8'>;

let counter = 0;
const programFor = (kind: 'same' | 'unique'): string =>
  kind === 'same' ? REALISTIC_PROGRAM : `${REALISTIC_PROGRAM}// run ${++counter}\n`;

async function open(spec: string, typecheck: boolean): Promise<Runtime> {
  const colon = spec.indexOf(':');
  const root = colon < 0 ? spec : spec.slice(0, colon);
  const extra = colon < 0 ? {} : (JSON.parse(spec.slice(colon + 1)) as Record<string, unknown>);
  const mod = await importCheckout(root, values.built);
  const tools = catalogTools(mod, buildCatalog(50));
  return mod.createRuntime({
    tools,
    scopes: { c: { mode: 'code' } },
    codeMode: {
      typecheck: typecheck ? 'error' : 'off',
      admission: {
        maxConcurrentRunsPerScope: 64,
        maxQueuedRunsPerScope: 1024,
        maxQueuedRuns: 1024,
      },
      ...extra,
    },
  });
}

async function once(rt: Runtime, kind: 'same' | 'unique'): Promise<void> {
  const out = await rt.execute(
    { name: 'run_code', args: { code: programFor(kind), description: 'ab' } },
    { scope: 'c' },
  );
  if (!out.ok) throw new Error(`run failed: ${out.error?.message ?? '?'}`);
}

interface Cell {
  wall: number[];
  rate: number[];
  cpu: number;
  n: number;
}

async function block(
  rt: Runtime,
  mode: 'seq' | 'c8',
  kind: 'same' | 'unique',
  cell: Cell,
): Promise<void> {
  const cpu0 = treeCpuMs();
  if (mode === 'seq') {
    for (let i = 0; i < RUNS; i++) {
      const t = performance.now();
      await once(rt, kind);
      cell.wall.push(performance.now() - t);
    }
    cell.n += RUNS;
  } else {
    let left = TPUT;
    const t = performance.now();
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (left-- > 0) await once(rt, kind);
      }),
    );
    cell.rate.push((TPUT * 1000) / (performance.now() - t));
    cell.n += TPUT;
  }
  cell.cpu += treeCpuMs() - cpu0;
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length === 0 ? NaN : s.length % 2 ? (s[m] ?? NaN) : ((s[m - 1] ?? 0) + (s[m] ?? 0)) / 2;
};

const labels = positionals.map((_, i) => String.fromCharCode(65 + i));
const results = new Map<string, Cell>();
const cellOf = (key: string): Cell => {
  let c = results.get(key);
  if (c === undefined) results.set(key, (c = { wall: [], rate: [], cpu: 0, n: 0 }));
  return c;
};

for (const check of CHECKS) {
  const runtimes = await Promise.all(positionals.map((root) => open(root, check === 'on')));
  for (const rt of runtimes) for (let i = 0; i < 30; i++) await once(rt, 'unique');
  for (let round = 0; round < ROUNDS; round++) {
    for (const mode of MODES)
      for (const kind of PROGRAMS)
        for (let k = 0; k < runtimes.length; k++) {
          const i = (round + k) % runtimes.length;
          const rt = runtimes[i];
          if (rt === undefined) continue;
          await block(rt, mode, kind, cellOf(`${labels[i] ?? '?'} ${check} ${mode} ${kind}`));
        }
  }
  await Promise.all(runtimes.map((rt) => rt.close()));
}

const load = (await import('node:os')).loadavg();
console.log(`load average ${load.map((l) => l.toFixed(1)).join(' ')}; rounds ${ROUNDS}`);
console.log(positionals.map((p, i) => `${labels[i] ?? '?'} = ${p}`).join('\n'));
for (const check of CHECKS)
  for (const mode of MODES)
    for (const kind of PROGRAMS) {
      const row = labels.map((l) => results.get(`${l} ${check} ${mode} ${kind}`));
      const fig = (c: Cell | undefined): number =>
        c === undefined ? NaN : mode === 'seq' ? median(c.wall) : median(c.rate);
      const cpu = (c: Cell | undefined): number => (c === undefined ? NaN : c.cpu / c.n);
      const unit = mode === 'seq' ? 'ms p50' : 'runs/s';
      const parts = row.map(
        (c, i) =>
          `${labels[i] ?? '?'} ${fig(c).toFixed(2)} ${unit} (${cpu(c).toFixed(2)} CPU ms/run)`,
      );
      const ratio = row.length > 1 ? `  B÷A ${(fig(row[1]) / fig(row[0])).toFixed(2)}` : '';
      console.log(`typecheck ${check} ${mode} ${kind}: ${parts.join('  ')}${ratio}`);
    }
