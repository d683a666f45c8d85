/**
 * A small typed emitter whose listener failures are contained: a listener that throws or rejects
 * never breaks the emitter's caller, it is only counted.
 */

/** A listener of an {@link Emitter}; it may return a promise (a rejection is contained too). */
export type Listener<Args extends unknown[]> = (...args: Args) => unknown;

/** Synchronous fan-out to a set of listeners, in subscription order. */
export class Emitter<Args extends unknown[]> {
  readonly #listeners = new Set<Listener<Args>>();
  #failures = 0;

  /** Subscribes; returns the unsubscribe function. */
  on(listener: Listener<Args>): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** True when nobody listens (lets hot paths skip building what they would emit). */
  get idle(): boolean {
    return this.#listeners.size === 0;
  }

  /** How many listener calls threw or rejected. */
  get failures(): number {
    return this.#failures;
  }

  /** Calls every listener; a throw or a rejection is counted, never propagated. */
  emit(...args: Args): void {
    for (const listener of this.#listeners) {
      try {
        const r = listener(...args);
        if (isThenable(r)) r.then(undefined, () => void this.#failures++);
      } catch {
        this.#failures++;
      }
    }
  }
}

const isThenable = (value: unknown): value is PromiseLike<unknown> =>
  typeof value === 'object' &&
  value !== null &&
  typeof (value as { then?: unknown }).then === 'function';
