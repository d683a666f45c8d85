/**
 * `runBenchmarks`: the benchmark suite as a function, for `npm run bench` (benchmarks/run.ts)
 * and the `isocode bench` CLI command.
 */
import { mkdir } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { IsocodeError } from '../src/errors.js';
import { ENGINE_FACTORIES } from './engines/registry.js';
import type { EngineFactory } from './engines/types.js';
import { describeEnvironment } from './lib/environment.js';
import { createProgress } from './lib/progress.js';
import type { Progress } from './lib/progress.js';
import { writeReport } from './lib/report.js';
import { mergeScenarios, saveScenario } from './lib/store.js';
import { evaluateTargets } from './lib/targets.js';
import { SCENARIO_IDS } from './lib/types.js';
import type { BenchReport, Budget, EngineStatus, ScenarioId, ScenarioResult } from './lib/types.js';
import { SCENARIOS } from './scenarios/index.js';
import { selfCheck } from './scenarios/self-check.js';

export type {
  BenchReport,
  Budget,
  ScenarioId,
  TargetResult,
  ScenarioResult,
  EngineStatus,
} from './lib/types.js';
export { renderTerminal, renderMarkdown } from './lib/report.js';
export { SCENARIO_IDS };

/** Options of {@link runBenchmarks}. */
export interface BenchOptions {
  /**
   * CI smoke: a few iterations per scenario, seconds not minutes; the soak is skipped unless named
   * in `only`. @default false
   */
  quick?: boolean;
  /** Scenario ids to run. @default every scenario */
  only?: readonly string[];
  /** Engine names to measure (`isocode`, `isocode-nocheck`, `isocode-inprocess`, `worker-thread`, `node-vm`, `run`, `workerd`). @default all */
  engines?: readonly string[];
  /** Where results go. @default benchmarks/results/ */
  outDir?: string;
  /** An extra copy of the JSON report. */
  jsonPath?: string;
  /** Fail (report `ok: false`) when the isocode engine cannot be loaded. @default false */
  requireIsocode?: boolean;
  /** Write the JSON, Markdown and chart files. @default true */
  write?: boolean;
  /** Progress output; `false` for none. @default a progress bar on stderr (quiet under CI=true) */
  progress?: Progress | false;
  /** Overrides of the iteration budget. */
  budget?: Partial<Budget>;
}

/** The default output directory, `benchmarks/results/`. */
export const DEFAULT_OUT_DIR = fileURLToPath(new URL('./results/', import.meta.url));

/** The full budget (`npm run bench`). */
export const FULL_BUDGET: Budget = {
  warmup: 20,
  iterations: 200,
  baselineIterations: 300,
  dispatchIterations: 50,
  dispatchCalls: 200,
  scaleWarmup: 5,
  scaleIterations: 40,
  throughputRuns: 300,
  throughputRounds: 4,
  throughputWarmupRounds: 1,
  coldSamples: 5,
  soakRuns: 10_000,
  maxPoints: 4,
};

/** The smoke budget (`--quick`): every scenario runs, a handful of iterations each. */
export const QUICK_BUDGET: Budget = {
  warmup: 1,
  iterations: 4,
  baselineIterations: 5,
  dispatchIterations: 3,
  dispatchCalls: 20,
  scaleWarmup: 1,
  scaleIterations: 2,
  throughputRuns: 1,
  throughputRounds: 1,
  throughputWarmupRounds: 0,
  coldSamples: 1,
  soakRuns: 200,
  maxPoints: 2,
};

function selectScenarios(only: readonly string[] | undefined): ScenarioId[] {
  if (only === undefined || only.length === 0) return [...SCENARIO_IDS];
  const unknown = only.filter((id) => !(SCENARIO_IDS as readonly string[]).includes(id));
  if (unknown.length > 0) {
    throw new IsocodeError(
      'INVALID_CONFIG',
      `unknown scenario(s) ${unknown.join(', ')}; known: ${SCENARIO_IDS.join(', ')}`,
    );
  }
  return SCENARIO_IDS.filter((id) => only.includes(id));
}

function selectEngines(names: readonly string[] | undefined): readonly EngineFactory[] {
  if (names === undefined || names.length === 0) return ENGINE_FACTORIES;
  const known = ENGINE_FACTORIES.map((f) => f.name);
  const unknown = names.filter((name) => !known.includes(name));
  if (unknown.length > 0) {
    throw new IsocodeError(
      'INVALID_CONFIG',
      `unknown engine(s) ${unknown.join(', ')}; known: ${known.join(', ')}`,
    );
  }
  return ENGINE_FACTORIES.filter((f) => names.includes(f.name));
}

async function checkEngines(
  factories: readonly EngineFactory[],
  progress: Progress,
): Promise<{ statuses: EngineStatus[]; usable: EngineFactory[] }> {
  const statuses: EngineStatus[] = [];
  const usable: EngineFactory[] = [];
  progress.start('self-check', factories.length);
  for (const factory of factories) {
    const base = {
      name: factory.name,
      kind: factory.kind,
      typecheck: factory.typecheck,
      description: factory.description,
    };
    const reason = await factory.probe();
    if (reason !== undefined) {
      statuses.push({ ...base, available: false, reason, selfCheck: 'skipped' });
    } else {
      const problem = await selfCheck(factory);
      if (problem === undefined) usable.push(factory);
      statuses.push(
        problem === undefined
          ? { ...base, available: true, selfCheck: 'passed' }
          : {
              ...base,
              available: true,
              reason: `self-check failed: ${problem}`,
              selfCheck: 'failed',
            },
      );
    }
    progress.tick();
  }
  progress.done();
  for (const status of statuses)
    if (status.reason !== undefined) progress.note(`${status.name}: ${status.reason}`);
  return { statuses, usable };
}

/** Runs the selected scenarios and resolves to the report (also written to disk unless `write: false`). */
export async function runBenchmarks(options: BenchOptions = {}): Promise<BenchReport> {
  const quick = options.quick ?? false;
  const start = process.hrtime.bigint();
  const startedAt = new Date().toISOString();
  const ids = selectScenarios(options.only);
  const factories = selectEngines(options.engines);
  const budget: Budget = { ...(quick ? QUICK_BUDGET : FULL_BUDGET), ...options.budget };
  const outDir =
    options.outDir === undefined
      ? DEFAULT_OUT_DIR
      : isAbsolute(options.outDir)
        ? options.outDir
        : resolve(options.outDir);
  const filePrefix = quick ? 'quick-' : '';
  const progress =
    options.progress === false
      ? createProgress({ quiet: true })
      : (options.progress ?? createProgress());
  await mkdir(outDir, { recursive: true });

  const environment = describeEnvironment();
  const { statuses, usable } = await checkEngines(factories, progress);
  const isocodeMissing = statuses.filter((s) => s.kind === 'isocode' && s.selfCheck === 'skipped');
  const baseName = quick ? 'quick' : 'latest';
  const run = { startedAt, commit: environment.gitCommit, mode: quick ? 'quick' : 'full' } as const;
  const scenarios: ScenarioResult[] = [];
  const written = new Set<string>();

  /** The report of what ran so far (plus, on disk, earlier runs' results marked stale). */
  const assemble = async (withStale: boolean): Promise<BenchReport> => {
    const all = withStale ? await mergeScenarios(outDir, baseName, scenarios, run) : scenarios;
    const metrics = Object.assign({}, ...all.map((s) => s.metrics)) as Record<string, number>;
    environment.loadAverage.end = loadavg()[0] ?? 0;
    return {
      schema: 'isocode-bench/1',
      mode: run.mode,
      startedAt,
      durationMs: Number(process.hrtime.bigint() - start) / 1e6,
      environment,
      engines: statuses,
      scenarios: all,
      targets: evaluateTargets(metrics),
      ok:
        scenarios.every((s) => s.status !== 'failed') &&
        statuses.every((s) => s.selfCheck !== 'failed') &&
        !(options.requireIsocode === true && isocodeMissing.length > 0),
      files: scenarios.flatMap((s) => (s.files ?? []).map((file) => join(outDir, file))),
    };
  };
  /** Records a finished scenario; with `write`, its file and the whole report are written now. */
  const record = async (result: ScenarioResult): Promise<void> => {
    if (result.status !== 'skipped' && isocodeMissing.length > 0)
      result.notes.unshift('isocode engine unavailable: measured with the baselines only.');
    scenarios.push(result);
    if (options.write === false) return;
    if (result.status !== 'skipped') written.add(await saveScenario(outDir, baseName, run, result));
    const report = await assemble(true);
    for (const file of await writeReport(report, { outDir, baseName, jsonPath: options.jsonPath }))
      written.add(file);
  };

  for (const scenario of SCENARIOS.filter((s) => ids.includes(s.id))) {
    const base = {
      id: scenario.id,
      title: scenario.title,
      tables: [],
      metrics: {},
      notes: [],
      failures: [],
    };
    // A full-only scenario (the soak) runs under --quick, with the quick budget, only when named.
    if (quick && scenario.fullOnly === true && options.only?.includes(scenario.id) !== true) {
      await record({
        ...base,
        status: 'skipped',
        durationMs: 0,
        notes: ['full mode only (skipped under --quick)'],
      });
      continue;
    }
    if (usable.length === 0) {
      await record({
        ...base,
        status: 'failed',
        durationMs: 0,
        failures: ['no engine is available'],
      });
      continue;
    }
    progress.note(`> ${scenario.title}`);
    const t = process.hrtime.bigint();
    try {
      const output = await scenario.run({
        quick,
        budget,
        engines: usable,
        progress,
        outDir,
        filePrefix,
      });
      const status = output.failures.length > 0 ? 'failed' : 'ok';
      await record({
        ...base,
        ...output,
        status,
        durationMs: Number(process.hrtime.bigint() - t) / 1e6,
      });
    } catch (error) {
      progress.done();
      const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
      await record({
        ...base,
        status: 'failed',
        durationMs: Number(process.hrtime.bigint() - t) / 1e6,
        failures: [`threw: ${message}`],
      });
    }
  }
  const report = await assemble(options.write !== false);
  if (options.write === false) return report;
  for (const file of await writeReport(report, { outDir, baseName, jsonPath: options.jsonPath }))
    written.add(file);
  return { ...report, files: [...report.files, ...written] };
}
