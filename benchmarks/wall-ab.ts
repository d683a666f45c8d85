/**
 * The cost of the second wall (decision record 032), side by side in one process:
 *
 *   npm run build && node --no-node-snapshot --import tsx benchmarks/wall-ab.ts [--rounds 6] [--sources]
 *
 * Two runtimes of the built package (`dist/`, as shipped: the worker runs with Node's permission
 * model inside the wall; `--sources` loads `src/` through tsx instead), one with `wall: "bwrap"` and
 * one with `wall: "none"`, measured round by round in alternating order so that the machine's load
 * hits both alike. Per round and runtime:
 *
 * - `start`: a run on a fresh worker (`spareWorkers: 0`, `maxRunsPerWorker: 1`: every run starts its
 *   own process): what a run pays when no spare worker is ready;
 * - `warm`: a one-call program on a warm worker, end to end (p50 of `--runs`), type-check off;
 * - `checked`: the same with the type-check on (the checker's process is walled too), a unique
 *   program each time so that every check is real;
 * - `nested`: per nested call, from a 40-call sequential program minus the one-call one;
 * - `rss`: resident memory of one idle worker, and of the wall's own two bubblewrap processes.
 *
 * Prints medians over rounds and walled ÷ plain.
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '6' },
    runs: { type: 'string', default: '30' },
    starts: { type: 'string', default: '8' },
    sources: { type: 'boolean', default: false },
  },
});
const ROUNDS = Number(values.rounds);
const RUNS = Number(values.runs);
const STARTS = Number(values.starts);
const ROOT = resolve(import.meta.dirname, '..');

interface Runtime {
  execute(call: unknown): Promise<{ ok: boolean; error?: { message?: string } }>;
  stats(): {
    runner?: {
      wall: { active: boolean };
      sandbox: { workers?: { pids: number[] } };
    };
  };
  close(): Promise<void>;
}
interface Module {
  defineTool(definition: Record<string, unknown>): unknown;
  createRuntime(options: unknown): Promise<Runtime>;
}

const mod = (await import(
  pathToFileURL(values.sources ? join(ROOT, 'src/index.ts') : join(ROOT, 'dist/index.js')).href
)) as Module;

const echo = mod.defineTool({
  name: 'echo',
  description: 'Echoes a number.',
  input: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] },
  output: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] },
  execute: ({ n }: { n: number }) => ({ n }),
});

const program = (calls: number, tag = ''): string =>
  `let s = 0;\nfor (let i = 0; i < ${calls}; i++) s += (await tools.echo({ n: i })).n;\nreturn s;${tag}`;

type Wall = 'bwrap' | 'none';
const WALLS: Wall[] = ['bwrap', 'none'];

function open(wall: Wall, typecheck: boolean, fresh: boolean): Promise<Runtime> {
  return mod.createRuntime({
    tools: [echo],
    scopes: { default: { mode: 'code' } },
    codeMode: {
      wall,
      typecheck: typecheck ? 'error' : 'off',
      workers: fresh ? { spareWorkers: 0, maxRunsPerWorker: 1 } : { spareWorkers: 1 },
    },
  });
}

let unique = 0;
async function timed(rt: Runtime, code: string): Promise<number> {
  const t = performance.now();
  const r = await rt.execute({ name: 'run_code', args: { description: 'wall-ab', code } });
  const ms = performance.now() - t;
  if (!r.ok) throw new Error(`run failed: ${r.error?.message ?? ''}`);
  return ms;
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 === 1 ? (s[mid] ?? NaN) : ((s[mid - 1] ?? NaN) + (s[mid] ?? NaN)) / 2;
};

function rssKb(pid: number): number {
  try {
    return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'latin1'))?.[1] ?? 0);
  } catch {
    return 0;
  }
}
function parentOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
}

type Figures = Record<'start' | 'warm' | 'checked' | 'nested' | 'rss' | 'wallRss', number>;
const samples: Record<Wall, Figures[]> = { bwrap: [], none: [] };

async function round(wall: Wall): Promise<Figures> {
  const fresh = await open(wall, false, true);
  const starts: number[] = [];
  try {
    await timed(fresh, program(1));
    for (let i = 0; i < STARTS; i++) starts.push(await timed(fresh, program(1)));
  } finally {
    await fresh.close();
  }
  const warm = await open(wall, false, false);
  const warmRuns: number[] = [];
  const nestedRuns: number[] = [];
  let rss = 0;
  let wallRss = 0;
  try {
    for (let i = 0; i < 3; i++) await timed(warm, program(40));
    for (let i = 0; i < RUNS; i++) {
      warmRuns.push(await timed(warm, program(1)));
      nestedRuns.push(await timed(warm, program(40)));
    }
    const stats = warm.stats().runner;
    if (stats?.wall.active !== (wall === 'bwrap')) throw new Error(`wall ${wall} not as asked`);
    const pids = stats.sandbox.workers?.pids ?? [];
    rss = median(pids.map(rssKb)) / 1024;
    if (wall === 'bwrap')
      wallRss =
        median(
          pids.map((pid) => {
            const reaper = parentOf(pid);
            return rssKb(reaper) + rssKb(parentOf(reaper));
          }),
        ) / 1024;
  } finally {
    await warm.close();
  }
  const checked = await open(wall, true, false);
  const checkedRuns: number[] = [];
  try {
    await timed(checked, program(1, `\n// ${++unique}`));
    for (let i = 0; i < RUNS; i++)
      checkedRuns.push(await timed(checked, program(1, `\n// ${++unique}`)));
  } finally {
    await checked.close();
  }
  const warmP50 = median(warmRuns);
  return {
    start: median(starts),
    warm: warmP50,
    checked: median(checkedRuns),
    nested: (median(nestedRuns) - warmP50) / 39,
    rss,
    wallRss,
  };
}

for (let r = 0; r < ROUNDS; r++) {
  const order = r % 2 === 0 ? WALLS : [...WALLS].reverse();
  for (const wall of order) samples[wall].push(await round(wall));
  process.stderr.write(`round ${r + 1}/${ROUNDS}\n`);
}

const rows: Array<[keyof Figures, string]> = [
  ['start', 'run on a fresh worker (process start included), ms'],
  ['warm', 'warm run, one nested call, type-check off, p50 ms'],
  ['checked', 'warm run, type-check on (unique program), p50 ms'],
  ['nested', 'per nested call, ms'],
  ['rss', 'idle worker RSS, MiB'],
  ['wallRss', "the wall's bubblewrap processes per worker, RSS MiB"],
];
const fmt = (x: number): string => (Math.abs(x) >= 10 ? x.toFixed(1) : x.toFixed(2));
console.log(
  `Node ${process.version}, ${values.sources ? 'sources (tsx)' : 'dist'}, ${ROUNDS} rounds (medians)\n`,
);
console.log('| figure | wall: bwrap | wall: none | bwrap ÷ none |');
console.log('| --- | ---: | ---: | ---: |');
for (const [key, label] of rows) {
  const a = median(samples.bwrap.map((f) => f[key]));
  const b = median(samples.none.map((f) => f[key]));
  console.log(`| ${label} | ${fmt(a)} | ${fmt(b)} | ${b > 0 ? (a / b).toFixed(2) : '—'} |`);
}
