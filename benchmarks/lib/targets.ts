/** The issue's targets, checked against the metrics the scenarios produced. */
import type { TargetResult } from './types.js';

interface TargetDefinition {
  id: string;
  description: string;
  metric: string;
  unit: string;
  /** `max`: the value must stay below `limit`; `min`: it must reach `limit`. */
  kind: 'max' | 'min';
  limit: number;
  /** Whether reaching the limit exactly counts as met (`<=`, `>=`). @default false for max, true for min */
  inclusive?: boolean;
}

/**
 * Every target of issue 14 (issue 6's, tightened), on this 2-core machine, as medians and ratios from one
 * run; issue 28's nested-call and catalog-size targets as ratios measured side by side in one run.
 */
export const TARGETS: readonly TargetDefinition[] = [
  {
    id: 'dispatch-seq',
    description:
      'Nested call from a program ÷ a direct call, sequential, through the process boundary (marginal per call, same run)',
    metric: 'dispatch.isocode-nocheck.seqRatio',
    unit: '×',
    kind: 'max',
    limit: 4,
    inclusive: true,
  },
  {
    id: 'dispatch-batch',
    description:
      'Nested call in Promise.all batches of 10 ÷ a direct call, through the process boundary (marginal per call, same run)',
    metric: 'dispatch.isocode-nocheck.batchRatio',
    unit: '×',
    kind: 'max',
    limit: 2,
    inclusive: true,
  },
  {
    id: 'latency-check',
    description:
      'run_code warm p50, 50-tool SDK, 3 calls, typecheck on (a new program every run: no check-cache hit)',
    metric: 'latency.sdk-50.isocode-uncached.p50Ms',
    unit: 'ms',
    kind: 'max',
    limit: 5,
  },
  {
    id: 'latency-nocheck',
    description: 'run_code warm p50, 50-tool SDK, 3 calls, typecheck off',
    metric: 'latency.sdk-50.isocode-nocheck.p50Ms',
    unit: 'ms',
    kind: 'max',
    limit: 1.5,
  },
  {
    id: 'catalog-nocheck',
    description:
      'A run against 1,000 tools ÷ the same run against 10, side by side, typecheck off (median of rounds)',
    metric: 'catalog.isocode-nocheck.ratio',
    unit: '×',
    kind: 'max',
    limit: 1.2,
    inclusive: true,
  },
  {
    id: 'catalog-check',
    description:
      'A run against 1,000 tools ÷ the same run against 10, side by side, typecheck on (a new program every run)',
    metric: 'catalog.isocode-uncached.ratio',
    unit: '×',
    kind: 'max',
    limit: 1.2,
    inclusive: true,
  },
  {
    id: 'catalog-inprocess',
    description:
      'A run against 1,000 tools ÷ the same run against 10, side by side, in-process isolates',
    metric: 'catalog.isocode-inprocess.ratio',
    unit: '×',
    kind: 'max',
    limit: 1.2,
    inclusive: true,
  },
  {
    id: 'cold-start',
    description:
      'First run_code in a fresh process (createRuntime + first run, median; module loading excluded)',
    metric: 'cold.isocode.firstRunMs',
    unit: 'ms',
    kind: 'max',
    limit: 300,
  },
  {
    id: 'cli-run',
    description:
      'One-shot CLI: `isocode run examples/hello.ts` (typecheck on), spawn to exit, median',
    metric: 'cli.runMs',
    unit: 'ms',
    kind: 'max',
    limit: 500,
  },
  {
    id: 'cli-help',
    description: 'One-shot CLI: `isocode --help`, spawn to exit, median',
    metric: 'cli.helpMs',
    unit: 'ms',
    kind: 'max',
    limit: 200,
  },
  {
    id: 'throughput-check',
    description:
      'Throughput at concurrency 8, typecheck on (a new program every run: no check-cache hit)',
    metric: 'throughput.c8.isocode-uncached.runsPerSec',
    unit: 'runs/s',
    kind: 'min',
    limit: 300,
  },
  {
    id: 'throughput-nocheck',
    description: 'Throughput at concurrency 8, typecheck off',
    metric: 'throughput.c8.isocode-nocheck.runsPerSec',
    unit: 'runs/s',
    kind: 'min',
    limit: 800,
  },
  {
    id: 'vs-worker',
    description: 'Like for like (typecheck off): worker-thread median ÷ isocode median',
    metric: 'baselines.worker-thread.vsNocheck',
    unit: '×',
    kind: 'min',
    limit: 10,
  },
  {
    id: 'vs-run',
    description: 'Like for like (typecheck off): run median ÷ isocode median',
    metric: 'baselines.run.vsNocheck',
    unit: '×',
    kind: 'min',
    limit: 8,
  },
  {
    id: 'vs-workerd',
    description: "Like for like (typecheck off): faster than Cloudflare's workerd (ratio > 1)",
    metric: 'baselines.workerd.vsNocheck',
    unit: '×',
    kind: 'min',
    limit: 1,
    inclusive: false,
  },
  {
    id: 'vs-worker-check',
    description: 'Typecheck on, still faster than worker-thread (ratio > 1)',
    metric: 'baselines.worker-thread.vsCheck',
    unit: '×',
    kind: 'min',
    limit: 1,
    inclusive: false,
  },
  {
    id: 'vs-run-check',
    description: 'Typecheck on, still faster than run (ratio > 1)',
    metric: 'baselines.run.vsCheck',
    unit: '×',
    kind: 'min',
    limit: 1,
    inclusive: false,
  },
  {
    id: 'soak-rss',
    description:
      '10,000-run soak: RSS growth of host and sandbox workers (after GC; workers from the pool at the soak concurrency)',
    metric: 'soak.isocode.rssGrowthMiB',
    unit: 'MiB',
    kind: 'max',
    limit: 50,
  },
  {
    id: 'soak-isolates',
    description: '10,000-run soak: isolates left behind after the runs settle (alive − warm pool)',
    metric: 'soak.isocode.isolatesAlive',
    unit: '',
    kind: 'max',
    limit: 0,
    inclusive: true,
  },
  {
    id: 'soak-checker',
    description: '10,000-run soak: type-checker process RSS growth (flat: under 16 MiB)',
    metric: 'soak.isocode.checkerRssGrowthMiB',
    unit: 'MiB',
    kind: 'max',
    limit: 16,
  },
];

function num(value: number): string {
  if (Number.isInteger(value)) return String(value);
  return Math.abs(value) >= 100
    ? value.toFixed(0)
    : Math.abs(value) >= 10
      ? value.toFixed(1)
      : value.toFixed(2);
}

/** Checks every target against `metrics`; a missing metric is "not measured". */
export function evaluateTargets(metrics: Readonly<Record<string, number>>): TargetResult[] {
  return TARGETS.map((t) => {
    const goal = `${t.kind === 'max' ? (t.inclusive === true ? '≤' : '<') : t.inclusive === false ? '>' : '≥'} ${num(t.limit)}${t.unit ? ` ${t.unit}` : ''}`;
    const value = metrics[t.metric];
    const base = { id: t.id, description: t.description, goal, metric: t.metric, unit: t.unit };
    if (value === undefined || !Number.isFinite(value)) {
      return { ...base, measured: null, status: 'not measured' as const, margin: '–' };
    }
    const inclusive = t.inclusive ?? t.kind === 'min';
    const met =
      t.kind === 'max'
        ? inclusive
          ? value <= t.limit
          : value < t.limit
        : inclusive
          ? value >= t.limit
          : value > t.limit;
    const gap = Math.abs(value - t.limit);
    const relative = t.limit !== 0 ? ` (${num((gap / t.limit) * 100)}%)` : '';
    const unit = t.unit ? ` ${t.unit}` : '';
    const margin = met
      ? `met with ${num(gap)}${unit} to spare`
      : `missed by ${num(gap)}${unit}${relative}`;
    return {
      ...base,
      measured: value,
      status: met ? ('met' as const) : ('missed' as const),
      margin,
    };
  });
}
