/**
 * The nested-call scheduler of one parent execution, on p-queue. Calls start in submission order
 * (p-queue is FIFO). Concurrency-safe calls overlap up to a cap (the queue's concurrency); any
 * other call is exclusive: when its turn comes it lowers the queue's concurrency to 1 (holding
 * later calls back), waits for the calls still running, runs alone, then restores the cap.
 */
import PQueue from 'p-queue';

/** What {@link NestedScheduler.run} resolves to when the call never ran. */
export const NOT_RUN: unique symbol = Symbol('not run');

/** Schedules the nested calls of one run_code execution. */
export class NestedScheduler {
  readonly #cap: number;
  readonly #queue: PQueue;
  /** The concurrency-safe calls running now (what an exclusive call waits for). */
  readonly #running = new Set<Promise<unknown>>();

  /** @param maxParallel how many concurrency-safe calls may overlap @default 10 */
  constructor(maxParallel = 10) {
    this.#cap = Math.max(1, Math.floor(maxParallel));
    this.#queue = new PQueue({ concurrency: this.#cap });
  }

  /**
   * Runs `work` when its turn comes. Resolves {@link NOT_RUN} when `signal` aborts before it
   * starts (the call is released without running); once started, `work` is awaited to the end:
   * its slot is held until it settles, whatever the signal does.
   */
  async run<T>(
    safe: boolean,
    signal: AbortSignal,
    work: () => Promise<T>,
  ): Promise<T | typeof NOT_RUN> {
    if (signal.aborted) return NOT_RUN;
    // p-queue's signal removes a queued task on abort; it is detached once the task starts, so
    // an abort never frees the slot of a call that is still running.
    const queued = new AbortController();
    const onAbort = (): void => queued.abort(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    let started = false;
    const task = async (): Promise<T | typeof NOT_RUN> => {
      started = true;
      signal.removeEventListener('abort', onAbort);
      return safe ? this.#overlapping(work) : this.#alone(signal, work);
    };
    try {
      return await this.#queue.add(task, { signal: queued.signal });
    } catch (err) {
      if (started) throw err;
      return NOT_RUN; // aborted while queued
    } finally {
      signal.removeEventListener('abort', onAbort);
    }
  }

  async #overlapping<T>(work: () => Promise<T>): Promise<T> {
    const running = work();
    this.#running.add(running);
    try {
      return await running;
    } finally {
      this.#running.delete(running);
    }
  }

  async #alone<T>(signal: AbortSignal, work: () => Promise<T>): Promise<T | typeof NOT_RUN> {
    this.#queue.concurrency = 1;
    try {
      await Promise.allSettled([...this.#running]);
      return signal.aborted ? NOT_RUN : await work();
    } finally {
      this.#queue.concurrency = this.#cap;
    }
  }
}
