/**
 * The sandbox pool: one isolate per run, taken from a small pool of pre-warmed isolates (context
 * created, bootstrap evaluated, global locked down) and disposed after the run — never reused,
 * whatever happened. Refills happen off the hot path (`setImmediate`). Why per-run isolates and not
 * a shared one: docs/decisions/004-isolate-strategy.md.
 */
import { IsocodeError } from '../errors.js';
import { validateBindings } from './bindings.js';
import { resolveLimits } from './limits.js';
import { ProgramRun } from './program-run.js';
import { SandboxIsolate } from './sandbox-isolate.js';
import {
  DEFAULT_LIMITS,
  type FailureKind,
  type RunOutcome,
  type RunRequest,
  type RunStats,
  type SandboxLimits,
} from './types.js';
import { Watchdog } from './watchdog.js';

/** Options of a {@link SandboxPool}. */
export interface SandboxPoolOptions {
  /**
   * Warm isolates kept ready (each ≈1–2 MiB while idle). 0 disables pre-warming: every run
   * then pays for a cold isolate.
   * @default 2
   */
  size?: number | undefined;
  /**
   * Limits applied to every run, before the run's own overrides.
   * @default DEFAULT_LIMITS
   */
  defaultLimits?: Partial<SandboxLimits> | undefined;
  /**
   * How often the watchdog polls CPU time and wall clock of running programs, in ms. A limit can
   * be overshot by about this much.
   * @default 5
   */
  watchdogIntervalMs?: number | undefined;
}

/** Counters of a pool. */
export interface SandboxPoolStats {
  /** Isolates not yet disposed (warm + running). */
  alive: number;
  /** Isolates ready for a run. */
  warm: number;
  /** Programs running. */
  running: number;
  /** Isolates created since the pool started. */
  created: number;
  /** Isolates disposed since the pool started. */
  disposed: number;
}

const yieldMacrotask = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * How long close() lets the last disposed isolate finish tearing down before it resolves. An
 * isolate stopped while running (limit kill, abort) is destroyed asynchronously on isolated-vm's
 * thread after its task unwinds; `process.exit()` during that teardown segfaulted here in 3 of 20
 * tries even after macrotask yields, and in 0 of 30 with a 10 ms pause (decision record 004).
 */
const DISPOSAL_SETTLE_MS = 50;

function emptyStats(): RunStats {
  return { cpuMs: 0, wallMs: 0, calls: 0, isolateMs: 0, logBytes: 0, truncatedLogs: false };
}

function failed(kind: FailureKind, message: string): RunOutcome {
  return { ok: false, kind, message, logs: [], stats: emptyStats() };
}

/** Runs programs in isolated-vm isolates. */
export class SandboxPool {
  private readonly size: number;
  private readonly limits: SandboxLimits;
  private readonly watchdog: Watchdog;
  private readonly warm: SandboxIsolate[] = [];
  private readonly alive = new Set<SandboxIsolate>();
  private readonly creating = new Set<Promise<unknown>>();
  private readonly running = new Set<ProgramRun>();
  private readonly active = new Set<Promise<unknown>>();
  /** Runs waiting for an isolate that a refill is preparing. */
  private readonly takers: ((isolate: SandboxIsolate | undefined) => void)[] = [];
  private created = 0;
  private disposed = 0;
  private closed = false;
  private closing: Promise<void> | undefined;
  private refillScheduled = false;
  private lastCreateError: unknown;
  private lastDisposalAt = Number.NEGATIVE_INFINITY;

  /** @throws IsocodeError `INVALID_CONFIG` for invalid options or limits. */
  constructor(options: SandboxPoolOptions = {}) {
    const size = options.size ?? 2;
    const interval = options.watchdogIntervalMs ?? 5;
    if (!Number.isSafeInteger(size) || size < 0)
      throw new IsocodeError('INVALID_CONFIG', `pool size must be an integer ≥ 0, got ${size}`);
    if (!Number.isFinite(interval) || interval < 1) {
      throw new IsocodeError('INVALID_CONFIG', `watchdogIntervalMs must be ≥ 1, got ${interval}`);
    }
    this.size = size;
    this.limits = resolveLimits(DEFAULT_LIMITS, options.defaultLimits);
    this.watchdog = new Watchdog(interval);
  }

  /**
   * Fills the warm pool and waits for it (call at service start-up).
   * @throws IsocodeError `INTERNAL_ERROR` when no isolate could be prepared.
   */
  async warmup(): Promise<void> {
    this.fill();
    while (this.creating.size > 0) await Promise.allSettled([...this.creating]);
    if (this.size > 0 && this.warm.length === 0 && !this.closed) {
      throw new IsocodeError('INTERNAL_ERROR', 'could not prepare a sandbox isolate', {
        cause: this.lastCreateError,
      });
    }
  }

  /**
   * Runs one program. Resolves with its outcome — failures of the program (exceptions, limits,
   * aborts) are outcomes, not rejections — once every dispatch it started has settled.
   * @throws IsocodeError `SHUTTING_DOWN` after {@link close}; `INVALID_CONFIG` for malformed
   * limits or bindings; `INVALID_ARGS` when `js` is not a string or `dispatch` not a function.
   */
  run(request: RunRequest): Promise<RunOutcome> {
    const pending = this.runInner(request);
    this.active.add(pending);
    const forget = (): void => {
      this.active.delete(pending);
    };
    pending.then(forget, forget);
    return pending;
  }

  private async runInner(request: RunRequest): Promise<RunOutcome> {
    if (this.closed) throw new IsocodeError('SHUTTING_DOWN', 'the sandbox pool is closed');
    if (typeof request.js !== 'string')
      throw new IsocodeError('INVALID_ARGS', 'js must be a string');
    if (typeof request.dispatch !== 'function')
      throw new IsocodeError('INVALID_ARGS', 'dispatch must be a function');
    const limits = resolveLimits(this.limits, request.limits);
    const bindings = validateBindings(request.bindings);
    if (request.signal?.aborted === true) return failed('aborted', 'the run was aborted');

    const startedAt = performance.now();
    let isolate: SandboxIsolate;
    try {
      isolate = await this.acquire(limits.memoryMb);
    } catch {
      return failed('internal', 'sandbox failure: could not create an isolate');
    }
    if (this.closed) {
      isolate.dispose();
      return failed('aborted', 'the run was aborted: the sandbox is shutting down');
    }
    const run = ProgramRun.start(isolate, {
      request,
      bindings,
      limits,
      watchdog: this.watchdog,
      isolateMs: performance.now() - startedAt,
    });
    this.running.add(run);
    try {
      return await run.done;
    } finally {
      this.running.delete(run);
      // Refill after the run, not while it runs: preparing an isolate holds the main thread for
      // ~3 ms, which measured as +5 ms on a warm run when done from acquire().
      this.scheduleRefill();
    }
  }

  /** Current counters. */
  stats(): SandboxPoolStats {
    return {
      alive: this.alive.size,
      warm: this.warm.length,
      running: this.running.size,
      created: this.created,
      disposed: this.disposed,
    };
  }

  /**
   * Stops accepting runs, aborts running ones (kind `aborted`), waits for them and their
   * dispatches to settle, disposes every isolate, then waits until the last disposed isolate had
   * time to tear down (≤ 50 ms) and yields to the event loop: exiting the process right after a
   * kill crashed isolated-vm here (see decision record 004). Call it before `process.exit()`.
   * Idempotent.
   */
  close(): Promise<void> {
    this.closing ??= this.closeInner();
    return this.closing;
  }

  private async closeInner(): Promise<void> {
    this.closed = true;
    for (const run of this.running) run.kill('closed');
    while (this.active.size > 0) await Promise.allSettled([...this.active]);
    while (this.creating.size > 0) await Promise.allSettled([...this.creating]);
    for (const isolate of this.warm.splice(0)) isolate.dispose();
    for (const isolate of [...this.alive]) isolate.dispose();
    const settle = this.lastDisposalAt + DISPOSAL_SETTLE_MS - performance.now();
    if (settle > 0) await sleep(settle);
    await yieldMacrotask();
    await sleep(0);
    await yieldMacrotask();
  }

  private async createIsolate(memoryMb: number): Promise<SandboxIsolate> {
    const isolate = await SandboxIsolate.create(memoryMb, (gone) => {
      if (this.alive.delete(gone)) this.disposed++;
      this.lastDisposalAt = performance.now();
    });
    this.created++;
    this.alive.add(isolate);
    return isolate;
  }

  private async acquire(memoryMb: number): Promise<SandboxIsolate> {
    if (memoryMb === this.limits.memoryMb) {
      let isolate = this.warm.shift();
      while (isolate !== undefined && isolate.disposed) isolate = this.warm.shift();
      if (isolate !== undefined) return isolate;
      // A refill is under way: take its isolate rather than preparing one more.
      if (this.creating.size > this.takers.length) {
        const handed = await new Promise<SandboxIsolate | undefined>((resolve) =>
          this.takers.push(resolve),
        );
        if (handed !== undefined) return handed;
      }
    }
    return this.createIsolate(memoryMb);
  }

  private scheduleRefill(): void {
    if (this.refillScheduled || this.closed) return;
    this.refillScheduled = true;
    setImmediate(() => {
      this.refillScheduled = false;
      this.fill();
    });
  }

  private fill(): void {
    while (!this.closed && this.warm.length + this.creating.size < this.size) {
      const pending = this.createIsolate(this.limits.memoryMb).then(
        (isolate) => {
          const taker = this.takers.shift();
          if (this.closed) {
            isolate.dispose();
            taker?.(undefined);
          } else if (taker !== undefined) taker(isolate);
          else this.warm.push(isolate);
        },
        (error: unknown) => {
          this.lastCreateError = error;
          this.takers.shift()?.(undefined);
        },
      );
      this.creating.add(pending);
      void pending.finally(() => this.creating.delete(pending));
    }
  }
}
