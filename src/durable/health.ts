/**
 * The run store as a dependency: whether it answers, and how big it is, as last seen. Refreshed in
 * the background (the dispatch loop's upkeep, at most every `everyMs`), so `/healthz` and
 * `/metrics` read it without waiting on the store.
 */
import { thrownText } from '../errors.js';
import type { RunStore, StoreStats } from './store.js';

/** The store's health as last seen. */
export interface StoreHealthState {
  /** `ok`, `unreachable` (the last ping failed), or `unknown` before the first ping. */
  status: 'ok' | 'unreachable' | 'unknown';
  /** The last failure's message (status `unreachable`). */
  message?: string | undefined;
  /** When it was last checked (ms since the epoch; 0 before the first check). */
  checkedAt: number;
  /** The store's size at the last successful check. */
  stats?: StoreStats | undefined;
}

/** Tracks a store's health. */
export class StoreHealth {
  readonly #store: RunStore;
  readonly #everyMs: number;
  #state: StoreHealthState = { status: 'unknown', checkedAt: 0 };
  #checking: Promise<void> | undefined;

  constructor(store: RunStore, everyMs = 5000) {
    this.#store = store;
    this.#everyMs = everyMs;
  }

  get state(): StoreHealthState {
    return this.#state;
  }

  /** Checks now unless a check is under way or the last one is recent (`force` skips the latter). */
  refresh(force = false): Promise<void> {
    if (this.#checking !== undefined) return this.#checking;
    if (!force && Date.now() - this.#state.checkedAt < this.#everyMs) return Promise.resolve();
    this.#checking = (async () => {
      try {
        await this.#store.ping();
        const stats = await this.#store.stats().catch(() => this.#state.stats);
        this.#state = { status: 'ok', checkedAt: Date.now(), stats };
      } catch (error) {
        this.#state = {
          status: 'unreachable',
          message: thrownText(error),
          checkedAt: Date.now(),
          stats: this.#state.stats,
        };
      } finally {
        this.#checking = undefined;
      }
    })();
    return this.#checking;
  }
}
