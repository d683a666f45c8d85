/**
 * Waiters of approval decisions on this replica, shared by both stores: a waiter registers before
 * it reads (so a decision between the read and the wait is not missed), is woken by a local
 * decision or a notification, and re-reads at least every `pollMs` (lost notifications).
 */
import type { ApprovalRecord, WaitOptions } from './records.js';

/** The waiters of one store. */
export class ApprovalWaiters {
  readonly #waiters = new Map<string, Set<() => void>>();
  readonly #pollMs: number;

  constructor(pollMs: number) {
    this.#pollMs = Math.max(10, pollMs);
  }

  /** Wakes the waiters of approval `id` (`*`: every waiter, after notifications may have been lost). */
  wake(id: string): void {
    const ids = id === '*' ? [...this.#waiters.keys()] : [id];
    for (const one of ids) for (const w of this.#waiters.get(one) ?? []) w();
  }

  /**
   * Resolves once `read(id)` is no longer pending, or the signal aborts, the time-out passes or
   * `closed()` (then with the approval as it stands). Undefined for an unknown id.
   */
  async wait(
    id: string,
    read: (id: string) => Promise<ApprovalRecord | undefined>,
    options: WaitOptions,
    closed: () => boolean,
  ): Promise<ApprovalRecord | undefined> {
    const { signal, timeoutMs } = options;
    const deadline = timeoutMs === undefined ? Infinity : Date.now() + timeoutMs;
    for (;;) {
      let woken = false;
      let resume: () => void = () => undefined;
      const waiter = (): void => {
        woken = true;
        resume();
      };
      let set = this.#waiters.get(id);
      if (!set) this.#waiters.set(id, (set = new Set()));
      set.add(waiter); // before reading
      try {
        const approval = await read(id);
        if (!approval || approval.status !== 'pending') return approval;
        if (signal?.aborted || Date.now() >= deadline || closed()) return approval;
        if (!woken)
          await new Promise<void>((resolve) => {
            const timer = setTimeout(
              done,
              Math.min(this.#pollMs, Math.max(0, deadline - Date.now())),
            );
            function done(): void {
              clearTimeout(timer);
              signal?.removeEventListener('abort', done);
              resolve();
            }
            resume = done;
            signal?.addEventListener('abort', done, { once: true });
          });
      } finally {
        set.delete(waiter);
        if (set.size === 0) this.#waiters.delete(id);
      }
    }
  }
}
