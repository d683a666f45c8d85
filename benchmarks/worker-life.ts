/**
 * One sandbox worker's life, run by run: what `maxRunsPerWorker` trades (issue 28, part 2).
 *
 *   npm run build && node --no-node-snapshot --import tsx benchmarks/worker-life.ts \
 *     [--runs 6000] [--slice 250] [--lives 500,2000,6000]
 *
 * For each `maxRunsPerWorker` in `--lives` (in turn, one runtime of the built package each, one
 * worker process, no spare: `maxWorkers: 1`), runs the realistic 3-call program of scenario 2 against
 * the 50-tool catalog, type-check off, `--runs` times, and after every `--slice` runs reads from /proc
 * the worker's RSS and the CPU time of the host and of the worker (every worker process that served
 * the slice, replacements included). Prints one line per slice, then per life setting: CPU per run
 * over all runs (host + workers, worker starts included), workers started, and the worker's RSS growth
 * per 1,000 runs served — the slope of a least-squares line through (runs served, RSS) of every slice
 * after the worker's first 500 runs, for each worker that served more than 1,000, so that the first
 * heap growth and JIT warm-up do not count as a leak.
 *
 * Figures: docs/decisions/034-speed-round-3.md §6.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { catalogTools } from './lib/checkout.js';
import { readStat, selfCpuMs } from './lib/processes.js';
import { loadIsocode } from './engines/isocode.js';
import { buildCatalog } from './scenarios/catalog.js';
import { REALISTIC_PROGRAM } from './scenarios/programs.js';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '6000' },
    slice: { type: 'string', default: '250' },
    lives: { type: 'string', default: '500,2000,6000' },
  },
});
const RUNS = Number(values.runs);
const SLICE = Number(values.slice);
const LIVES = values.lives.split(',').map(Number);
/** Runs a worker serves before its RSS counts towards the growth line. */
const SETTLE_RUNS = 500;

/** The process and its descendants, from `/proc/<pid>/task/<pid>/children`. */
function treeOf(pid: number): number[] {
  const out: number[] = [];
  const queue = [pid];
  for (let next = queue.pop(); next !== undefined; next = queue.pop()) {
    out.push(next);
    try {
      const text = readFileSync(`/proc/${next}/task/${next}/children`, 'utf8').trim();
      if (text !== '') queue.push(...text.split(' ').map(Number));
    } catch {
      // gone
    }
  }
  return out;
}

/**
 * The CPU of every process the worker pool ever ran (the wall's bubblewrap processes and the workers
 * inside), polled every 20 ms and kept per process after it exits: a replaced worker's CPU stays
 * counted (all but its last ≤ 20 ms). `/proc`'s reaped-children times do not serve here: bubblewrap's
 * init does not pass its child's times up.
 */
function workerCpuMeter(pids: () => number[]): { total(): number; stop(): void } {
  const seen = new Map<number, number>();
  const poll = (): void => {
    for (const root of pids())
      for (const pid of treeOf(root)) {
        const ms = readStat(String(pid))?.cpuMs;
        if (ms !== undefined) seen.set(pid, Math.max(ms, seen.get(pid) ?? 0));
      }
  };
  const timer = setInterval(poll, 20);
  return {
    total: () => {
      poll();
      let sum = 0;
      for (const ms of seen.values()) sum += ms;
      return sum;
    },
    stop: () => clearInterval(timer),
  };
}

/** Slope of the least-squares line through the points, per unit of x. */
function slope(points: Array<[number, number]>): number {
  const n = points.length;
  const mx = points.reduce((s, [x]) => s + x, 0) / n;
  const my = points.reduce((s, [, y]) => s + y, 0) / n;
  let num = 0;
  let den = 0;
  for (const [x, y] of points) {
    num += (x - mx) * (y - my);
    den += (x - mx) ** 2;
  }
  return den === 0 ? NaN : num / den;
}

interface PoolStats {
  pids?: number[];
  spawned?: number;
  /** Every worker's RSS at the pool's last poll (every 50 ms): here, the one worker's. */
  rssBytes?: number;
}

async function life(maxRuns: number): Promise<void> {
  const mod = await loadIsocode();
  if (typeof mod === 'string') throw new Error(mod);
  const runtime = (await mod.createRuntime({
    tools: catalogTools(mod, buildCatalog(50)),
    scopes: { default: { mode: 'code' } },
    codeMode: {
      typecheck: 'off',
      workers: { maxWorkers: 1, spareWorkers: 0, maxRunsPerWorker: maxRuns },
      admission: { maxConcurrentRunsPerScope: 64, maxQueuedRunsPerScope: 1024 },
    },
  })) as Awaited<ReturnType<typeof mod.createRuntime>> & { stats(): unknown };
  const pool = (): PoolStats =>
    (runtime.stats() as { runner?: { sandbox?: { workers?: PoolStats } } }).runner?.sandbox
      ?.workers ?? {};
  const served = new Map<number, number>();
  const lines = new Map<number, Array<[number, number]>>();
  const call = async (): Promise<void> => {
    const out = (await runtime.execute(
      { name: 'run_code', args: { code: REALISTIC_PROGRAM, description: 'life' } },
      { scope: 'default' },
    )) as { ok: boolean; error?: unknown };
    if (!out.ok) throw new Error(`run failed: ${JSON.stringify(out.error)}`);
  };
  const meter = workerCpuMeter(() => pool().pids ?? []);
  await call();
  const host0 = selfCpuMs();
  const workers0 = meter.total();
  for (let done = 0; done < RUNS; done += SLICE) {
    const sliceHost = selfCpuMs();
    const sliceWorkers = meter.total();
    for (let i = 0; i < SLICE; i++) await call();
    // Let the pool's memory poll see the worker after the slice.
    await new Promise((resolve) => setTimeout(resolve, 120));
    const host = selfCpuMs() - sliceHost;
    const worker = meter.total() - sliceWorkers;
    const { pids = [], rssBytes = NaN } = pool();
    const rss = rssBytes / 2 ** 20;
    const pid = pids[0] ?? -1;
    // A worker replaced during the slice served part of it; counted as if it served it all.
    const runs = (served.get(pid) ?? 0) + SLICE;
    served.set(pid, runs);
    if (runs > SETTLE_RUNS) lines.set(pid, [...(lines.get(pid) ?? []), [runs, rss]]);
    console.log(
      `life ${maxRuns}  runs ${done + SLICE}  worker ${pid} (${runs} runs)  RSS ${rss.toFixed(1)} MiB  ` +
        `CPU/run host ${(host / SLICE).toFixed(2)} workers ${(worker / SLICE).toFixed(2)} ms`,
    );
  }
  const host = selfCpuMs() - host0;
  const workers = meter.total() - workers0;
  meter.stop();
  const growth = [...lines.values()]
    .filter((points) => points.length >= 3 && (points.at(-1)?.[0] ?? 0) > 2 * SETTLE_RUNS)
    .map((points) => slope(points) * 1000);
  console.log(
    `== maxRunsPerWorker ${maxRuns}: CPU per run host ${(host / RUNS).toFixed(2)} + workers ${(workers / RUNS).toFixed(2)} ms, ` +
      `workers started ${pool().spawned ?? '?'}, RSS growth per 1,000 runs after the first ${SETTLE_RUNS}: ` +
      (growth.length === 0
        ? 'no worker lived long enough'
        : growth.map((g) => `${g.toFixed(2)} MiB`).join(', ')),
  );
  await runtime.close();
}

for (const maxRuns of LIVES) await life(maxRuns);
