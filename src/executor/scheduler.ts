/**
 * The nested-call scheduler of one parent execution. Calls start in submission order.
 * Concurrency-safe calls overlap up to a cap; any other call is exclusive: it waits for running
 * calls, runs alone, and holds later calls back.
 */

/** Releases a slot. */
export type Release = () => void;

interface Waiter {
  safe: boolean;
  resolve: (release: Release | undefined) => void;
}

/** Thrown-free scheduler: `acquire` resolves to a release function, or undefined when closed. */
export class NestedScheduler {
  readonly #cap: number;
  readonly #queue: Waiter[] = [];
  #running = 0;
  #exclusive = false;
  #closed = false;

  constructor(maxParallel: number) {
    this.#cap = Math.max(1, Math.floor(maxParallel));
  }

  /** Waits for a slot. Resolves undefined when the scheduler closes (or `signal` aborts) first. */
  acquire(safe: boolean, signal: AbortSignal): Promise<Release | undefined> {
    if (this.#closed || signal.aborted) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      const waiter: Waiter = {
        safe,
        resolve: (release) => {
          signal.removeEventListener('abort', onAbort);
          resolve(release);
        },
      };
      const onAbort = (): void => {
        const i = this.#queue.indexOf(waiter);
        if (i >= 0) {
          this.#queue.splice(i, 1);
          waiter.resolve(undefined);
          this.#pump();
        }
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.#queue.push(waiter);
      this.#pump();
    });
  }

  /** Rejects every waiting call (they resolve undefined); running calls keep their slots. */
  close(): void {
    this.#closed = true;
    for (const w of this.#queue.splice(0)) w.resolve(undefined);
  }

  get running(): number {
    return this.#running;
  }

  get waiting(): number {
    return this.#queue.length;
  }

  #pump(): void {
    for (;;) {
      const head = this.#queue[0];
      if (!head) return;
      if (this.#exclusive) return;
      if (head.safe ? this.#running >= this.#cap : this.#running > 0) return;
      this.#queue.shift();
      this.#running++;
      if (!head.safe) this.#exclusive = true;
      let released = false;
      head.resolve(() => {
        if (released) return;
        released = true;
        this.#running--;
        if (!head.safe) this.#exclusive = false;
        this.#pump();
      });
    }
  }
}
