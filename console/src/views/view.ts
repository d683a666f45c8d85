/** What every view gets and returns. */
import type { Api } from '../api.js';
import type { PendingListener } from '../pending-feed.js';

/** The shell's services for a view. */
export interface ViewContext {
  api: Api;
  /** Shows an error (or clears it with `undefined`) in the shell's banner. */
  report(error: unknown): void;
  /** Listens to the scope's pending approvals, pushed by the server; returns the stop function. */
  onPending(listener: PendingListener): () => void;
}

/** A mounted view; `dispose` stops its timers and streams. */
export interface View {
  root: HTMLElement;
  dispose(): void;
}

/**
 * Calls `tick` now and then every `ms` (read again after each tick) until disposed; a tick never
 * overlaps the previous one.
 * @returns the stop function.
 */
export function every(
  ms: number | (() => number),
  tick: (signal: AbortSignal) => Promise<void>,
): () => void {
  const controller = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const loop = async (): Promise<void> => {
    if (controller.signal.aborted) return;
    try {
      await tick(controller.signal);
    } catch {
      // the tick reports its own errors
    }
    if (!controller.signal.aborted)
      timer = setTimeout(() => void loop(), typeof ms === 'number' ? ms : ms());
  };
  void loop();
  return () => {
    controller.abort();
    if (timer !== undefined) clearTimeout(timer);
  };
}
