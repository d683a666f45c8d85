/**
 * Scenario 6 (full mode only): a soak of 10,000 runs of the realistic program at
 * concurrency 4 per engine, with RSS after a forced GC at the start, every tenth of the
 * way and at the end. For isocode it also reads isolates alive and the checker process's
 * RSS from `runtime.stats()`. The slow baselines (a new worker per run) soak a tenth as long.
 */
import { forceGc, mib } from '../lib/resources.js';
import type { Scenario, ScenarioOutput, Table } from '../lib/types.js';
import type { Engine } from '../engines/types.js';
import { buildCatalog } from './catalog.js';
import { CHECKER_RSS_KEYS, ISOLATES_ALIVE_KEYS, pickStat, withEngines } from './common.js';
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
  checkerMiB: number[];
  isolatesAlive: number | undefined;
}

async function soak(engine: Engine, runs: number, progress: Progress): Promise<SoakResult> {
  const result: SoakResult = {
    runs: 0,
    errors: 0,
    firstError: undefined,
    seconds: 0,
    rssMiB: [],
    checkerMiB: [],
    isolatesAlive: undefined,
  };
  const checkpoint = (): void => {
    forceGc();
    result.rssMiB.push(mib(process.memoryUsage.rss()));
    const checker = pickStat(engine.stats?.(), CHECKER_RSS_KEYS);
    if (checker !== undefined) result.checkerMiB.push(mib(checker));
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
  result.isolatesAlive = pickStat(engine.stats?.(), ISOLATES_ALIVE_KEYS);
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
        'checker growth MiB',
        'isolates alive',
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
          const checkerGrowth =
            r.checkerMiB.length > 1
              ? (r.checkerMiB[r.checkerMiB.length - 1] ?? 0) - (r.checkerMiB[0] ?? 0)
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
      `RSS read after a forced GC at ${CHECKPOINTS + 1} checkpoints; growth = last − first. worker-thread and run soak ${Math.ceil(ctx.budget.soakRuns / 10)} runs (a new worker or context per run makes 10,000 take minutes); the others ${ctx.budget.soakRuns}.`,
    );
    return out;
  },
};
