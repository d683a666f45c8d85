/**
 * The nested-call scheduler of one parent execution, on p-queue. Calls start in submission order
 * (p-queue is FIFO). Concurrency-safe calls overlap up to a cap (the queue's concurrency); any
 * other call is exclusive: when its turn comes it lowers the queue's concurrency to 1 (holding
 * later calls back), waits until it is the queue's only pending call, runs, then restores the cap.
 */
import PQueue from 'p-queue';

/** What {@link NestedScheduler.run} resolves to when the call never ran. */
export const NOT_RUN: unique symbol = Symbol('not run');

/** Schedules the nested calls of one run_code execution. */
export class NestedScheduler {
  readonly #cap: number;
  readonly #queue: PQueue;
  /** Queue-time signals for `add`, reused: one that never aborted has no listener left once its call settled. */
  readonly #gates: AbortController[] = [];

  /** @param maxParallel how many concurrency-safe calls may overlap @default 10 */
  constructor(maxParallel = 10) {
    this.#cap = Math.max(1, Math.floor(maxParallel));
    this.#queue = new PQueue({ concurrency: this.#cap });
  }

  /**
   * True when a call of this kind would start at once: nobody is queued, and a slot is free (for a
   * concurrency-safe call) or nothing runs at all (for an exclusive one). Such a call has nothing of
   * its run ahead of it that it must wait for.
   */
  free(safe: boolean): boolean {
    const queue = this.#queue;
    return queue.size === 0 && (safe ? queue.pending < queue.concurrency : queue.pending === 0);
  }

  /**
   * Runs `work` when its turn comes. Resolves {@link NOT_RUN} when `signal` aborts before it
   * starts (the call is released without running); once started, `work` is awaited to the end:
   * its slot is held until it settles, whatever the signal does.
   */
  run<T>(safe: boolean, signal: AbortSignal, work: () => Promise<T>): Promise<T | typeof NOT_RUN> {
    if (signal.aborted) return Promise.resolve(NOT_RUN);
    const queue = this.#queue;
    const start = (): Promise<T | typeof NOT_RUN> => (safe ? work() : this.#alone(signal, work));
    // A call with a free slot and nobody ahead starts inside `add`: it needs no queue-time signal.
    if (queue.size === 0 && queue.pending < queue.concurrency) return queue.add(start);
    return this.#waiting(signal, start);
  }

  /**
   * A call that has to wait. p-queue's signal removes a queued task on abort. The one it gets
   * follows `signal` only while the call is queued: p-queue would also free a running task's slot
   * on abort, and a started call keeps its slot until its body has settled.
   */
  async #waiting<T>(
    signal: AbortSignal,
    start: () => Promise<T | typeof NOT_RUN>,
  ): Promise<T | typeof NOT_RUN> {
    const gate = this.#gates.pop() ?? new AbortController();
    const onAbort = (): void => gate.abort(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    let started = false;
    const task = (): Promise<T | typeof NOT_RUN> => {
      started = true;
      signal.removeEventListener('abort', onAbort);
      return start();
    };
    try {
      return await this.#queue.add(task, { signal: gate.signal });
    } catch (err) {
      if (started) throw err;
      return NOT_RUN; // aborted while queued
    } finally {
      signal.removeEventListener('abort', onAbort);
      // p-queue removed its listeners before this continuation ran; an aborted gate is spent.
      if (!gate.signal.aborted) this.#gates.push(gate);
    }
  }

  /** An exclusive call's turn: hold later calls back, let running ones finish, run alone. */
  async #alone<T>(signal: AbortSignal, work: () => Promise<T>): Promise<T | typeof NOT_RUN> {
    const queue = this.#queue;
    queue.concurrency = 1;
    try {
      // p-queue counts this call as pending too; it emits "next" as each other call settles.
      while (queue.pending > 1) await new Promise((resolve) => queue.once('next', resolve));
      return signal.aborted ? NOT_RUN : await work();
    } finally {
      queue.concurrency = this.#cap;
    }
  }
}
