/**
 * The life of one run_code execution as a parent: its token, its signal and its nested-call
 * scheduler, and what happens when it settles.
 */
import { PauseClock } from '../pause-clock.js';
import { setMaxListeners } from 'node:events';
import type { ParentToken } from '../tools/types.js';
import { onAbort } from './abort-fanout.js';
import type { Approver } from './approval.js';
import { NestedScheduler } from './scheduler.js';
import type { ParentEntry, TokenTable } from './tokens.js';

/** A live transport execution. */
export interface TransportRun {
  token: ParentToken;
  /** Aborted when the caller aborts or the execution settles; nested calls listen on it. */
  signal: AbortSignal;
  /**
   * Expires the token (no new nested call is accepted), then aborts the run's signal: queued nested
   * calls are released without running, running ones get the abort. Resolves once all of them have
   * settled.
   */
  settle(): Promise<void>;
}

/** Mints the parent token of a run_code execution. */
export function mintTransport(
  tokens: TokenTable,
  maxParallel: number,
  call: { readonly id: string; readonly scope: string; readonly approver: Approver | undefined },
  signal: AbortSignal,
): TransportRun {
  const run = new AbortController();
  // Every nested call of this run listens on its signal; more than 10 at once is expected, not a leak.
  setMaxListeners(0, run.signal);
  // One listener on a caller's signal however many runs share it (abort-fanout.ts).
  const unsubscribe = onAbort(signal, () => run.abort(signal.reason));
  const entry: ParentEntry = {
    callId: call.id,
    scope: call.scope,
    signal: run.signal,
    scheduler: new NestedScheduler(maxParallel),
    inFlight: new Set(),
    clock: new PauseClock(),
    approver: call.approver,
  };
  const token = tokens.mint(entry);
  return {
    token,
    signal: run.signal,
    settle: async () => {
      tokens.expire(token);
      unsubscribe();
      if (!run.signal.aborted) run.abort(new Error('the run_code execution settled'));
      await Promise.allSettled([...entry.inFlight]);
    },
  };
}
