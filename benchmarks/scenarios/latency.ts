/**
 * Scenario 2: run_code latency of the realistic 35-line, 3-call program against SDKs of 10,
 * 50, 200 and 1000 tools, every engine interleaved, with isocode's stage breakdown
 * (typecheck, transpile, isolate/context, run, settle). Cold start is scenario `cold`.
 */
import { measureInterleaved } from '../lib/harness.js';
import { summarize } from '../lib/stats.js';
import type { Scenario, ScenarioOutput, Table } from '../lib/types.js';
import type { TimedStages } from './common.js';
import { buildCatalog } from './catalog.js';
import {
  SUMMARY_COLUMNS,
  UNCACHED_LANE,
  cacheLanes,
  noteErrors,
  programSubject,
  summaryCells,
  withEngines,
} from './common.js';
import { REALISTIC_PROGRAM } from './programs.js';

/** The SDK sizes of scenario 2. */
export const SDK_SIZES = [10, 50, 200, 1000] as const;

const STAGES = ['typecheckMs', 'transpileMs', 'isolateMs', 'runMs', 'cpuMs', 'totalMs'] as const;

/** Whether the uncached lane was measured. */
const lanes = (metrics: Record<string, number>): boolean =>
  Object.keys(metrics).some((k) => k.includes(`.${UNCACHED_LANE}.`));

export const latencyScenario: Scenario = {
  id: 'latency',
  title: '2. run_code latency vs SDK size',
  async run(ctx): Promise<ScenarioOutput> {
    const out: ScenarioOutput = { tables: [], metrics: {}, notes: [], failures: [] };
    const latency: Table = {
      title: 'Warm latency, realistic program (3 tool calls)',
      columns: ['SDK', 'engine', ...SUMMARY_COLUMNS],
      rows: [],
    };
    const stages: Table = {
      title: 'Stage breakdown (median ms, as reported by the runtime)',
      columns: [
        'SDK',
        'engine',
        'typecheck',
        'transpile',
        'isolate/context',
        'run',
        'isolate CPU',
        'runner total',
        'executor + settle',
        'end to end',
      ],
      rows: [],
    };
    const setup: Table = {
      title: 'Engine setup per SDK size',
      columns: ['SDK', 'engine', 'setup ms', 'RSS growth MiB'],
      rows: [],
    };
    const { warmup, iterations } = ctx.budget;
    const sizes = SDK_SIZES.slice(0, ctx.budget.maxPoints);
    ctx.progress.start('latency', sizes.length * ctx.engines.length * (warmup + iterations));
    for (const size of sizes) {
      await withEngines(
        ctx.engines,
        () => buildCatalog(size),
        out.failures,
        async (engines) => {
          const lanes = cacheLanes(engines, REALISTIC_PROGRAM);
          const timings = new Map<string, TimedStages[]>(lanes.map((l) => [l.id, []]));
          const subjects = lanes.map(({ id, open, program }) =>
            programSubject(id, open.engine, program, undefined, timings.get(id)),
          );
          const samples = await measureInterleaved(subjects, {
            warmup,
            iterations,
            progress: ctx.progress,
          });
          for (const { factory, setupMs, setupRssBytes } of engines)
            setup.rows.push([size, factory.name, setupMs, setupRssBytes / (1024 * 1024)]);
          for (const { id } of lanes) {
            const s = samples.get(id);
            noteErrors(out.failures, `sdk-${size} ${id}`, s);
            const summary = summarize(s?.samples ?? []);
            const key = `latency.sdk-${size}.${id}`;
            out.metrics[`${key}.p50Ms`] = summary.median;
            out.metrics[`${key}.p90Ms`] = summary.p90;
            out.metrics[`${key}.p99Ms`] = summary.p99;
            latency.rows.push([size, id, ...summaryCells(summary)]);
            const reported = timings.get(id) ?? [];
            if (reported.length > 0) {
              const medianOf = (stage: keyof TimedStages): number =>
                summarize(reported.map((t) => t[stage]).filter((v): v is number => v !== undefined))
                  .median;
              const medians = STAGES.map((stage) => {
                const m = medianOf(stage);
                if (Number.isFinite(m)) out.metrics[`${key}.${stage}`] = m;
                return m;
              });
              // Settle as reported, else the per-run time spent outside the runner.
              const reportedSettle = medianOf('settleMs');
              const outside = Number.isFinite(reportedSettle)
                ? reportedSettle
                : summarize(
                    reported.flatMap((t) =>
                      t.totalMs === undefined ? [] : [t.endToEndMs - t.totalMs],
                    ),
                  ).median;
              out.metrics[`${key}.settleMs`] = outside;
              stages.rows.push([size, id, ...medians, outside, summary.median]);
            }
          }
        },
      );
    }
    ctx.progress.done();
    out.tables.push(latency);
    if (stages.rows.length > 0) out.tables.push(stages);
    else out.notes.push('No engine reported stage timings (isocode reports them with each run).');
    if (stages.rows.length > 0) {
      out.notes.push(
        '"executor + settle" is the median over runs of (end to end − runner total): argument validation, scheduling, result rendering, settling; settleMs instead when the runtime reports it. Stage columns are medians of each stage, so they need not add up to the end-to-end median.',
      );
    }
    out.tables.push(setup);
    if (lanes(out.metrics))
      out.notes.push(
        `"isocode" runs the same program every time, so its type-check is answered by the checker's result cache; "${UNCACHED_LANE}" is the same engine with a comment new on every run, so every check is a real one. The typecheck-on target uses ${UNCACHED_LANE}.`,
      );
    return out;
  },
};
