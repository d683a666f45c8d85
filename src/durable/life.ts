/**
 * One life of a durable run on this replica: from the claim (or the leased insert) to the moment
 * the replica lets go of it. Every life runs the program through the run's journal
 * (`executeDurably`); how it ends decides what is written, each in ONE fenced store write:
 * - settled (succeeded, failed, cancelled) or `interrupted`: `settleRun` writes the state, the
 *   leftover approvals and the `result` event in one transaction (the store decides them: a cancel
 *   committed first wins), retried with backoff while the store is unreachable; an outcome the
 *   store refuses to hold is replaced by a storable failure, so a run is never left `running`
 *   because a write failed;
 * - parked (every live call waited for a human for `parkAfterMs`): `releaseRun(parked)`, the
 *   sandbox and the run slot are given back, and a decision lets any replica claim it again;
 * - this replica is shutting down: `releaseRun`, so another replica claims it at once;
 * - the lease was lost: nothing (the new holder owns every write).
 */
import { thrownText } from '../errors.js';
import type { JsonValue } from '../json.js';
import type { Runtime } from '../runtime-types.js';
import { ISOCODE_DECIDER } from './approvals.js';
import { executeDurably } from './execute.js';
import { journalStoreOf } from './journal-store.js';
import type { Lease, SlotRelease } from './recovery.js';
import type { ReplayVerdict } from './journal-types.js';
import type { RunRecord, RunStatus, RunStore } from './store.js';

/** What a life needs of its manager. */
export interface LifeDeps {
  runtime: Runtime;
  store: RunStore;
  replicaId: string;
  /** How long every live call must wait for a human before the run is parked; false: never. */
  parkAfterMs: number | false;
  /** How long a settlement keeps being retried while the store is unreachable, in ms. */
  settleRetryMs: number;
  /** True once the replica is shutting down. */
  closing(): boolean;
}

/** A life in progress on this replica. */
export interface LocalRun {
  readonly id: string;
  readonly scope: string;
  readonly controller: AbortController;
  /** Approvals this life asked that are still pending. */
  readonly pending: Set<string>;
  /** Why the life is ending on purpose, when it is: approvals then stay pending for the next life. */
  ending: 'parking' | 'closing' | undefined;
  /** Appends in order. */
  chain: Promise<unknown>;
  /** Settles when the life is over here (whatever was written). */
  done: Promise<void>;
  /** Re-evaluates the parking rule (an approval was asked or settled). */
  watch(): void;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const codeOf = (e: unknown): unknown =>
  typeof e === 'object' && e !== null ? (e as { code?: unknown }).code : undefined;
const corrupt = (message: string): ReplayVerdict => ({
  status: 'failed',
  error: { code: 'STORE_CORRUPT', message },
});
/** Plain JSON of a value the program or the executor produced (drops undefined, functions). */
const plain = (value: unknown): JsonValue =>
  value === undefined ? null : (JSON.parse(JSON.stringify(value) ?? 'null') as JsonValue);

/** Appends `data` as a run event after the run's earlier appends; a lost event never breaks the run. */
export function appendInOrder(
  deps: Pick<LifeDeps, 'store'>,
  run: Pick<LocalRun, 'id' | 'chain'>,
  type: string,
  data: JsonValue,
): Promise<unknown> {
  return (run.chain = run.chain
    .then(() => deps.store.appendEvent(run.id, type, data))
    .catch(() => undefined));
}

/**
 * Starts one life of `record`, held by `lease`, in run slot `slot` (released when the life ends).
 * `onEnd` is told once it is over here.
 */
export function startLife(
  deps: LifeDeps,
  record: RunRecord,
  lease: Lease,
  slot: SlotRelease,
  onEnd: (run: LocalRun) => void,
): LocalRun {
  const { id, scope } = record;
  const controller = new AbortController();
  let bodies = 0;
  let parkTimer: NodeJS.Timeout | undefined;
  const run: LocalRun = {
    id,
    scope,
    controller,
    pending: new Set(),
    ending: undefined,
    chain: Promise.resolve(),
    done: Promise.resolve(),
    watch,
  };
  /** Every live call waits for a human (none of their bodies runs): park after the grace period. */
  function watch(): void {
    const idle = run.pending.size > 0 && bodies === 0;
    if (!idle || deps.parkAfterMs === false || controller.signal.aborted) {
      if (parkTimer !== undefined) clearTimeout(parkTimer);
      parkTimer = undefined;
      return;
    }
    if (parkTimer !== undefined) return;
    parkTimer = setTimeout(() => {
      parkTimer = undefined;
      if (run.pending.size === 0 || bodies > 0 || controller.signal.aborted) return;
      run.ending = 'parking';
      controller.abort(new Error('parked'));
    }, deps.parkAfterMs);
    parkTimer.unref();
  }
  // The life's start event was written with the claim (or the leased insert) that began it.
  const life = AbortSignal.any([controller.signal, lease.signal]);
  // A run whose stored record or journal does not read whole is failed, never run (again): what it
  // would run, or which of its calls already took effect, is not known.
  const executed: Promise<ReplayVerdict> =
    record.damaged !== undefined
      ? Promise.resolve(
          corrupt(
            `the stored record of this run cannot be read (${record.damaged.join(', ')}); it was not run`,
          ),
        )
      : executeDurably(
          deps.runtime,
          journalStoreOf(deps.store, lease.fence),
          { id, scope, program: record.program, description: record.description },
          {
            signal: life,
            callId: runCallIdOf(id),
            slot,
            // The console tells a queued call from a running one by this event (decision 023).
            onBodyStart: (callId) =>
              void appendInOrder(deps, run, 'call-running', { callId, at: Date.now() }),
            onBodies: (n) => {
              bodies = n;
              watch();
            },
          },
        ).catch((error: unknown) => {
          if (codeOf(error) === 'STORE_CORRUPT') return corrupt(thrownText(error));
          throw error;
        });
  run.done = executed
    .then(async (verdict) => {
      if (parkTimer !== undefined) clearTimeout(parkTimer);
      await run.chain;
      if (lease.signal.aborted && run.ending === undefined) return; // lost: the new holder decides
      if (run.ending === undefined && deps.closing()) run.ending = 'closing';
      if (run.ending !== undefined) return letGo(deps, run, lease);
      await settle(deps, run, lease, verdict);
    })
    .catch(() => undefined)
    .finally(() => {
      if (parkTimer !== undefined) clearTimeout(parkTimer);
      slot();
      onEnd(run);
    });
  return run;
}

// `http-` ids are reserved for server-made ids on the HTTP face: no client can pose as a run's call.
const RUN_CALL_PREFIX = 'http-run-';

/** The run_code call id a background run's life executes as. */
export function runCallIdOf(runId: string): string {
  return `${RUN_CALL_PREFIX}${runId}`;
}

/** Parks the run (its approvals stay pending) or releases it for another replica (shutdown). */
async function letGo(deps: LifeDeps, run: LocalRun, lease: Lease): Promise<void> {
  const parked = run.ending === 'parking';
  // A parked release writes its own status event (one transaction).
  await deps.store.releaseRun(run.id, lease.fence, { parked }).catch(() => false);
}

/** The settlement of a verdict (the run's final state, or `interrupted`). */
function settlementOf(
  run: LocalRun,
  verdict: ReplayVerdict,
): { status: RunStatus; result: JsonValue | undefined; error: JsonValue | undefined } {
  const cancelled = run.controller.signal.aborted;
  const status: RunStatus =
    verdict.status === 'succeeded' || !cancelled ? verdict.status : 'cancelled';
  const result = verdict.status === 'interrupted' ? undefined : plain(verdict.result);
  const error = verdict.status === 'succeeded' ? undefined : plain(verdict.error);
  return { status, result: result === null ? undefined : result, error };
}

/**
 * Writes the run's outcome in one transaction (state, leftover approvals, `result` event), retried
 * while the store is unreachable; an outcome the store will not hold becomes a storable failure.
 */
async function settle(
  deps: LifeDeps,
  run: LocalRun,
  lease: Lease,
  verdict: ReplayVerdict,
): Promise<void> {
  const { status, result, error } = settlementOf(run, verdict);
  const write = (s: RunStatus, r: JsonValue | undefined, e: JsonValue | undefined) =>
    deps.store.settleRun(run.id, lease.fence, {
      status: s,
      ...(r === undefined ? {} : { result: r }),
      ...(e === undefined ? {} : { error: e }),
      cancelPendingApprovalsAs: ISOCODE_DECIDER,
    });
  const deadline = Date.now() + deps.settleRetryMs;
  for (let delay = 100; ; delay = Math.min(delay * 2, 5000)) {
    try {
      await write(status, result, error);
      break;
    } catch (cause) {
      if (codeOf(cause) === 'STORE_UNAVAILABLE' && Date.now() + delay < deadline) {
        await sleep(delay);
        continue;
      }
      if (codeOf(cause) === 'STORE_UNAVAILABLE') return; // the lease lapses; a later life settles it
      // The store refused the outcome itself: record that, which it can hold, instead.
      const stored = {
        code: 'INTERNAL_ERROR',
        message: `the run ended ${status}, but its outcome could not be stored (${thrownText(cause)}); it is reported as failed`,
      };
      await write('failed', undefined, stored).catch(() => undefined);
      break;
    }
  }
}
