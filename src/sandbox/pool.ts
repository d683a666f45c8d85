/**
 * The sandbox pool. An isolate serves one run at a time, each run in a fresh context prepared
 * before the run needs it. After a clean end (the program returned, threw, or returned something
 * that is not JSON) the run's context is released and the isolate prepares a new one and goes back
 * to the warm pool; after anything else (memory, CPU or wall-clock kill, abort, output limit, a
 * sandbox failure, a disposal) it is disposed and never reused. An isolate is also retired after
 * `maxRunsPerIsolate` runs, or when its heap after a run is over a fraction of its memory limit
 * (half by default), so garbage and fragmentation cannot pile up. Why sequential reuse keeps the
 * per-run limits meaningful, and what is shared across runs: docs/decisions/004-isolate-strategy.md.
 */
import { IsocodeError } from '../errors.js';
import { prepareBindings } from './bindings.js';
import { failedRun } from './outcome.js';
import { resolveLimits } from './limits.js';
import { ProgramRun } from './program-run.js';
import type { BootstrapMode } from './isolate-snapshot.js';
import { SandboxIsolate } from './sandbox-isolate.js';
import {
  resolvePoolOptions,
  type SandboxPoolOptions,
  type SandboxPoolStats,
} from './pool-options.js';
import type { RunOutcome, RunRequest, SandboxLimits } from './types.js';

export type { SandboxPoolOptions, SandboxPoolStats } from './pool-options.js';
import { Watchdog, type Watched } from './watchdog.js';

const yieldMacrotask = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * How long close() lets the last disposed isolate finish tearing down before it resolves. An
 * isolate stopped while running (limit kill, abort) is destroyed asynchronously on isolated-vm's
 * thread after its task unwinds; `process.exit()` during that teardown segfaulted here in 3 of 20
 * tries even after macrotask yields, and in 0 of 30 with a 10 ms pause (decision record 004).
 */
const DISPOSAL_SETTLE_MS = 50;

/**
 * A reused isolate prepares its next context in well under a millisecond of CPU. Past these bounds
 * something keeps it busy — guest code the previous run left spinning (a microtask loop started
 * just before it returned) — and it is disposed instead.
 */
const RENEW_WALL_MS = 2_000;
const RENEW_CPU_MS = 100;

const MIB = 1024 * 1024;

/** Runs programs in isolated-vm isolates. */
export class SandboxPool {
  private readonly size: number;
  private readonly maxIdle: number;
  private readonly maxRunsPerIsolate: number;
  private readonly recycleHeapFraction: number;
  private readonly limits: SandboxLimits;
  private readonly watchdog: Watchdog;
  /** Replies enter the isolate synchronously (see `SandboxPoolOptions.syncReplies`). */
  private readonly syncReplies: boolean;
  private readonly bootstrap: BootstrapMode;
  /** Idle isolates with a prepared context, most recently used last. */
  private readonly warm: SandboxIsolate[] = [];
  /** Isolates with the pool's memory limit serving a run. */
  private readonly busy = new Set<SandboxIsolate>();
  private readonly alive = new Set<SandboxIsolate>();
  /** Creations and renewals under way (they never reject). */
  private readonly preparing = new Set<Promise<void>>();
  private readonly running = new Set<ProgramRun>();
  private readonly active = new Set<Promise<unknown>>();
  private created = 0;
  private disposed = 0;
  private runs = 0;
  private recycled = 0;
  /** Isolates back from a clean run, preparing their next context. */
  private renewing = 0;
  private closed = false;
  private closing: Promise<void> | undefined;
  private refillScheduled = false;
  private lastCreateError: unknown;
  private lastDisposalAt = Number.NEGATIVE_INFINITY;
  /** The tools of the most recent run: new isolates install their scope while being prepared. */
  private lastTree: string | undefined;

  /** @throws IsocodeError `INVALID_CONFIG` for invalid options or limits. */
  constructor(options: SandboxPoolOptions = {}) {
    const settings = resolvePoolOptions(options);
    this.size = settings.size;
    this.maxIdle = settings.maxIdle;
    this.maxRunsPerIsolate = settings.maxRunsPerIsolate;
    this.recycleHeapFraction = settings.recycleHeapFraction;
    this.limits = settings.limits;
    this.watchdog = new Watchdog(settings.watchdogIntervalMs);
    this.syncReplies = settings.syncReplies;
    this.bootstrap = settings.bootstrap;
  }

  /**
   * Fills the warm pool and waits for it (call at service start-up).
   * @throws IsocodeError `INTERNAL_ERROR` when no isolate could be prepared.
   */
  async warmup(): Promise<void> {
    this.fill();
    while (this.preparing.size > 0) await Promise.allSettled([...this.preparing]);
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
    const bindings = prepareBindings(request.bindings);
    if (request.signal?.aborted === true) return failedRun('aborted', 'the run was aborted');

    const startedAt = performance.now();
    let isolate: SandboxIsolate;
    try {
      isolate = await this.acquire(limits.memoryMb, bindings.index, request.partition ?? '');
    } catch {
      return failedRun('internal', 'sandbox failure: could not create an isolate');
    }
    if (this.closed) {
      isolate.dispose();
      return failedRun('aborted', 'the run was aborted: the sandbox is shutting down');
    }
    let run: ProgramRun;
    try {
      run = ProgramRun.start(isolate, {
        request,
        bindings,
        limits,
        watchdog: this.watchdog,
        syncReplies: this.syncReplies,
        isolateMs: performance.now() - startedAt,
      });
    } catch {
      isolate.dispose();
      this.scheduleRefill();
      return failedRun('internal', 'sandbox failure: the isolate had no prepared context');
    }
    this.runs++;
    this.running.add(run);
    if (isolate.memoryMb === this.limits.memoryMb) this.busy.add(isolate);
    try {
      return await run.done;
    } finally {
      this.running.delete(run);
      // Isolates of another memory limit than the pool's serve one run only.
      this.release(isolate, run.reusable && limits.memoryMb === this.limits.memoryMb);
      // Creating an isolate holds the main thread for ~2 ms: never on a run's path.
      this.scheduleRefill();
    }
  }

  /** Current counters. */
  stats(): SandboxPoolStats {
    return {
      alive: this.alive.size,
      warm: this.warm.length + this.renewing,
      preparing: this.preparing.size,
      running: this.running.size,
      created: this.created,
      disposed: this.disposed,
      runs: this.runs,
      recycled: this.recycled,
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
    while (this.preparing.size > 0) await Promise.allSettled([...this.preparing]);
    for (const isolate of this.warm.splice(0)) isolate.dispose();
    for (const isolate of [...this.alive]) isolate.dispose();
    const settle = this.lastDisposalAt + DISPOSAL_SETTLE_MS - performance.now();
    if (settle > 0) await sleep(settle);
    await yieldMacrotask();
    await sleep(0);
    await yieldMacrotask();
  }

  private async createIsolate(memoryMb: number, tree?: string): Promise<SandboxIsolate> {
    const isolate = await SandboxIsolate.create(
      memoryMb,
      (gone) => {
        if (this.alive.delete(gone)) this.disposed++;
        this.lastDisposalAt = performance.now();
      },
      tree,
      this.bootstrap,
    );
    this.created++;
    this.alive.add(isolate);
    return isolate;
  }

  /**
   * An isolate with a context prepared for a run of `partition` with the tools `tree`: preferably
   * one of that partition whose context has that scope installed already, else one with none
   * installed, else one whose context is replaced now (another scope cannot be removed). An isolate
   * that served another partition is never taken.
   */
  private async acquire(
    memoryMb: number,
    tree: string,
    partition: string,
  ): Promise<SandboxIsolate> {
    if (memoryMb === this.limits.memoryMb) {
      this.lastTree = tree;
      let isolate = this.takeWarm(tree, partition);
      // A creation or renewal is under way: wait for it rather than create one more. Every isolate
      // it prepares lands in the warm list, where the first waiter to wake takes it; a waiter that
      // finds nothing for its partition when nothing is preparing any more creates its own.
      while (isolate === undefined && this.preparing.size > 0 && this.maxIdle > 0 && !this.closed) {
        await Promise.race(this.preparing);
        isolate = this.takeWarm(tree, partition);
      }
      if (isolate !== undefined) {
        const installed = isolate.preparedTree;
        if (installed === undefined || installed === tree) return isolate;
        try {
          await isolate.reprepare();
          return isolate;
        } catch {
          isolate.dispose();
        }
      }
    }
    return this.createIsolate(memoryMb);
  }

  /** Removes and returns the best warm isolate of `partition` for `tree` (most recently used first). */
  private takeWarm(tree: string, partition: string): SandboxIsolate | undefined {
    for (let i = this.warm.length - 1; i >= 0; i--) {
      const isolate = this.warm[i];
      if (isolate !== undefined && !isolate.ready) {
        this.warm.splice(i, 1);
        isolate.dispose();
      }
    }
    // Another partition's isolate: never (-1). Else 2: the scope of `tree` installed; 1: none
    // installed; 0: another one.
    const rank = (isolate: SandboxIsolate): number =>
      isolate.owner !== undefined && isolate.owner !== partition
        ? -1
        : isolate.preparedTree === tree
          ? 2
          : isolate.preparedTree === undefined
            ? 1
            : 0;
    let pick = -1;
    for (let i = this.warm.length - 1; i >= 0; i--) {
      const isolate = this.warm[i];
      const best = pick < 0 ? undefined : this.warm[pick];
      if (isolate === undefined || rank(isolate) < 0) continue;
      if (best === undefined || rank(isolate) > rank(best)) pick = i;
    }
    return pick < 0 ? undefined : this.warm.splice(pick, 1)[0];
  }

  /** After a run: prepares the isolate for another run, or disposes it. */
  private release(isolate: SandboxIsolate, reusable: boolean): void {
    this.busy.delete(isolate);
    if (!reusable || this.closed || isolate.disposed) {
      isolate.dispose();
      return;
    }
    if (isolate.runs >= this.maxRunsPerIsolate) {
      this.recycled++;
      isolate.dispose();
      return;
    }
    // After the caller has its outcome: the renewal's first call costs the main thread ~30 µs.
    this.renewing++;
    this.track(
      new Promise<void>((resolve) => setImmediate(resolve))
        .then(() => this.renew(isolate))
        .finally(() => {
          this.renewing--;
        }),
    );
  }

  private async renew(isolate: SandboxIsolate): Promise<void> {
    const cpuStart = isolate.cpuMs() ?? 0;
    const startedAt = performance.now();
    const guard: Watched = {
      check: (now) => {
        const cpu = isolate.cpuMs();
        if (now - startedAt > RENEW_WALL_MS || (cpu !== undefined && cpu - cpuStart > RENEW_CPU_MS))
          isolate.dispose();
      },
    };
    this.watchdog.add(guard);
    try {
      await isolate.prepare();
    } catch {
      isolate.dispose();
    } finally {
      this.watchdog.delete(guard);
    }
    if (isolate.disposed) return;
    // Garbage of earlier runs that V8 has not collected yet counts too, which errs on the side of
    // recycling.
    const heap = isolate.heapBytes;
    if (heap === undefined || heap > isolate.memoryMb * MIB * this.recycleHeapFraction) {
      this.recycled++;
      isolate.dispose();
      return;
    }
    this.handOut(isolate);
  }

  /** Puts a ready isolate in the warm list (the least recently used one makes room), or disposes it. */
  private handOut(isolate: SandboxIsolate): void {
    if (this.closed || this.maxIdle === 0) {
      isolate.dispose();
      return;
    }
    // Full: the least recently used idle isolate makes room (it may belong to a partition that
    // no longer runs here).
    if (this.warm.length >= this.maxIdle) this.warm.shift()?.dispose();
    this.warm.push(isolate);
  }

  private track(pending: Promise<void>): void {
    this.preparing.add(pending);
    void pending.finally(() => this.preparing.delete(pending));
  }

  private scheduleRefill(): void {
    if (this.refillScheduled || this.closed) return;
    this.refillScheduled = true;
    setImmediate(() => {
      this.refillScheduled = false;
      this.fill();
    });
  }

  /** Creates isolates until `size` are idle, being prepared, or serving a run. */
  private fill(): void {
    while (!this.closed && this.warm.length + this.preparing.size + this.busy.size < this.size) {
      this.track(
        this.createIsolate(this.limits.memoryMb, this.lastTree).then(
          (isolate) => this.handOut(isolate),
          (error: unknown) => {
            this.lastCreateError = error;
          },
        ),
      );
    }
  }
}
