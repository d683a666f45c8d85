/**
 * Scenario 4: the same realistic program on every engine, interleaved in one run, reported
 * as ratios: baseline median ÷ isocode median (how many times faster isocode is), like for
 * like against isocode with typecheck off, and against isocode with typecheck on.
 */
import { measureInterleaved } from '../lib/harness.js';
import { ratio, summarize } from '../lib/stats.js';
import type { Summary } from '../lib/stats.js';
import type { Scenario, ScenarioOutput, Table } from '../lib/types.js';
import { buildCatalog } from './catalog.js';
import {
  SUMMARY_COLUMNS,
  noteErrors,
  programSubject,
  CACHED_ENGINE,
  uniqueProgram,
  summaryCells,
  withEngines,
} from './common.js';
import { REALISTIC_PROGRAM, realisticExpected } from './programs.js';

export const baselinesScenario: Scenario = {
  id: 'baselines',
  title: '4. Baselines side by side',
  async run(ctx): Promise<ScenarioOutput> {
    const out: ScenarioOutput = { tables: [], metrics: {}, notes: [], failures: [] };
    const names = ctx.engines.map((f) => f.name);
    const hasIsocode = names.includes('isocode') || names.includes('isocode-nocheck');
    if (!hasIsocode)
      out.notes.push('isocode engine unavailable: ratios are given to node-vm only.');
    const warmup = ctx.budget.warmup;
    const iterations = ctx.budget.baselineIterations;
    ctx.progress.start('baselines', ctx.engines.length * (warmup + iterations));
    const summaries = new Map<string, Summary>();
    const catalog = buildCatalog(50);
    const expected = JSON.stringify(realisticExpected(catalog));
    await withEngines(
      ctx.engines,
      () => buildCatalog(50),
      out.failures,
      async (engines) => {
        // The type-checking engine gets a program new on every run: its ratios never rest on the
        // check cache (the latency scenario reports the cache-hit figure).
        const subjects = engines.map(({ factory, engine }) =>
          programSubject(
            factory.name,
            engine,
            factory.name === CACHED_ENGINE ? uniqueProgram(REALISTIC_PROGRAM) : REALISTIC_PROGRAM,
            (result) => JSON.stringify(result) === expected,
          ),
        );
        const samples = await measureInterleaved(subjects, {
          warmup,
          iterations,
          progress: ctx.progress,
        });
        for (const { factory } of engines) {
          noteErrors(out.failures, factory.name, samples.get(factory.name));
          summaries.set(factory.name, summarize(samples.get(factory.name)?.samples ?? []));
        }
      },
    );
    ctx.progress.done();
    const med = (name: string): number | undefined => summaries.get(name)?.median;
    const table: Table = {
      title:
        'Realistic program, 50-tool SDK, interleaved (ratio = engine median ÷ reference median)',
      columns: [
        'engine',
        ...SUMMARY_COLUMNS,
        '÷ isocode (tc off)',
        '÷ isocode (tc on)',
        '÷ node-vm',
      ],
      rows: [],
    };
    for (const [name, summary] of summaries) {
      const vsNocheck = ratio(summary.median, med('isocode-nocheck'));
      const vsCheck = ratio(summary.median, med('isocode'));
      const vsVm = ratio(summary.median, med('node-vm'));
      out.metrics[`baselines.${name}.p50Ms`] = summary.median;
      if (Number.isFinite(vsNocheck)) out.metrics[`baselines.${name}.vsNocheck`] = vsNocheck;
      if (Number.isFinite(vsCheck)) out.metrics[`baselines.${name}.vsCheck`] = vsCheck;
      if (Number.isFinite(vsVm)) out.metrics[`baselines.${name}.vsNodeVm`] = vsVm;
      table.rows.push([name, ...summaryCells(summary), vsNocheck, vsCheck, vsVm]);
    }
    out.tables.push(table);
    out.notes.push(
      'Every measured run was checked against the expected result. The baselines do not type-check and do not validate tool arguments; isocode does both (argument validation even with typecheck off).',
    );
    return out;
  },
};
