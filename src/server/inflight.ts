/**
 * Work in flight (runs, checks, streams), each with its own AbortController, so a shutdown can
 * wait for it up to a deadline and then abort what is left.
 */
import { IsocodeError } from '../index.js';

interface Entry {
  controller: AbortController;
  done: Promise<unknown>;
}

/** Tracks in-flight work. */
export class InFlight {
  readonly #entries = new Set<Entry>();
  #closing = false;

  /** Work in flight. */
  get size(): number {
    return this.#entries.size;
  }

  /** True once {@link drain} was called. */
  get closing(): boolean {
    return this.#closing;
  }

  /**
   * Runs `work` with a signal aborted when `signal` (the request's) aborts or the drain deadline
   * passes. Once draining, new work is refused: it rejects with IsocodeError SHUTTING_DOWN.
   */
  track<T>(signal: AbortSignal, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
    if (this.#closing)
      return Promise.reject(new IsocodeError('SHUTTING_DOWN', 'the server is shutting down'));
    const controller = new AbortController();
    const combined = AbortSignal.any([signal, controller.signal]);
    const done = work(combined);
    const entry: Entry = { controller, done };
    this.#entries.add(entry);
    const remove = (): void => {
      this.#entries.delete(entry);
    };
    void done.then(remove, remove);
    return done;
  }

  /**
   * Waits for the work in flight, up to `graceMs`; then aborts what is left (reason: an
   * IsocodeError SHUTTING_DOWN) and waits up to `settleMs` more for it to settle.
   * @returns how many pieces of work were aborted.
   */
  async drain(graceMs: number, settleMs = 5_000): Promise<number> {
    this.#closing = true;
    const settled = (): Promise<unknown> =>
      Promise.allSettled([...this.#entries].map((e) => e.done));
    if (!(await withDeadline(settled(), graceMs))) {
      const left = [...this.#entries];
      const reason = new IsocodeError('SHUTTING_DOWN', 'the server is shutting down');
      for (const e of left) e.controller.abort(reason);
      await withDeadline(settled(), settleMs);
      return left.length;
    }
    return 0;
  }
}

/** Resolves true when `p` settles first, false when `ms` passes first. */
async function withDeadline(p: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([p.then(() => true as const), deadline]);
  } finally {
    clearTimeout(timer);
  }
}
