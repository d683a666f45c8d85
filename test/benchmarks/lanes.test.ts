import { describe, expect, it } from 'vitest';
import {
  CACHED_ENGINE,
  UNCACHED_LANE,
  cacheLanes,
  type OpenEngine,
  uniqueProgram,
} from '../../benchmarks/scenarios/common.js';
import { TARGETS } from '../../benchmarks/lib/targets.js';
import type { Engine } from '../../benchmarks/engines/types.js';

const open = (name: string): OpenEngine => ({
  factory: { name } as OpenEngine['factory'],
  engine: {} as Engine,
  setupMs: 0,
  setupRssBytes: 0,
});

describe('check-cache lanes of the latency and throughput scenarios', () => {
  it('gives the type-checking isocode engine a second lane whose program is new every run', () => {
    const lanes = cacheLanes([open(CACHED_ENGINE), open('isocode-nocheck')], 'return 1;\n');
    expect(lanes.map((l) => l.id)).toEqual([CACHED_ENGINE, UNCACHED_LANE, 'isocode-nocheck']);
    expect(lanes[0]?.program).toBe('return 1;\n');
    const next = lanes[1]?.program;
    expect(typeof next).toBe('function');
    if (typeof next !== 'function') return;
    const [a, b] = [next(), next()];
    expect(a).not.toBe(b);
    expect(a.startsWith('return 1;\n')).toBe(true);
    expect(b.startsWith('return 1;\n')).toBe(true);
  });

  it('unique programs differ only by a trailing comment', () => {
    const next = uniqueProgram('return 2;\n');
    expect(next()).toBe('return 2;\n// run 1\n');
    expect(next()).toBe('return 2;\n// run 2\n');
  });

  it('the typecheck-on targets read the uncached lane', () => {
    const metric = (id: string) => TARGETS.find((t) => t.id === id)?.metric;
    expect(metric('latency-check')).toBe(`latency.sdk-50.${UNCACHED_LANE}.p50Ms`);
    expect(metric('throughput-check')).toBe(`throughput.c8.${UNCACHED_LANE}.runsPerSec`);
  });
});
