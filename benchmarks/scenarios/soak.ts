/**
 * Scenario 6 (full mode only): a soak of 10,000 runs of the realistic program at
 * concurrency 4 per engine, with RSS after a forced GC at the start, every tenth of the
 * way and at the end, and the RSS of this process's child processes (for isocode: the native
 * type-checker) at the same points. Isolates left behind = alive − warm from `runtime.stats()`. The slow baselines (a new worker per run) soak a tenth as long.
 */
import { descendantUsage } from '../lib/processes.js';
import { forceGc, mib } from '../lib/resources.js';
import type { Scenario, ScenarioOutput, Table } from '../lib/types.js';
import type { Engine } from '../engines/types.js';
import { buildCatalog } from './catalog.js';
import { isolatesLeftBehind, withEngines } from './common.js';
import { REALISTIC_PROGRAM } from './programs.js';
import type { Progress } from '../lib/progress.js';

const CONCURRENCY = 4;
const CHECKPOINTS = 10;
const SLOW = new Set(['worker-thread', 'run']);

interface SoakResult {
  runs: number;
  errors: number;
  firstError: string | undefined;
  seconds: number;
  rssMiB: number[];
  childMiB: number[];
  isolatesAlive: number | undefined;
}

async function soak(engine: Engine, runs: number, progress: Progress): Promise<SoakResult> {
  const result: SoakResult = {
    runs: 0,
    errors: 0,
    firstError: undefined,
    seconds: 0,
    rssMiB: [],
    childMiB: [],
    isolatesAlive: undefined,
  };
  const checkpoint = (): void => {
    forceGc();
    result.rssMiB.push(mib(process.memoryUsage.rss()));
    const children = descendantUsage();
    if (children !== undefined) result.childMiB.push(mib(children.rssBytes));
  };
  checkpoint();
  const start = process.hrtime.bigint();
  const slice = Math.ceil(runs / CHECKPOINTS);
  for (let done = 0; done < runs; done += slice) {
    const count = Math.min(slice, runs - done);
    let next = 0;
    const lane = async (): Promise<void> => {
      while (next < count) {
        next += 1;
        const outcome = await engine
          .runProgram(REALISTIC_PROGRAM)
          .catch((error: unknown) => ({ ok: false, error: String(error) }));
        if (outcome.ok) result.runs += 1;
        else {
          result.errors += 1;
          result.firstError ??= 'error' in outcome ? outcome.error : 'run failed';
        }
        progress.tick();
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, lane));
    checkpoint();
  }
  result.seconds = Number(process.hrtime.bigint() - start) / 1e9;
  result.isolatesAlive = isolatesLeftBehind(engine.stats?.());
  return result;
}

export const soakScenario: Scenario = {
  id: 'soak',
  title: '6. Soak',
  fullOnly: true,
  async run(ctx): Promise<ScenarioOutput> {
    const out: ScenarioOutput = { tables: [], metrics: {}, notes: [], failures: [], data: {} };
    const table: Table = {
      title: `Soak, realistic program, concurrency ${CONCURRENCY}`,
      columns: [
        'engine',
        'runs',
        'runs/s',
        'RSS start MiB',
        'RSS end MiB',
        'RSS growth MiB',
        'RSS max MiB',
        'child processes MiB (end)',
        'child growth MiB',
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
      await withEngines(
        [factory],
        () => buildCatalog(50),
        out.failures,
        async ([open]) => {
          if (open === undefined) return;
          const r = await soak(open.engine, runsFor(factory.name), ctx.progress);
          data[factory.name] = r;
          if (r.errors > 0)
            out.failures.push(
              `${factory.name}: ${r.errors} run(s) failed; first: ${r.firstError ?? ''}`,
            );
          const first = r.rssMiB[0] ?? Number.NaN;
          const last = r.rssMiB[r.rssMiB.length - 1] ?? Number.NaN;
          // The checker's growth is taken from the first checkpoint after start-up caching.
          const checkerGrowth =
            r.childMiB.length > 2
              ? (r.childMiB[r.childMiB.length - 1] ?? 0) - (r.childMiB[1] ?? 0)
              : Number.NaN;
          const key = `soak.${factory.name}`;
          out.metrics[`${key}.rssGrowthMiB`] = last - first;
          if (Number.isFinite(checkerGrowth))
            out.metrics[`${key}.checkerRssGrowthMiB`] = checkerGrowth;
          if (r.isolatesAlive !== undefined) out.metrics[`${key}.isolatesAlive`] = r.isolatesAlive;
          table.rows.push([
            factory.name,
            r.runs,
            r.runs / r.seconds,
            first,
            last,
            last - first,
            Math.max(...r.rssMiB),
            r.childMiB[r.childMiB.length - 1] ?? null,
            checkerGrowth,
            r.isolatesAlive ?? null,
            r.errors,
          ]);
        },
      );
    }
    ctx.progress.done();
    out.tables.push(table);
    out.data = data;
    out.notes.push(
      `RSS read after a forced GC at ${CHECKPOINTS + 1} checkpoints; growth = last − first. Child processes (isocode: the type-checker) are read from /proc; their growth is measured from the first checkpoint after start (after the checker's caches fill). worker-thread and run soak ${Math.ceil(ctx.budget.soakRuns / 10)} runs (a new worker or context per run makes 10,000 take minutes); the others ${ctx.budget.soakRuns}.`,
    );
    return out;
  },
};
