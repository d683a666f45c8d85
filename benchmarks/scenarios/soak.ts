/**
 * Scenario 6 (full mode only): a soak of 10,000 runs of the realistic program at
 * concurrency 4, each engine in its own fresh process (so RSS growth is that engine's
 * alone), with RSS read after a forced GC at the start and after every tenth of the runs,
 * and the RSS of the engine's child processes (isocode: the native type-checker) beside it.
 * The slow baselines (a new worker or QuickJS context per run) soak a tenth as long.
 */
import { fileURLToPath } from 'node:url';
import type { Scenario, ScenarioOutput, Table } from '../lib/types.js';
import { spawnBenchChild } from './child.js';
import type { SoakResult } from './soak-child.js';

/** Runs in flight at once. */
export const SOAK_CONCURRENCY = 4;
/** RSS is read at the start and after each of this many slices. */
export const SOAK_CHECKPOINTS = 10;

const CHILD = fileURLToPath(new URL('./soak-child.ts', import.meta.url));
/**
 * Engines that soak a tenth as long: a new worker or QuickJS context per run is slow, and workerd
 * (through miniflare) keeps every dynamic Worker it loaded — each run loads a new one, as
 * `@cloudflare/codemode` does — so at 10,000 runs it grew past 1.2 GiB and its fetches failed from
 * about the 5,000th run on (a local limit of the baseline's harness, not of isocode).
 */
const SLOW = new Set(['worker-thread', 'run', 'workerd']);
const CHILD_TIMEOUT_MS = 30 * 60_000;

export const soakScenario: Scenario = {
  id: 'soak',
  title: '6. Soak',
  fullOnly: true,
  async run(ctx): Promise<ScenarioOutput> {
    const out: ScenarioOutput = { tables: [], metrics: {}, notes: [], failures: [] };
    const table: Table = {
      title: `Soak, realistic program, concurrency ${SOAK_CONCURRENCY}, one process per engine`,
      columns: [
        'engine',
        'runs',
        'runs/s',
        'RSS start MiB',
        'RSS end MiB',
        'host RSS growth MiB',
        'RSS max MiB',
        'workers (start / steady / end)',
        'workers MiB (end)',
        'workers growth from start MiB',
        'host + workers growth MiB',
        'checker MiB (end)',
        'checker growth MiB',
        'isolates left behind',
        'errors',
      ],
      rows: [],
    };
    const runsFor = (name: string): number =>
      SLOW.has(name) ? Math.ceil(ctx.budget.soakRuns / 10) : ctx.budget.soakRuns;
    ctx.progress.start(
      'soak',
      ctx.engines.reduce((sum, f) => sum + runsFor(f.name), 0),
    );
    const data: Record<string, SoakResult> = {};
    for (const factory of ctx.engines) {
      const child = await spawnBenchChild<SoakResult>(
        CHILD,
        [factory.name, String(runsFor(factory.name))],
        {
          nodeFlags: ['--expose-gc'],
          timeoutMs: CHILD_TIMEOUT_MS,
          onTick: (steps) => ctx.progress.tick(steps),
        },
      );
      const r = child.value;
      if (r === undefined) {
        out.failures.push(`${factory.name}: ${child.error ?? 'no result'}`);
        continue;
      }
      data[factory.name] = r;
      if (r.errors > 0) {
        out.failures.push(
          `${factory.name}: ${r.errors} run(s) failed; first: ${r.firstError ?? ''}`,
        );
      }
      const first = r.rssMiB[0] ?? Number.NaN;
      const last = r.rssMiB[r.rssMiB.length - 1] ?? Number.NaN;
      // The host grows from the first checkpoint to the last. Sandbox workers and the checker (the
      // other children) grow from the first checkpoint after the first slice: by then the pool has
      // scaled from its spare worker(s) to the soak's concurrency and the checker's caches are full,
      // so what remains is growth over time, not the pool's size (both are in the table).
      const at = (list: readonly number[], i: number): number => list.at(i) ?? 0;
      const workers = r.workerMiB;
      const checker = r.childMiB.map((v, i) => v - (workers[i] ?? 0));
      const steady = workers.length > 2 ? 1 : 0;
      const workerGrowth = workers.length > 0 ? at(workers, -1) - at(workers, steady) : 0;
      const counts = r.workerCount ?? [];
      const childGrowth = checker.length > 2 ? at(checker, -1) - at(checker, 1) : Number.NaN;
      const key = `soak.${factory.name}`;
      out.metrics[`${key}.hostRssGrowthMiB`] = last - first;
      out.metrics[`${key}.rssGrowthMiB`] = last - first + workerGrowth;
      if (Number.isFinite(childGrowth)) out.metrics[`${key}.checkerRssGrowthMiB`] = childGrowth;
      if (r.isolatesAlive !== undefined) out.metrics[`${key}.isolatesAlive`] = r.isolatesAlive;
      table.rows.push([
        factory.name,
        r.runs,
        r.runs / r.seconds,
        first,
        last,
        last - first,
        Math.max(...r.rssMiB),
        counts.length > 0 ? `${at(counts, 0)} / ${at(counts, steady)} / ${at(counts, -1)}` : null,
        workers.length > 0 ? at(workers, -1) : null,
        workers.length > 0 ? at(workers, -1) - at(workers, 0) : null,
        last - first + workerGrowth,
        checker.length > 0 ? at(checker, -1) : null,
        childGrowth,
        r.isolatesAlive ?? null,
        r.errors,
      ]);
      if (!r.gc)
        out.notes.push(`${factory.name}: no forced GC was available; RSS read without it.`);
    }
    ctx.progress.done();
    out.tables.push(table);
    out.data = data;
    out.notes.push(
      `Each engine soaks in a fresh process; RSS is read after a forced GC at ${SOAK_CHECKPOINTS + 1} checkpoints and growth = last − first. Child processes are read from /proc: sandbox workers (named by their entry file) count with the host in "host + workers growth" (the soak-rss target), from the first checkpoint after the first slice, when the pool has scaled to the soak's concurrency ("workers growth from start" includes that scaling); the rest (the type-checker) grows from the same checkpoint (after the checker's caches fill). worker-thread, run and workerd soak ${Math.ceil(ctx.budget.soakRuns / 10)} runs (a new worker or context per run makes 10,000 take many minutes; miniflare keeps every dynamic Worker it loaded, and at 10,000 runs workerd grew past 1.2 GiB and failed from about the 5,000th run on); the others ${ctx.budget.soakRuns}.`,
    );
    return out;
  },
};
