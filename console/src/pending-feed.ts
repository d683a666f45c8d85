/**
 * The scope's pending approvals as the server pushes them (`GET /v1/approvals/events`): one stream
 * per signed-in tab, shared by the nav badge and the views, so an idle tab makes no requests but
 * that one (decision 023). A listener hears the latest set at once and after each change.
 */
import type { Api, ApiError } from './api.js';

/** What a listener is told: the ids of the pending approvals, oldest first. */
export type PendingListener = (ids: readonly string[]) => void;

/** The shared pending-approvals feed. */
export class PendingFeed {
  readonly #listeners = new Set<PendingListener>();
  readonly #controller = new AbortController();
  #ids: readonly string[] | undefined;

  /**
   * Starts following.
   * @param onClosed told when the server refuses the stream (no durable runs: 404; a refused key).
   */
  constructor(api: Api, onClosed: (error: ApiError | undefined) => void) {
    void api.follow(
      '/v1/approvals/events',
      (event) => {
        if (event.type !== 'pending') return;
        let ids: unknown;
        try {
          ids = (JSON.parse(event.data) as { ids?: unknown }).ids;
        } catch {
          return;
        }
        if (!Array.isArray(ids) || !ids.every((id) => typeof id === 'string')) return;
        this.#ids = ids;
        for (const l of this.#listeners) l(this.#ids);
      },
      (state, error) => {
        if (state === 'closed') onClosed(error);
      },
      this.#controller.signal,
    );
  }

  /** Listens (told the latest set at once, if one arrived); returns the function that stops it. */
  subscribe(listener: PendingListener): () => void {
    this.#listeners.add(listener);
    if (this.#ids !== undefined) listener(this.#ids);
    return () => this.#listeners.delete(listener);
  }

  /** Stops the stream. */
  close(): void {
    this.#controller.abort();
    this.#listeners.clear();
  }
}
