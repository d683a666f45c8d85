/**
 * One `abort` listener per signal, fanned out to any number of subscribers. Many calls share a
 * signal (a caller's signal given to a batch of concurrent runs, a run's signal shared by its nested
 * calls): each subscribing with its own `addEventListener` grows the signal's listener list with
 * the load (and trips Node's MaxListenersExceededWarning at 11); here the signal holds one.
 */

const subscribers = new WeakMap<AbortSignal, Set<() => void>>();

/**
 * Calls `listener` once when `signal` aborts (synchronously, now, when it already has). Returns
 * the unsubscribe function; unsubscribing after the abort is harmless.
 */
export function onAbort(signal: AbortSignal, listener: () => void): () => void {
  if (signal.aborted) {
    listener();
    return () => undefined;
  }
  let set = subscribers.get(signal);
  if (set === undefined) {
    const fresh = new Set<() => void>();
    set = fresh;
    subscribers.set(signal, fresh);
    signal.addEventListener(
      'abort',
      () => {
        subscribers.delete(signal);
        for (const fn of fresh) fn();
        fresh.clear();
      },
      { once: true },
    );
  }
  const own = set;
  const entry = (): void => listener();
  own.add(entry);
  return () => void own.delete(entry);
}
