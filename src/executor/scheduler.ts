/**
 * The nested-call scheduler of one parent execution. Calls start in submission order (a FIFO).
 * Concurrency-safe calls overlap up to a cap; any other call is exclusive: when its turn comes it
 * holds later calls back, waits until the calls already running have settled, runs alone, then lets
 * the queue go on. A counter and a list (decision 034): a call with a free slot and nobody ahead
 * starts at once, with no promise, event or timer of a queue library on its path — the common case
 * of a program's nested calls, each of which used to pay p-queue's per-task bookkeeping.
 */

/** What {@link NestedScheduler.run} resolves to when the call never ran. */
export const NOT_RUN: unique symbol = Symbol('not run');

/** A call waiting for its turn. */
interface Waiting {
  safe: boolean;
  /** Starts the call (its turn has come); the slot is taken before it is called. */
  start: () => void;
}

/** Schedules the nested calls of one run_code execution. */
export class NestedScheduler {
  readonly #cap: number;
  /** Calls holding a slot (started, not settled; an exclusive call counts while it waits to run alone). */
  #running = 0;
  /** An exclusive call has its turn: nothing else starts until it has settled. */
  #held = false;
  /** The exclusive call whose turn came, waiting for the running calls to settle. */
  #alone: (() => void) | undefined;
  readonly #queue: Waiting[] = [];

  /** @param maxParallel how many concurrency-safe calls may overlap @default 10 */
  constructor(maxParallel = 10) {
    this.#cap = Math.max(1, Math.floor(maxParallel));
  }

  /**
   * True when a call of this kind would start at once: nobody is queued, and a slot is free (for a
   * concurrency-safe call) or nothing runs at all (for an exclusive one). Such a call has nothing of
   * its run ahead of it that it must wait for.
   */
  free(safe: boolean): boolean {
    return (
      this.#queue.length === 0 &&
      !this.#held &&
      (safe ? this.#running < this.#cap : this.#running === 0)
    );
  }

  /**
   * Runs `work` when its turn comes. Resolves {@link NOT_RUN} when `signal` aborts before it
   * starts (the call is released without running); once started, `work` is awaited to the end:
   * its slot is held until it settles, whatever the signal does.
   */
  run<T>(safe: boolean, signal: AbortSignal, work: () => Promise<T>): Promise<T | typeof NOT_RUN> {
    if (signal.aborted) return Promise.resolve(NOT_RUN);
    if (this.#queue.length === 0 && !this.#held && this.#running < this.#cap)
      return this.#start(safe, signal, work);
    return new Promise<T | typeof NOT_RUN>((resolve, reject) => {
      const entry: Waiting = {
        safe,
        start: () => {
          signal.removeEventListener('abort', onAbort);
          this.#start(safe, signal, work).then(resolve, reject);
        },
      };
      // Released without running when the run settles (or is aborted) while the call waits.
      const onAbort = (): void => {
        const at = this.#queue.indexOf(entry);
        if (at < 0) return;
        this.#queue.splice(at, 1);
        resolve(NOT_RUN);
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.#queue.push(entry);
    });
  }

  /** Takes a slot and runs the call; gives the slot back (and starts who is next) when it settles. */
  async #start<T>(
    safe: boolean,
    signal: AbortSignal,
    work: () => Promise<T>,
  ): Promise<T | typeof NOT_RUN> {
    this.#running++;
    if (!safe) this.#held = true;
    try {
      if (safe) return await work();
      // Its turn: later calls wait (held); the ones already running finish first.
      if (this.#running > 1) await new Promise<void>((resolve) => (this.#alone = resolve));
      return signal.aborted ? NOT_RUN : await work();
    } finally {
      this.#running--;
      if (!safe) this.#held = false;
      this.#next();
    }
  }

  /** After a call settled: wakes the exclusive call waiting to run alone, or starts queued calls. */
  #next(): void {
    if (this.#held) {
      if (this.#running === 1 && this.#alone !== undefined) {
        const alone = this.#alone;
        this.#alone = undefined;
        alone();
      }
      return;
    }
    while (this.#queue.length > 0 && !this.#held && this.#running < this.#cap) {
      const entry = this.#queue.shift() as Waiting;
      entry.start();
    }
  }
}
