/**
 * Admission control: how many programs run at once, overall and per scope, and how many may wait.
 * A run takes a scope slot, then a global slot (two p-queue queues), and holds both until it ends.
 * A full wait queue, or a wait longer than `maxQueueWaitMs`, refuses the run with `OVERLOADED`
 * (HTTP 429 with `Retry-After`) instead of letting work pile up in memory: one tenant can fill its
 * own queue, never another tenant's slots.
 */
import PQueue from 'p-queue';
import { IsocodeError } from '../errors.js';
import { integerOption } from '../options.js';

/** Admission limits. */
export interface AdmissionOptions {
  /**
   * Programs running at once over all scopes (each holds one sandbox worker process).
   * @default the sandbox's `maxWorkers` (max(4, 2 × cores))
   */
  maxConcurrentRuns?: number | undefined;
  /**
   * Programs running at once in one scope (one tenant's key): the rest of the global slots stay
   * available to the other scopes.
   * @default half of maxConcurrentRuns, rounded up
   * @example { maxConcurrentRunsPerScope: 2 }
   */
  maxConcurrentRunsPerScope?: number | undefined;
  /**
   * Programs waiting for a slot in one scope; one more is refused with `OVERLOADED`. A waiting
   * run holds only its request (a program is at most `maxCodeChars`).
   * @default 4 × maxConcurrentRuns
   */
  maxQueuedRunsPerScope?: number | undefined;
  /**
   * Programs waiting for a slot over all scopes; one more is refused with `OVERLOADED`.
   * @default 8 × maxConcurrentRuns
   */
  maxQueuedRuns?: number | undefined;
  /**
   * Longest wait for a slot, in ms; then the run is refused with `OVERLOADED`.
   * @default 10000
   */
  maxQueueWaitMs?: number | undefined;
}

/** Counters of admission control. */
export interface AdmissionStats {
  running: number;
  queued: number;
  /** Runs refused with OVERLOADED since start. */
  rejected: number;
}

/** Seconds a refused client is told to wait (`Retry-After`). */
const RETRY_AFTER_SECONDS = 1;

const integer = integerOption;

function overloaded(message: string): IsocodeError {
  return new IsocodeError('OVERLOADED', message, {
    details: { retryAfterSeconds: RETRY_AFTER_SECONDS },
  });
}

/** The admission controller of one runner. */
export class Admission {
  private readonly global: PQueue;
  private readonly scopes = new Map<string, PQueue>();
  private readonly perScope: number;
  private readonly queuedPerScope: number;
  private readonly queuedTotal: number;
  private readonly maxWait: number;
  private waiting = 0;
  private rejected = 0;

  /**
   * `workers`: how many programs the sandbox can run at once when that is a hard bound (a pool of
   * worker processes): admission may not promise more, or a run admitted past the workers would
   * be refused `OVERLOADED` after it was accepted (a background run then fails, though its start
   * answered 202).
   * @throws IsocodeError `INVALID_CONFIG` for invalid limits.
   */
  constructor(options: AdmissionOptions, defaultConcurrency: number, workers?: number) {
    const total = integer('maxConcurrentRuns', options.maxConcurrentRuns ?? defaultConcurrency, 1);
    if (workers !== undefined && total > workers)
      throw new IsocodeError(
        'INVALID_CONFIG',
        `admission.maxConcurrentRuns (${total}) is larger than workers.maxWorkers (${workers}): raise workers.maxWorkers or lower admission.maxConcurrentRuns`,
      );
    this.perScope = integer(
      'maxConcurrentRunsPerScope',
      options.maxConcurrentRunsPerScope ?? Math.ceil(total / 2),
      1,
    );
    this.queuedPerScope = integer(
      'maxQueuedRunsPerScope',
      options.maxQueuedRunsPerScope ?? 4 * total,
      0,
    );
    this.queuedTotal = integer('maxQueuedRuns', options.maxQueuedRuns ?? 8 * total, 0);
    this.maxWait = integer('maxQueueWaitMs', options.maxQueueWaitMs ?? 10_000, 1);
    this.global = new PQueue({ concurrency: total });
  }

  /** The most programs running at once. */
  get concurrency(): number {
    return this.global.concurrency;
  }

  /**
   * Waits for a slot of `scope` and a global one; resolves with the function that gives both back
   * (call it exactly once, when the run has ended).
   * @throws IsocodeError `OVERLOADED` (queue full, or waited too long), `ABORTED` (`signal`).
   */
  async acquire(scope: string, signal?: AbortSignal): Promise<() => void> {
    if (signal?.aborted === true) throw new IsocodeError('ABORTED', 'the run was aborted');
    let queue = this.scopes.get(scope);
    if (queue === undefined) {
      queue = new PQueue({ concurrency: this.perScope });
      this.scopes.set(scope, queue);
    }
    const scopeFull = queue.pending >= this.perScope && queue.size >= this.queuedPerScope;
    const globalFull =
      this.global.pending >= this.global.concurrency && this.waiting >= this.queuedTotal;
    if (scopeFull || globalFull) {
      this.rejected++;
      throw overloaded(
        scopeFull
          ? `too many programs of this scope are running or waiting (${this.perScope} running, ${this.queuedPerScope} waiting); retry later`
          : 'the sandbox is at capacity; retry later',
      );
    }
    // Follows the caller's signal and the wait limit only while waiting: once running, the slot
    // is held until released (p-queue frees a slot when the signal of a running task aborts).
    const wait = new AbortController();
    const timer = setTimeout(() => wait.abort('timeout'), this.maxWait);
    const onAbort = (): void => wait.abort('aborted');
    signal?.addEventListener('abort', onAbort, { once: true });
    this.waiting++;
    let waited = true;
    const stopWaiting = (): void => {
      if (!waited) return;
      waited = false;
      this.waiting--;
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    };
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    const scopeQueue = queue;
    try {
      await new Promise<void>((admitted, refused) => {
        scopeQueue
          .add(
            () =>
              this.global.add(
                () => {
                  stopWaiting();
                  admitted();
                  return held;
                },
                { signal: wait.signal },
              ),
            { signal: wait.signal },
          )
          .catch(refused);
      });
    } catch {
      stopWaiting();
      if (
        this.scopes.get(scope) === scopeQueue &&
        scopeQueue.size === 0 &&
        scopeQueue.pending === 0
      )
        this.scopes.delete(scope);
      if (wait.signal.reason === 'aborted')
        throw new IsocodeError('ABORTED', 'the run was aborted while waiting for a slot');
      this.rejected++;
      throw overloaded(`no run slot became free within ${this.maxWait} ms; retry later`);
    }
    let done = false;
    return () => {
      if (done) return;
      done = true;
      release();
      void scopeQueue.onIdle().then(() => {
        if (
          this.scopes.get(scope) === scopeQueue &&
          scopeQueue.size === 0 &&
          scopeQueue.pending === 0
        )
          this.scopes.delete(scope);
      });
    };
  }

  /**
   * A slot of `scope` and a global one only if both are free now (nobody waits ahead): the
   * release function, or undefined. Durable runs take their slot this way before they claim a run,
   * so a run waits in the store's queue (on any replica), never in this process.
   */
  async tryAcquire(scope: string): Promise<(() => void) | undefined> {
    const queue = this.scopes.get(scope);
    const scopeFree = queue === undefined || (queue.pending < this.perScope && queue.size === 0);
    const globalFree = this.global.pending < this.global.concurrency && this.global.size === 0;
    if (!scopeFree || !globalFree) return undefined;
    try {
      return await this.acquire(scope);
    } catch {
      return undefined;
    }
  }

  /** Current counters. */
  stats(): AdmissionStats {
    return { running: this.global.pending, queued: this.waiting, rejected: this.rejected };
  }
}
