/** Summary statistics over timing samples (milliseconds). Pure functions, no I/O. */

/** The summary of one measured series. All times in milliseconds. */
export interface Summary {
  /** Number of measured samples (warm-up excluded). */
  n: number;
  median: number;
  p90: number;
  p99: number;
  mean: number;
  min: number;
  max: number;
  /** Operations per second if the samples ran back to back: `n / sum(samples)`. */
  throughput: number;
}

/**
 * The `q` quantile (0..1) of ascending-sorted samples, by linear interpolation between
 * closest ranks (the "type 7" estimator of R and NumPy).
 */
export function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  const position = (sorted.length - 1) * Math.min(1, Math.max(0, q));
  const lower = Math.floor(position);
  const upper = Math.ceil(position);
  const lo = sorted[lower] ?? Number.NaN;
  const hi = sorted[upper] ?? lo;
  return lo + (hi - lo) * (position - lower);
}

/** Summarizes samples in milliseconds. An empty series gives NaN everywhere and `n: 0`. */
export function summarize(samples: readonly number[]): Summary {
  const sorted = [...samples].sort((a, b) => a - b);
  const total = sorted.reduce((sum, value) => sum + value, 0);
  const n = sorted.length;
  return {
    n,
    median: quantile(sorted, 0.5),
    p90: quantile(sorted, 0.9),
    p99: quantile(sorted, 0.99),
    mean: n === 0 ? Number.NaN : total / n,
    min: sorted[0] ?? Number.NaN,
    max: sorted[n - 1] ?? Number.NaN,
    throughput: total > 0 ? (n * 1000) / total : Number.NaN,
  };
}

/** Milliseconds between two `process.hrtime.bigint()` readings. */
export function elapsedMs(start: bigint, end: bigint = process.hrtime.bigint()): number {
  return Number(end - start) / 1e6;
}

/** `value / reference`, or NaN when either is missing or the reference is not positive. */
export function ratio(value: number | undefined, reference: number | undefined): number {
  if (value === undefined || reference === undefined || !(reference > 0) || !Number.isFinite(value))
    return Number.NaN;
  return value / reference;
}
