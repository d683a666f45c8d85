/**
 * The host's event-loop delay (`perf_hooks.monitorEventLoopDelay`): how long a timer waited for the
 * loop beyond its due time. Anything the host does synchronously because of a program (the ledger,
 * rendering, validation; docs/decisions/029-host-work.md) shows here before it shows as a slow
 * `/healthz`.
 */
import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';

/** One reading: quantiles and maximum since the previous reading, totals since the start. */
export interface EventLoopLag {
  /** Delay quantiles in seconds since the previous reading (0 when nothing was sampled). */
  quantiles: Readonly<Record<'0.5' | '0.9' | '0.99', number>>;
  /** The longest delay in seconds since the previous reading. */
  maxSeconds: number;
  /** Sum of sampled delays in seconds since the monitor started. */
  sumSeconds: number;
  /** Samples since the monitor started. */
  count: number;
}

/** Samples the event loop's delay until {@link EventLoopMonitor.dispose}. */
export interface EventLoopMonitor {
  /** The figures since the previous call (quantiles, max) and since the start (sum, count). */
  read(): EventLoopLag;
  /** Stops sampling. */
  dispose(): void;
}

const NS = 1e9;

/**
 * Starts sampling the event-loop delay every `resolutionMs` milliseconds.
 * @param resolutionMs sampling period. @default 20
 */
export function monitorEventLoop(resolutionMs = 20): EventLoopMonitor {
  const h: IntervalHistogram = monitorEventLoopDelay({ resolution: resolutionMs });
  h.enable();
  let sum = 0;
  let count = 0;
  const q = (p: number): number => (h.count === 0 ? 0 : h.percentile(p) / NS);
  return {
    read() {
      const window = h.count;
      const quantiles = { '0.5': q(50), '0.9': q(90), '0.99': q(99) };
      const maxSeconds = window === 0 ? 0 : h.max / NS;
      sum += window === 0 ? 0 : (h.mean * window) / NS;
      count += window;
      h.reset();
      return { quantiles, maxSeconds, sumSeconds: sum, count };
    },
    dispose: () => h.disable(),
  };
}
