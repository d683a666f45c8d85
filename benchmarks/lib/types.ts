/** The shapes of a benchmark report (what `runBenchmarks` resolves to and latest.json holds). */
import type { EngineFactory } from '../engines/types.js';
import type { Progress } from './progress.js';

/** Scenario ids, in run order. */
export const SCENARIO_IDS = [
  'dispatch',
  'latency',
  'catalog',
  'cold',
  'cli',
  'throughput',
  'baselines',
  'scale',
  'soak',
  'parked',
] as const;
/** A scenario id. */
export type ScenarioId = (typeof SCENARIO_IDS)[number];

/** A table cell: numbers are formatted by the report writer, `null` prints as `–`. */
export type Cell = string | number | null;

/** A titled table for the terminal and Markdown. */
export interface Table {
  title: string;
  columns: string[];
  rows: Cell[][];
}

/** What a scenario produces. */
export interface ScenarioOutput {
  tables: Table[];
  /** Flat named figures (`latency.sdk-50.isocode.p50Ms`) that targets are checked against. */
  metrics: Record<string, number>;
  notes: string[];
  /** Failures (runs that errored, results that were wrong); any makes the scenario fail. */
  failures: string[];
  /** Files written into the output directory (charts), relative to it. */
  files?: string[];
  /** Full machine-readable detail. */
  data?: unknown;
}

/** A scenario's entry in the report. */
export interface ScenarioResult extends ScenarioOutput {
  id: ScenarioId;
  title: string;
  status: 'ok' | 'failed' | 'skipped';
  durationMs: number;
  /** Set when this result was not measured by this run but carried over from an earlier one. */
  stale?: { runStartedAt: string; commit: string | null; sameCommit: boolean } | undefined;
}

/** An engine's entry in the report. */
export interface EngineStatus {
  name: string;
  kind: 'isocode' | 'baseline';
  typecheck: boolean;
  description: string;
  available: boolean;
  /** Why it is unavailable, or why its self-check failed. */
  reason?: string;
  selfCheck: 'passed' | 'failed' | 'skipped';
}

/** One target of the issue, checked against a measured metric. */
export interface TargetResult {
  id: string;
  description: string;
  /** e.g. `< 5 ms` */
  goal: string;
  metric: string;
  measured: number | null;
  unit: string;
  status: 'met' | 'missed' | 'not measured';
  /** e.g. `missed by 2.10 ms (42%)`, `met with 1.20 ms to spare`. */
  margin: string;
  /** Which issue set the target and how it is measured (a ratio in one run, or why absolute). */
  derivation: string;
}

/** Machine, OS, runtime and package versions. */
export interface Environment {
  cpuModel: string;
  cores: number;
  availableParallelism: number;
  totalMemoryBytes: number;
  os: string;
  node: string;
  v8: string;
  packages: Record<string, string>;
  gitCommit: string | null;
  ci: boolean;
  /** 1-minute load average when the run started and when it ended (other work on the machine). */
  loadAverage: { start: number; end: number };
}

/** The whole report. */
export interface BenchReport {
  schema: 'isocode-bench/1';
  mode: 'quick' | 'full';
  startedAt: string;
  durationMs: number;
  environment: Environment;
  engines: EngineStatus[];
  scenarios: ScenarioResult[];
  targets: TargetResult[];
  /** True when every selected scenario ran and every available engine passed its self-check. */
  ok: boolean;
  /** Files written (absolute paths). */
  files: string[];
}

/** Iteration budgets; quick mode uses tiny ones. */
export interface Budget {
  /** Unmeasured runs per engine before measuring (latency, baselines, dispatch). */
  warmup: number;
  /** Measured runs per engine per SDK size (scenario 2). */
  iterations: number;
  /** Measured runs per engine in scenario 4. */
  baselineIterations: number;
  /** Measured operations per subject in scenario 1. */
  dispatchIterations: number;
  /** Tool calls per operation in scenario 1. */
  dispatchCalls: number;
  scaleWarmup: number;
  /** Measured runs per engine per point of the scale curve. */
  scaleIterations: number;
  /** Measured runs per engine per concurrency level: max(this, concurrency × throughputRounds). */
  throughputRuns: number;
  throughputRounds: number;
  /** Unmeasured rounds (concurrency runs each) per level. */
  throughputWarmupRounds: number;
  /** Fresh processes per engine in the cold-start scenario. */
  coldSamples: number;
  soakRuns: number;
  /** Points per curve (SDK sizes in scenario 2, each dimension in scenario 5), smallest first. */
  maxPoints: number;
}

/** What every scenario receives. */
export interface ScenarioContext {
  quick: boolean;
  budget: Budget;
  /** Available engines whose self-check passed, in report order. */
  engines: readonly EngineFactory[];
  progress: Progress;
  /** Absolute output directory (exists). */
  outDir: string;
  /** Prefix for files written in quick mode (`quick-`), empty in full mode. */
  filePrefix: string;
}

/** A scenario definition. */
export interface Scenario {
  id: ScenarioId;
  title: string;
  /** Skipped in `--quick`. */
  fullOnly?: boolean;
  run(context: ScenarioContext): Promise<ScenarioOutput>;
}
