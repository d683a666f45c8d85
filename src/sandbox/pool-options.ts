/** The options and counters of a `SandboxPool`, and the validation of the options. */
import { IsocodeError } from '../errors.js';
import { resolveLimits } from './limits.js';
import type { BootstrapMode } from './isolate-snapshot.js';
import { DEFAULT_LIMITS, type SandboxLimits } from './types.js';
import { integerOption } from '../options.js';

/** Options of a {@link SandboxPool}. */
export interface SandboxPoolOptions {
  /**
   * Isolates kept alive with the pool's memory limit, prepared when idle (each ≈1–3 MiB): the pool
   * refills to this many when a kill or a recycling removes one. Isolates serving a run count too
   * (they come back after a clean run). A run that finds none idle creates one, which is then kept
   * up to `maxIdle`. 0 disables pre-warming.
   * @default 2
   */
  size?: number | undefined;
  /**
   * Limits applied to every run, before the run's own overrides.
   * @default DEFAULT_LIMITS
   */
  defaultLimits?: Partial<SandboxLimits> | undefined;
  /**
   * Most idle isolates kept after runs return them (each ≈2–3 MiB); a returning isolate beyond
   * this is disposed. At least `size`.
   * @default max(size, 8)
   */
  maxIdle?: number | undefined;
  /**
   * Runs an isolate serves (one at a time, each in a fresh context) before it is disposed and
   * replaced. 1 gives every run a brand-new isolate.
   * @default 100
   */
  maxRunsPerIsolate?: number | undefined;
  /**
   * An isolate whose heap after a run (V8 heap in use plus external memory, garbage not yet
   * collected included) is over this fraction of its memory limit is retired instead of reused.
   * @default 0.5
   */
  recycleHeapFraction?: number | undefined;
  /**
   * How often the watchdog polls CPU time and wall clock of running programs, in ms. A limit can
   * be overshot by about this much.
   * @default 5
   */
  watchdogIntervalMs?: number | undefined;
  /**
   * Replies to binding calls enter the isolate synchronously on this thread (`applySync`), so the
   * program resumes without a hop to isolated-vm's thread pool; the resumed slice of the program
   * runs under isolated-vm's `timeout` set to the run's remaining CPU and wall budgets (the
   * watchdog cannot tick while this thread runs the isolate). Only for a process that serves one
   * run at a time and does nothing else: a sandbox worker process. A host that serves other work
   * (the in-process mode) must not set it: a program would block its event loop.
   * @default false
   */
  syncReplies?: boolean | undefined;
  /**
   * How the isolates' contexts get the bootstrap: from the process's V8 startup snapshot, where the
   * engine supports one (`snapshot`; on V8 before 12 this means `script`), or by running the
   * bootstrap script in each fresh context (`script`). Decision record 039.
   * @default 'snapshot'
   */
  bootstrap?: BootstrapMode | undefined;
}

/** Counters of a pool. */
export interface SandboxPoolStats {
  /** Isolates not yet disposed: the warm ones and those serving a run. */
  alive: number;
  /** Isolates kept for the next runs: idle with a prepared context, or preparing one. */
  warm: number;
  /**
   * Isolates being created or preparing their next context after a run. A renewal can still end in
   * a disposal (guest code left running) or a recycle (heap over the fraction), so the counters
   * below are final only while this is 0.
   */
  preparing: number;
  /** Programs running. */
  running: number;
  /** Isolates created since the pool started. */
  created: number;
  /** Isolates disposed since the pool started. */
  disposed: number;
  /** Runs started on an isolate since the pool started (more than `created` once isolates are reused). */
  runs: number;
  /** Isolates retired after a clean run: `maxRunsPerIsolate` reached, or their heap over `recycleHeapFraction` of the limit. */
  recycled: number;
}

/** Validated options, defaults applied. */
export interface PoolSettings {
  size: number;
  maxIdle: number;
  maxRunsPerIsolate: number;
  recycleHeapFraction: number;
  watchdogIntervalMs: number;
  syncReplies: boolean;
  bootstrap: BootstrapMode;
  limits: SandboxLimits;
}

const integer = integerOption;

/**
 * Applies the defaults and validates.
 * @throws IsocodeError `INVALID_CONFIG` for an invalid option or limit.
 */
export function resolvePoolOptions(options: SandboxPoolOptions): PoolSettings {
  const size = integer('pool size', options.size ?? 2, 0);
  const maxIdle = Math.max(size, integer('maxIdle', options.maxIdle ?? Math.max(size, 8), 0));
  const maxRunsPerIsolate = integer('maxRunsPerIsolate', options.maxRunsPerIsolate ?? 100, 1);
  const recycleHeapFraction = options.recycleHeapFraction ?? 0.5;
  if (!(recycleHeapFraction > 0 && recycleHeapFraction <= 1)) {
    throw new IsocodeError(
      'INVALID_CONFIG',
      `recycleHeapFraction must be in (0, 1], got ${String(recycleHeapFraction)}`,
    );
  }
  const watchdogIntervalMs = options.watchdogIntervalMs ?? 5;
  if (!Number.isFinite(watchdogIntervalMs) || watchdogIntervalMs < 1) {
    throw new IsocodeError(
      'INVALID_CONFIG',
      `watchdogIntervalMs must be ≥ 1, got ${watchdogIntervalMs}`,
    );
  }
  const bootstrap = options.bootstrap ?? 'snapshot';
  if (bootstrap !== 'snapshot' && bootstrap !== 'script') {
    throw new IsocodeError(
      'INVALID_CONFIG',
      `bootstrap must be "snapshot" or "script", got ${JSON.stringify(bootstrap)}`,
    );
  }
  return {
    size,
    maxIdle,
    maxRunsPerIsolate,
    recycleHeapFraction,
    watchdogIntervalMs,
    syncReplies: options.syncReplies === true,
    bootstrap,
    limits: resolveLimits(DEFAULT_LIMITS, options.defaultLimits),
  };
}
