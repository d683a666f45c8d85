/**
 * JSON-RPC request ids in flight in one MCP HTTP session. The SDK's streamable-HTTP transport keys
 * its answer routing by request id: a second request that reuses an id still in flight takes the
 * first one's route, so the first request's answer goes to the second's stream and the first waits
 * forever. A reused id is refused here instead, at once, with JSON-RPC's Invalid Request; the id is
 * free again once its request's answer has been sent (or its client went away).
 */

/** The ids of the requests in a JSON-RPC message or batch (not notifications, not responses). */
export function requestIdsOf(message: unknown): (string | number)[] {
  const ids: (string | number)[] = [];
  for (const m of Array.isArray(message) ? (message as unknown[]) : [message]) {
    if (typeof m !== 'object' || m === null) continue;
    const { id, method } = m as { id?: unknown; method?: unknown };
    if (typeof method === 'string' && (typeof id === 'string' || typeof id === 'number'))
      ids.push(id);
  }
  return ids;
}

/** A JSON-RPC id as a key: `1` and `"1"` are different ids. */
const keyOf = (id: string | number): string => `${typeof id}:${String(id)}`;

/** The ids in flight in one session. */
export class RequestIds {
  readonly #live = new Set<string>();

  /**
   * Claims `ids`, all or none. @returns the function that frees them (call it once the request's
   * answer has been sent), or the ids that are already in flight (or repeated within `ids`).
   */
  claim(ids: readonly (string | number)[]): (() => void) | { taken: (string | number)[] } {
    const seen = new Set<string>();
    const taken = ids.filter((id) => {
      const key = keyOf(id);
      const clash = this.#live.has(key) || seen.has(key);
      seen.add(key);
      return clash;
    });
    if (taken.length > 0) return { taken };
    for (const key of seen) this.#live.add(key);
    let freed = false;
    return () => {
      if (freed) return;
      freed = true;
      for (const key of seen) this.#live.delete(key);
    };
  }
}
