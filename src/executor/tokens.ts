/**
 * Parent tokens: capabilities the executor mints for one live run_code execution. A nested call
 * is accepted only with a token this executor minted for an execution that has not settled.
 */
import { randomBytes } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import type { ParentToken } from '../tools/types.js';
import type { PauseClock } from '../pause-clock.js';
import type { Approver } from './approval.js';
import type { NestedScheduler } from './scheduler.js';

/** What a live token stands for. */
export interface ParentEntry {
  readonly callId: string;
  readonly scope: string;
  /** Aborted when the parent execution settles (or is aborted). */
  readonly signal: AbortSignal;
  readonly scheduler: NestedScheduler;
  /** Nested calls still running; the parent does not settle before they do. */
  readonly inFlight: Set<Promise<unknown>>;
  /** The last caller signal joined with `signal` (see {@link joinedSignal}). */
  joined?: { readonly from: AbortSignal; readonly signal: AbortSignal } | undefined;
  /** The execution's wall clock, paused while a nested call waits on a human. */
  readonly clock: PauseClock;
  /**
   * The approver the run_code call was given (`ExecuteOptions.approver`), which every nested call
   * of the execution uses; undefined for the runtime's. The token is its one owner.
   */
  readonly approver: Approver | undefined;
}

/**
 * A nested call's signal: the caller's joined with the parent execution's. A run's calls come with
 * one caller signal (the sandbox's), so the join is made once per run, not once per call.
 */
export function joinedSignal(entry: ParentEntry, from: AbortSignal): AbortSignal {
  const last = entry.joined;
  if (last !== undefined && last.from === from) return last.signal;
  const signal = AbortSignal.any([from, entry.signal]);
  // Every call of the run listens on it: many at once is expected, not a leak.
  setMaxListeners(0, signal);
  entry.joined = { from, signal };
  return signal;
}

/** The live tokens of one executor. */
export class TokenTable {
  readonly #live = new Map<string, ParentEntry>();

  mint(entry: ParentEntry): ParentToken {
    const token = `ptk_${randomBytes(24).toString('base64url')}` as ParentToken;
    this.#live.set(token, entry);
    return token;
  }

  /** The entry of a live token; undefined for forged, foreign or expired tokens. */
  lookup(token: unknown): ParentEntry | undefined {
    return typeof token === 'string' ? this.#live.get(token) : undefined;
  }

  expire(token: ParentToken): void {
    this.#live.delete(token);
  }

  get size(): number {
    return this.#live.size;
  }
}
