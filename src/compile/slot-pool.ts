/** A fixed set of numbered slots handed out first come, first served; waiting can be aborted. */

import { IsocodeError } from '../errors.js';

interface Waiter {
  resolve(slot: number): void;
  reject(error: Error): void;
}

/** Hands out slot numbers `0..size-1`, one holder each. */
export class SlotPool {
  private readonly free: number[];
  private readonly waiters: Waiter[] = [];

  constructor(size: number) {
    this.free = Array.from({ length: size }, (_, i) => i);
  }

  /** Resolves with a free slot; rejects with `ABORTED` if `signal` aborts first. */
  acquire(signal?: AbortSignal): Promise<number> {
    if (signal?.aborted) return Promise.reject(abortError());
    const slot = this.free.shift();
    if (slot !== undefined) return Promise.resolve(slot);
    return new Promise<number>((resolve, reject) => {
      const onAbort = (): void => {
        const index = this.waiters.indexOf(waiter);
        if (index >= 0) this.waiters.splice(index, 1);
        reject(abortError());
      };
      const waiter: Waiter = {
        resolve: (s) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(s);
        },
        reject: (e) => {
          signal?.removeEventListener('abort', onAbort);
          reject(e);
        },
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiters.push(waiter);
    });
  }

  /** Returns `slot` to the pool (or hands it to the next waiter). */
  release(slot: number): void {
    const next = this.waiters.shift();
    if (next) next.resolve(slot);
    else this.free.push(slot);
  }

  /** Rejects every waiter with `error`. */
  rejectAll(error: Error): void {
    for (const waiter of this.waiters.splice(0)) waiter.reject(error);
  }
}

/** The error of an aborted check. */
export function abortError(): IsocodeError {
  return new IsocodeError('ABORTED', 'the type check was aborted');
}
