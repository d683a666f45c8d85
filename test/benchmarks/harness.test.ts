import { describe, expect, it } from 'vitest';
import { quantile, ratio, summarize } from '../../benchmarks/lib/stats.js';
import { lineChart } from '../../benchmarks/lib/svg-chart.js';
import { explainMisses } from '../../benchmarks/lib/explain.js';
import { evaluateTargets, TARGETS } from '../../benchmarks/lib/targets.js';
import type { Environment } from '../../benchmarks/lib/types.js';

describe('benchmark statistics', () => {
  it('quantiles interpolate between closest ranks (type 7)', () => {
    const sorted = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
    expect(quantile(sorted, 0.5)).toBe(5.5);
    expect(quantile(sorted, 0.9)).toBeCloseTo(9.1);
    expect(quantile(sorted, 0)).toBe(1);
    expect(quantile(sorted, 1)).toBe(10);
    expect(quantile([], 0.5)).toBeNaN();
  });

  it('summaries sort their input and compute throughput from the total', () => {
    const s = summarize([4, 1, 3, 2]);
    expect(s).toMatchObject({ n: 4, median: 2.5, min: 1, max: 4, mean: 2.5 });
    expect(s.throughput).toBeCloseTo(400); // 4 runs in 10 ms
    expect(summarize([]).n).toBe(0);
  });

  it('ratios refuse a missing or non-positive reference', () => {
    expect(ratio(10, 2)).toBe(5);
    expect(ratio(10, 0)).toBeNaN();
    expect(ratio(undefined, 2)).toBeNaN();
  });
});

describe('targets and charts', () => {
  it('every target is judged met, missed or not measured, with the margin', () => {
    const first = TARGETS[0]!;
    const good = first.kind === 'max' ? first.limit / 2 : first.limit * 2;
    const bad = first.kind === 'max' ? first.limit * 2 : first.limit / 2;
    expect(evaluateTargets({ [first.metric]: good })[0]).toMatchObject({ status: 'met' });
    expect(evaluateTargets({ [first.metric]: bad })[0]).toMatchObject({ status: 'missed' });
    expect(evaluateTargets({})[0]).toMatchObject({ status: 'not measured' });
  });

  it('every target says how it is derived, and a missed ratio is explained against its own limit', () => {
    for (const t of TARGETS) expect(t.derivation, t.id).toMatch(/^issues? \d+/);
    // Issue 28's like-for-like and first-run targets are ratios measured in one run.
    for (const id of ['vs-run', 'vs-workerd', 'vs-worker', 'vs-node-vm', 'cold-start'])
      expect(TARGETS.find((t) => t.id === id)?.unit, id).toBe('×');
    const metrics = {
      'baselines.run.vsNocheck': 2,
      'baselines.run.p50Ms': 8,
      'baselines.isocode-nocheck.p50Ms': 4,
      'cold.isocode.firstRunVsFloor': 10,
      'cold.floorMs': 100,
      'cold.isocode.setupMs': 900,
      'cold.isocode.firstProgramMs': 100,
      // The throughput targets read the pass of the engine alone, and so does their explanation.
      'throughput.c8.isocode-nocheck.runsPerSec': 150,
      'throughput.c8.isocode-nocheck.cpuMsPerRun': 3,
      'throughput.c8.isocode-nocheck.childCpuMsPerRun': 9,
      'throughput.c8.isocode-nocheck.alone.runsPerSec': 250,
      'throughput.c8.isocode-nocheck.alone.cpuMsPerRun': 2,
      'throughput.c8.isocode-nocheck.alone.childCpuMsPerRun': 6,
      'throughput.c8.isocode-nocheck.alone.totalCpuMsPerRun': 8,
    };
    const environment: Environment = {
      cpuModel: 'x',
      cores: 2,
      availableParallelism: 2,
      totalMemoryBytes: 1,
      os: 'x',
      node: 'x',
      v8: 'x',
      packages: {},
      gitCommit: null,
      ci: false,
      loadAverage: { start: 0, end: 0 },
    };
    const lines = explainMisses(evaluateTargets(metrics), metrics, environment);
    const limit = (id: string): number => TARGETS.find((t) => t.id === id)!.limit;
    expect(lines.find((l) => l.startsWith('Like for like (typecheck off): run'))).toContain(
      `at or under ${(8 / limit('vs-run')).toFixed(2)} ms`,
    );
    const cpu = evaluateTargets(metrics).find((t) => t.id === 'throughput-cpu');
    expect(cpu?.measured).toBe(8);
    expect(evaluateTargets(metrics).find((t) => t.id === 'throughput-nocheck')?.measured).toBe(250);
    expect(lines.find((l) => l.startsWith('CPU per run at concurrency 8'))).toContain(
      'CPU per run 2.00 ms in this process + 6.00 ms in child processes',
    );
    expect(lines.find((l) => l.startsWith('First run_code'))).toContain(
      `at or under ${(100 * limit('cold-start')).toFixed(0)} ms (node -e 0 took 100 ms`,
    );
  });

  it('draws a line chart as standalone SVG with one path per series', () => {
    const svg = lineChart({
      title: 'latency',
      xLabel: 'tools',
      yLabel: 'ms',
      series: [
        {
          name: 'a',
          points: [
            { x: 10, y: 1 },
            { x: 100, y: 2 },
          ],
        },
        {
          name: 'b',
          points: [
            { x: 10, y: 3 },
            { x: 100, y: 4 },
          ],
        },
      ],
    });
    expect(svg.startsWith('<svg')).toBe(true);
    expect(svg).toContain('latency');
    expect((svg.match(/<path|<polyline/g) ?? []).length).toBeGreaterThanOrEqual(2);
  });
});
