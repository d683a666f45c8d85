/**
 * Scenario 5: the scale curve. Median latency and memory as the SDK grows (tools), the
 * program grows (lines) and the number of nested calls grows; a table and an SVG line chart
 * (log-log) per dimension, written next to the results.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { measureInterleaved } from '../lib/harness.js';
import { mib, startResourceMeter } from '../lib/resources.js';
import { summarize } from '../lib/stats.js';
import { lineChart } from '../lib/svg-chart.js';
import type { ChartSeries } from '../lib/svg-chart.js';
import type { Scenario, ScenarioContext, ScenarioOutput, Table } from '../lib/types.js';
import { buildCatalog } from './catalog.js';
import { noteErrors, programSubject, withEngines } from './common.js';
import { REALISTIC_PROGRAM, sequentialProgram, sizedProgram } from './programs.js';

interface Dimension {
  id: 'sdk' | 'program' | 'calls';
  label: string;
  /** The label inside a sentence. */
  noun: string;
  unit: string;
  points: readonly number[];
  /** Catalog size for a point. */
  catalogSize: (point: number) => number;
  program: (point: number) => string;
}

const DIMENSIONS: readonly Dimension[] = [
  {
    id: 'sdk',
    label: 'SDK size',
    noun: 'SDK size',
    unit: 'tools',
    points: [10, 50, 200, 1000],
    catalogSize: (p) => p,
    program: () => REALISTIC_PROGRAM,
  },
  {
    id: 'program',
    label: 'Program size',
    noun: 'program size',
    unit: 'lines',
    points: [35, 100, 400, 1600],
    catalogSize: () => 50,
    program: (p) => sizedProgram(p),
  },
  {
    id: 'calls',
    label: 'Nested calls',
    noun: 'nested calls',
    unit: 'sequential calls',
    points: [1, 10, 100, 1000],
    catalogSize: () => 50,
    program: (p) => sequentialProgram(p),
  },
];

async function measureDimension(
  ctx: ScenarioContext,
  dim: Dimension,
  out: ScenarioOutput,
): Promise<Table> {
  const table: Table = {
    title: `Scale: ${dim.noun} (${dim.unit})`,
    columns: [
      dim.label,
      'engine',
      'median ms',
      'p90 ms',
      'setup ms',
      'setup RSS MiB',
      'peak RSS MiB',
    ],
    rows: [],
  };
  const series = new Map<string, ChartSeries & { points: Array<{ x: number; y: number }> }>();
  const iterations = ctx.budget.scaleIterations;
  const warmup = ctx.budget.scaleWarmup;
  for (const point of dim.points.slice(0, ctx.budget.maxPoints)) {
    await withEngines(
      ctx.engines,
      () => buildCatalog(dim.catalogSize(point)),
      out.failures,
      async (engines) => {
        const program = dim.program(point);
        const subjects = engines.map(({ factory, engine }) =>
          programSubject(factory.name, engine, program),
        );
        const meter = startResourceMeter();
        const samples = await measureInterleaved(subjects, {
          warmup,
          iterations,
          blockSize: 3,
          progress: ctx.progress,
        });
        const usage = meter.stop();
        for (const { factory, setupMs, setupRssBytes } of engines) {
          const s = samples.get(factory.name);
          noteErrors(out.failures, `${dim.id}=${point} ${factory.name}`, s);
          const summary = summarize(s?.samples ?? []);
          out.metrics[`scale.${dim.id}-${point}.${factory.name}.p50Ms`] = summary.median;
          table.rows.push([
            point,
            factory.name,
            summary.median,
            summary.p90,
            setupMs,
            mib(setupRssBytes),
            mib(usage.peakRssBytes),
          ]);
          const line = series.get(factory.name) ?? { name: factory.name, points: [] };
          line.points.push({ x: point, y: summary.median });
          series.set(factory.name, line);
        }
      },
    );
  }
  const file = `${ctx.filePrefix}scale-${dim.id}.svg`;
  const svg = lineChart({
    title: `Median run latency vs ${dim.noun}`,
    xLabel: `${dim.label} (${dim.unit}, log scale)`,
    yLabel: 'median ms (log scale)',
    series: [...series.values()],
    logX: true,
    logY: true,
  });
  await writeFile(join(ctx.outDir, file), svg);
  out.files = [...(out.files ?? []), file];
  return table;
}

export const scaleScenario: Scenario = {
  id: 'scale',
  title: '5. Scale curve',
  async run(ctx): Promise<ScenarioOutput> {
    const out: ScenarioOutput = { tables: [], metrics: {}, notes: [], failures: [] };
    const iterations = ctx.budget.scaleIterations + ctx.budget.scaleWarmup;
    const steps =
      DIMENSIONS.reduce((sum, d) => sum + Math.min(d.points.length, ctx.budget.maxPoints), 0) *
      ctx.engines.length *
      iterations;
    ctx.progress.start('scale', steps);
    for (const dim of DIMENSIONS) out.tables.push(await measureDimension(ctx, dim, out));
    ctx.progress.done();
    out.notes.push(
      'Setup RSS is the process RSS growth while the engine set up (approximate: process-wide); peak RSS is process-wide during the point.',
    );
    return out;
  },
};
