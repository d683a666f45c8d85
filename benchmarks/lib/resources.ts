/** CPU time and peak RSS over a measured window, and a best-effort forced GC. */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { descendantUsage } from './processes.js';

/** What a {@link ResourceMeter} saw between start and stop. */
export interface ResourceUsage {
  wallMs: number;
  /** Process CPU time (user + system, all threads of this process). */
  cpuMs: number;
  /**
   * CPU time of descendant processes alive at start and stop (isocode: the type-checker),
   * from /proc; 0 where /proc is unavailable.
   */
  childCpuMs: number;
  startRssBytes: number;
  endRssBytes: number;
  /** Highest RSS sampled during the window. */
  peakRssBytes: number;
}

/** A running measurement window. */
export interface ResourceMeter {
  stop(): ResourceUsage;
}

/**
 * Starts sampling RSS every `intervalMs` (the timer is unref'd; samples land between
 * awaited work, so very short spikes can be missed) and records CPU time from now.
 * @param intervalMs @default 5
 */
export function startResourceMeter(intervalMs = 5): ResourceMeter {
  const startRss = process.memoryUsage.rss();
  const startCpu = process.cpuUsage();
  const startChildren = descendantUsage();
  const start = process.hrtime.bigint();
  let peak = startRss;
  const timer = setInterval(() => {
    const rss = process.memoryUsage.rss();
    if (rss > peak) peak = rss;
  }, intervalMs);
  timer.unref();
  return {
    stop() {
      clearInterval(timer);
      const endRss = process.memoryUsage.rss();
      const cpu = process.cpuUsage(startCpu);
      const endChildren = descendantUsage();
      return {
        childCpuMs: Math.max(0, (endChildren?.cpuMs ?? 0) - (startChildren?.cpuMs ?? 0)),
        wallMs: Number(process.hrtime.bigint() - start) / 1e6,
        cpuMs: (cpu.user + cpu.system) / 1000,
        startRssBytes: startRss,
        endRssBytes: endRss,
        peakRssBytes: Math.max(peak, endRss),
      };
    },
  };
}

let gcFunction: (() => void) | undefined;

/**
 * Runs a full GC if one can be obtained (via `--expose-gc` set at runtime); returns whether
 * it ran. Used before and after soak runs so RSS growth is not just uncollected garbage.
 */
export function forceGc(): boolean {
  if (gcFunction === undefined) {
    try {
      setFlagsFromString('--expose-gc');
      const candidate: unknown = runInNewContext('gc');
      if (typeof candidate === 'function') gcFunction = candidate as () => void;
    } catch {
      return false;
    }
  }
  if (gcFunction === undefined) return false;
  gcFunction();
  return true;
}

/** Mebibytes, for reports. */
export function mib(bytes: number): number {
  return bytes / (1024 * 1024);
}
