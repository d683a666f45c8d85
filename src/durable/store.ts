/**
 * The run store: one interface over everything a durable run persists (records.ts: the run row, its
 * call records, recorded non-deterministic values, approvals and events). Two implementations hold
 * it: sqlite-store.ts (embedded, one process) and sql-store.ts (PostgreSQL, shared by replicas); one
 * contract suite (test/durable/store.test.ts) runs against both.
 */
import type { JsonValue } from '../json.js';
import type {
  ApprovalFilter,
  ApprovalRecord,
  ApprovalStatus,
  CallRecord,
  CallResolution,
  CreatedRun,
  Fence,
  NewApproval,
  NewCall,
  NewRun,
  RecordedKind,
  RecordedValue,
  RunEvent,
  RunExpect,
  RunFilter,
  RunPatch,
  RunRecord,
  RunStatus,
  Resumed,
  ScopeUsage,
  Settled,
  Settlement,
  StoreStats,
  WaitOptions,
} from './records.js';
export * from './records.js';
export * from './stored-events.js';

/**
 * Persists durable runs. Every method rejects only on a store failure (connection lost, disk
 * full) with an IsocodeError (`STORE_UNAVAILABLE` when it cannot be reached); unknown ids — and ids
 * no run could have (empty, over 200 characters, control characters) — resolve to `undefined` or
 * `false`. Every string and JSON value is stored and read back exactly, whatever code points it
 * holds (U+0000, lone surrogates, every control character).
 */
export interface RunStore {
  /** A name for logs and figures. */
  readonly kind: 'sqlite' | 'postgres';

  /**
   * Inserts a run (see {@link NewRun.lease} and {@link NewRun.idempotencyKey}) with its first
   * `status` event, in the same transaction: `{ status: 'queued' }` without a lease, the life's
   * start ({@link lifeEventData}) with one.
   */
  createRun(run: NewRun): Promise<CreatedRun>;
  /** The run; with `scope`, only if it belongs to that scope. */
  getRun(id: string, scope?: string): Promise<RunRecord | undefined>;
  listRuns(filter?: RunFilter): Promise<RunRecord[]>;
  /**
   * Applies `patch` if every `expect` condition holds (compare-and-set).
   * @returns the updated run, or undefined when the run is unknown or a condition failed.
   */
  updateRun(id: string, patch: RunPatch, expect?: RunExpect): Promise<RunRecord | undefined>;
  /**
   * Changes the run's status to `status` if it is one of `from`, with its `status` event
   * (`{ status }`), in one transaction: a status never changes without its event, and a settled
   * run gets none after its result.
   * @returns the updated run, or undefined when the run is unknown or its status was not one of `from`.
   */
  changeStatus(
    id: string,
    status: RunStatus,
    from: readonly RunStatus[],
  ): Promise<RunRecord | undefined>;
  /**
   * Takes a run for `owner` until `leaseExpiresAt`, bumping its epoch, when it is claimable at
   * `now`: not final, not `interrupted`, and either unowned or its lease lapsed; a parked run only
   * once none of its approvals is pending (the claim clears `parked`). A `queued` run becomes
   * `running` with `startedAt` now. The life's start event ({@link lifeEventData}) is written in
   * the same transaction.
   * @returns the claimed run (its new epoch is the fence of this life), or undefined.
   */
  claimRun(
    id: string,
    owner: string,
    leaseExpiresAt: number,
    now: number,
  ): Promise<RunRecord | undefined>;
  /**
   * Runs {@link claimRun} would take at `now` (queued, lapsed, unparked): what a replica with free
   * slots picks from. Scopes take turns — each scope's oldest, then each one's second oldest… — so
   * one tenant's backlog never hides another tenant's queued run. Runs of `skipScopes` are left out
   * (scopes the asking replica has no slot for, or does not serve), so they never hide the others.
   */
  listClaimable(now: number, limit?: number, skipScopes?: readonly string[]): Promise<RunRecord[]>;
  /** Extends the lease of the life `fence` until `leaseExpiresAt`. @returns false when the fence no longer holds. */
  renewLease(id: string, fence: Fence, leaseExpiresAt: number): Promise<boolean>;
  /**
   * Gives the run up (owner and lease cleared, epoch kept), with `parked` set when asked: a parked
   * run is not claimable while one of its approvals is pending; parking writes its `status` event
   * (`{ status: 'waiting-approval', parked: true }`) in the same transaction.
   * @returns false when the fence no longer holds.
   */
  releaseRun(
    id: string,
    fence: Fence,
    options?: { parked?: boolean | undefined },
  ): Promise<boolean>;
  /**
   * Writes a run's terminal (or `interrupted`) state and its events in ONE transaction, fenced:
   * the run's owner and epoch must still be `fence` (`fence: null`: the run must be unowned or its
   * lease lapsed before now — a cancel of an orphan), and it must not be settled yet.
   * Clears owner, lease and `parked`. @returns what it wrote, or undefined when the fence failed.
   */
  settleRun(id: string, fence: Fence | null, settlement: Settlement): Promise<Settled | undefined>;

  /**
   * Journals a call's arrival as `pending`, unless (run id, key) exists; fenced on the run's epoch.
   * @returns `inserted: true` and the new record, `inserted: false` and the existing one, or
   *   undefined when the fence no longer holds.
   */
  recordArrival(
    call: NewCall,
    fence: Fence,
  ): Promise<{ inserted: boolean; record: CallRecord } | undefined>;
  /**
   * `pending` → `started`, fenced on the run's epoch, in one compare-and-set: true for exactly one
   * life, and only while `fence` is the run's current one. A body runs only after this returned true.
   */
  markCallStarted(runId: string, key: string, fence: Fence): Promise<boolean>;
  /**
   * Settles a `pending` or `started` call record with the run's next completion number.
   * @returns false when no such unsettled record exists.
   */
  finishCall(
    runId: string,
    key: string,
    status: 'ok' | 'error',
    result: JsonValue,
  ): Promise<boolean>;
  /**
   * Puts a `started` call back to `pending` or settles it by hand, unfenced (a life's retry of a
   * call whose body failed before it could have taken effect).
   * @returns false when no such `started` record exists.
   */
  resolveCall(runId: string, key: string, resolution: CallResolution): Promise<boolean>;
  /**
   * Resolves an `interrupted` run's `started` call by hand and queues the run, in ONE transaction:
   * the call settled `ok`/`error` with `result` (or back to `pending`: its body runs again in the
   * next life), the run `queued` with its error cleared, and a `status` event with `data`. A crash
   * or a second resolution can therefore never leave the call resolved and the run interrupted.
   * @returns what it did, or undefined for an unknown run.
   */
  resolveInterrupted(
    runId: string,
    key: string,
    resolution: CallResolution,
    data: JsonValue,
  ): Promise<Resumed | undefined>;
  getCall(runId: string, key: string): Promise<CallRecord | undefined>;
  /** A run's calls in the order they arrived. */
  listCalls(runId: string): Promise<CallRecord[]>;
  /** How many calls each of these runs has journaled as started or settled (runs without are absent). */
  countCalls(runIds: readonly string[]): Promise<Map<string, number>>;

  /** Appends a recorded value, fenced. @returns its sequence number, or undefined when the fence failed. */
  recordValue(
    runId: string,
    kind: RecordedKind,
    value: number,
    fence: Fence,
  ): Promise<number | undefined>;
  /** A run's recorded values in order. */
  listValues(runId: string): Promise<RecordedValue[]>;

  /** Records a pending approval and its run's `approval` event, in one transaction. */
  createApproval(approval: NewApproval): Promise<ApprovalRecord>;
  /** The approval; with `scope`, only if it belongs to that scope. */
  getApproval(id: string, scope?: string): Promise<ApprovalRecord | undefined>;
  listApprovals(filter?: ApprovalFilter): Promise<ApprovalRecord[]>;
  /**
   * Settles a pending approval (first decision wins) with its run's `approval` event, in one
   * transaction, and wakes its waiters and every replica's dispatcher ({@link onWake}).
   * @returns the settled approval, or undefined when unknown, of another scope, or already settled.
   */
  decideApproval(
    id: string,
    status: Exclude<ApprovalStatus, 'pending'>,
    decidedBy: string,
    scope?: string,
  ): Promise<ApprovalRecord | undefined>;
  /**
   * Settles `unavailable` (by `decidedBy`) every pending approval whose `expiresAt` passed before
   * `now`, each with its run's `approval` event, in one transaction.
   */
  expireApprovals(now: number, decidedBy: string): Promise<ApprovalRecord[]>;
  /**
   * Resolves when the approval is no longer pending (from this or any replica), or when the signal
   * aborts or the time-out passes (then with the approval still pending). Undefined for an unknown id.
   */
  waitForDecision(id: string, options?: WaitOptions): Promise<ApprovalRecord | undefined>;

  /**
   * Subscribes to every event this store object appends (by {@link appendEvent}, or with the change
   * it belongs to: an approval's, a status's, a settlement's), each once its transaction committed,
   * in order; a rolled-back one's never. The one way this replica's listeners hear of events;
   * another replica's are only in {@link listEvents}.
   * @returns the unsubscribe function.
   */
  onEvent(listener: (event: RunEvent) => void): () => void;

  /**
   * Appends an event with the run's next sequence number.
   * @returns undefined for an unknown run, or a settled one (its stream ended with its result).
   */
  appendEvent(runId: string, type: string, data: JsonValue): Promise<RunEvent | undefined>;
  /** A run's events with `seq > afterSeq`, in order. */
  listEvents(runId: string, afterSeq?: number, limit?: number): Promise<RunEvent[]>;

  /**
   * Subscribes to "something may be claimable" signals from every replica: a run created
   * `queued`, released or parked-then-decided (PostgreSQL: NOTIFY; embedded: in process).
   * @returns the unsubscribe function.
   */
  onWake(listener: () => void): () => void;

  /** A scope's use (quotas). */
  usage(scope: string): Promise<ScopeUsage>;
  /** The whole store's size (metrics). */
  stats(): Promise<StoreStats>;
  /**
   * Deletes up to `limit` settled runs (final, `finishedAt` before `before`) with everything they
   * hold. @returns how many it deleted.
   */
  deleteSettled(before: number, limit?: number): Promise<number>;
  /** Rejects (STORE_UNAVAILABLE) unless the store answers now. */
  ping(): Promise<void>;

  /** Releases connections (and the embedded database). Idempotent. */
  close(): Promise<void>;
}

/** The run methods of {@link RunStore} (one module per engine: sqlite-runs.ts, sql-runs.ts). */
export type RunStoreRuns = Pick<
  RunStore,
  | 'createRun'
  | 'getRun'
  | 'listRuns'
  | 'updateRun'
  | 'changeStatus'
  | 'claimRun'
  | 'listClaimable'
  | 'renewLease'
  | 'releaseRun'
  | 'settleRun'
>;
/** The journal methods of {@link RunStore}: calls, recorded values, events (sqlite-journal.ts, sql-journal.ts). */
export type RunStoreJournal = Pick<
  RunStore,
  | 'recordArrival'
  | 'markCallStarted'
  | 'finishCall'
  | 'resolveCall'
  | 'resolveInterrupted'
  | 'getCall'
  | 'listCalls'
  | 'countCalls'
  | 'recordValue'
  | 'listValues'
  | 'appendEvent'
  | 'listEvents'
>;
/** The approval methods of {@link RunStore} but the wait (sqlite-approvals.ts, sql-approvals.ts). */
export type RunStoreApprovals = Pick<
  RunStore,
  'createApproval' | 'getApproval' | 'listApprovals' | 'decideApproval' | 'expireApprovals'
>;
