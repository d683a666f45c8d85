/**
 * The run store: one interface over everything a durable run persists (the run row, its call
 * records, recorded non-deterministic values, approvals and events). Two
 * implementations hold it: sqlite-store.ts (embedded, one process) and sql-store.ts (PostgreSQL, shared
 * by replicas); one contract suite (test/durable/store.test.ts) runs against both.
 *
 * Times are milliseconds since the epoch. JSON columns hold plain JSON ({@link JsonValue}).
 */
import type { JsonValue } from '../json.js';

/** The life of a run. `succeeded | failed | cancelled` are final; `interrupted` awaits a human or the caller. */
export type RunStatus =
  'queued' | 'running' | 'waiting-approval' | 'succeeded' | 'failed' | 'cancelled' | 'interrupted';

/** Every run status, in life order. */
export const RUN_STATUSES: readonly RunStatus[] = [
  'queued',
  'running',
  'waiting-approval',
  'succeeded',
  'failed',
  'cancelled',
  'interrupted',
];

/** Statuses a run never leaves. */
export const FINAL_STATUSES: readonly RunStatus[] = ['succeeded', 'failed', 'cancelled'];

/** True when `status` is final (the run holds its result or error for good). */
export function isFinalStatus(status: RunStatus): boolean {
  return FINAL_STATUSES.includes(status);
}

/**
 * Who may write a run's journal and state: the replica holding its lease (`owner`) in the life it
 * claimed (`epoch`). Every claim of a run by a replica bumps its epoch; a write fenced by an older
 * epoch changes nothing (docs/decisions/021-replay.md: exactly once by construction).
 */
export interface Fence {
  owner: string;
  epoch: number;
}

/** What every stored record says of how it read back (see `src/durable/rows.ts`). */
export interface Readback {
  /**
   * Stored columns that could not be read (not a value isocode wrote: edited by hand or damaged, or
   * a status this version never writes); each reads as empty (text) or 0 (a number). Absent when
   * the row read whole.
   */
  damaged?: string[] | undefined;
}

/** A persisted run. */
export interface RunRecord extends Readback {
  id: string;
  scope: string;
  /** The program's TypeScript source. */
  program: string;
  description: string | undefined;
  status: RunStatus;
  /** The replica that holds the run (runs it); undefined when nobody does (queued, parked, released). */
  owner: string | undefined;
  /** When the owner's lease lapses unless renewed. */
  leaseExpiresAt: number | undefined;
  /** Bumped by every claim: 0 for a run never claimed, 1 in its first life, 2 in the next… */
  epoch: number;
  /**
   * Its sandbox was released while every live call waits for a human: nobody holds it, and it is
   * claimable again only once none of its approvals is pending (a decision, a time-out or a cancel).
   */
  parked: boolean;
  /** The limits the run was started with (JSON, as the caller gave them). */
  limits: JsonValue | undefined;
  /** The run_code ToolResult JSON once settled. */
  result: JsonValue | undefined;
  /** The error (`{code, message, ...}`) of a failed, cancelled or interrupted run. */
  error: JsonValue | undefined;
  /** The client's `Idempotency-Key`, when it gave one. */
  idempotencyKey: string | undefined;
  /** A digest of the request that created the run (compared on a retry with the same key). */
  requestHash: string | undefined;
  /** Bytes this run holds in the store (program, events, calls, values, result), as counted on write. */
  bytes: number;
  createdAt: number;
  updatedAt: number;
  startedAt: number | undefined;
  finishedAt: number | undefined;
}

/** What {@link RunStore.createRun} needs. */
export interface NewRun {
  id: string;
  scope: string;
  program: string;
  description?: string | undefined;
  limits?: JsonValue | undefined;
  /**
   * Inserted already held: `running`, owned by `lease.owner` until `lease.expiresAt`, epoch 1,
   * `startedAt` now — one statement, so no other replica can ever see it unleased.
   * Without it the run is inserted `queued`, unowned, epoch 0.
   */
  lease?: { owner: string; expiresAt: number } | undefined;
  /** With `requestHash`: a second create with the same (scope, key) returns the first run. */
  idempotencyKey?: string | undefined;
  requestHash?: string | undefined;
}

/** What {@link RunStore.createRun} did. */
export interface CreatedRun {
  run: RunRecord;
  /** False when a run with the same (scope, idempotency key) existed: `run` is that one, unchanged. */
  created: boolean;
}

/** Fields {@link RunStore.updateRun} may change; `null` clears an optional field. */
export interface RunPatch {
  status?: RunStatus;
  owner?: string | null;
  leaseExpiresAt?: number | null;
  parked?: boolean;
  result?: JsonValue;
  /** `null` clears it (a resolved `interrupted` run queued again). */
  error?: JsonValue | null;
  startedAt?: number;
  /** `null` clears it. */
  finishedAt?: number | null;
}

/** Conditions of a compare-and-set update: every given one must hold or nothing changes. */
export interface RunExpect {
  /** The run's status must be one of these. */
  status?: readonly RunStatus[];
  /** The run's owner must be this (`null`: no owner). */
  owner?: string | null;
  /** The run's epoch must be this. */
  epoch?: number;
}

/** Which runs {@link RunStore.listRuns} returns (newest first). */
export interface RunFilter {
  scope?: string | undefined;
  status?: readonly RunStatus[] | undefined;
  /** Only runs whose lease lapsed before this time (or that have no lease). */
  leaseExpiredBefore?: number | undefined;
  /** Only runs not settled yet (no `finishedAt`). @default false */
  unsettled?: boolean | undefined;
  /** Only the run made with this idempotency key (in `scope`). */
  idempotencyKey?: string | undefined;
  /** Only runs created before this time (paging: the `createdAt` of the last run of the previous page). */
  createdBefore?: number | undefined;
  /** @default 100 */
  limit?: number | undefined;
}

/**
 * The state of a nested call's record: `pending` (arrived; its body has not started: it waits
 * for an approval or its turn), `started` (its body runs or ran), `ok`/`error` (settled).
 */
export type CallStatus = 'pending' | 'started' | 'ok' | 'error';

/** Every call status. */
export const CALL_STATUSES: readonly CallStatus[] = ['pending', 'started', 'ok', 'error'];

/** A nested call of a run, keyed by (run id, call key). */
export interface CallRecord extends Readback {
  runId: string;
  /** A stable key: call site, arguments and occurrence (see replay.ts). */
  key: string;
  name: string;
  args: JsonValue;
  status: CallStatus;
  /** The ToolResult JSON once settled. */
  result: JsonValue | undefined;
  /** The tool declared that running it twice is harmless. */
  idempotent: boolean;
  /** The epoch of the life that started its body (0 while `pending`). */
  epoch: number;
  /** Completion order, 1, 2, 3… per run (settled calls only). */
  finishSeq: number | undefined;
  /** When it arrived. */
  startedAt: number;
  finishedAt: number | undefined;
}

/** What {@link RunStore.recordArrival} records. */
export interface NewCall {
  runId: string;
  key: string;
  name: string;
  args: JsonValue;
  /** @default false */
  idempotent?: boolean | undefined;
}

/** The kinds of recorded non-deterministic values. */
export type RecordedKind = 'date' | 'random';
export const RECORDED_KINDS: readonly RecordedKind[] = ['date', 'random'];

/** One recorded non-deterministic value, in the order the program drew it. */
export interface RecordedValue extends Readback {
  runId: string;
  /** 1, 2, 3… per run. */
  seq: number;
  kind: RecordedKind;
  value: number;
}

/** The state of an approval. `pending` until decided (by a human, a time-out or a cancel). */
export type ApprovalStatus = 'pending' | 'allowed-once' | 'rejected' | 'cancelled' | 'unavailable';

/** Every approval status. */
export const APPROVAL_STATUSES: readonly ApprovalStatus[] = [
  'pending',
  'allowed-once',
  'rejected',
  'cancelled',
  'unavailable',
];

/** A decision a human can post. */
export type ApprovalDecision = 'allowed-once' | 'rejected';

/** An approval asked by a run's nested call. */
export interface ApprovalRecord extends Readback {
  id: string;
  runId: string;
  /** The key of the asking call (see {@link CallRecord.key}); the executor's call id when none. */
  callKey: string;
  tool: string;
  /** The arguments as the hooks saw them. */
  args: JsonValue;
  scope: string;
  /** The hooks' messages, joined. */
  reason: string;
  status: ApprovalStatus;
  decidedBy: string | undefined;
  decidedAt: number | undefined;
  createdAt: number;
  /** When a pending approval settles `unavailable` if nobody decided it (the sweeper does it). */
  expiresAt: number | undefined;
}

/** What {@link RunStore.createApproval} records. */
export interface NewApproval {
  id: string;
  runId: string;
  callKey: string;
  tool: string;
  args: JsonValue;
  scope: string;
  reason: string;
  /** See {@link ApprovalRecord.expiresAt}. @default never */
  expiresAt?: number | undefined;
}

/** Which approvals {@link RunStore.listApprovals} returns (in creation order, oldest first unless asked). */
export interface ApprovalFilter {
  scope?: string | undefined;
  runId?: string | undefined;
  status?: readonly ApprovalStatus[] | undefined;
  /** Only approvals after this one in the list order (paging). */
  after?: string | undefined;
  /** Newest first instead of oldest first (`after` then pages to older ones). @default false */
  newestFirst?: boolean | undefined;
  /** @default 100 */
  limit?: number | undefined;
}

/** An event of a run, numbered 1, 2, 3… per run (the SSE id). */
export interface RunEvent extends Readback {
  runId: string;
  seq: number;
  /** For example `status`, `log`, `call`, `approval`. */
  type: string;
  data: JsonValue;
  at: number;
}

/** An event to append (the store numbers it). */
export interface NewEvent {
  type: string;
  data: JsonValue;
}

/** Options of {@link RunStore.waitForDecision}. */
export interface WaitOptions {
  /** Stops waiting (resolves with the approval as it stands, still `pending`). */
  signal?: AbortSignal | undefined;
  /** Gives up after this long (resolves with the approval as it stands). @default no limit */
  timeoutMs?: number | undefined;
}

/** What {@link RunStore.settleRun} writes, in one transaction. */
export interface Settlement {
  status: RunStatus;
  result?: JsonValue | undefined;
  error?: JsonValue | undefined;
  /** @default now; `null` leaves it unset (an `interrupted` run is not settled: it can be resolved). */
  finishedAt?: number | null | undefined;
  /** Events appended after the run's own (`status`/`result` are the caller's to include). */
  events: readonly NewEvent[];
  /**
   * Decides every approval of the run still pending `cancelled` by this decider, and appends an
   * `approval` event for each (before `events`). @default undefined: approvals are left alone
   */
  cancelPendingApprovalsAs?: string | undefined;
}

/** What {@link RunStore.settleRun} did. */
export interface Settled {
  run: RunRecord;
  /** Every event it appended, in order (leftover approvals' first, then `events`). */
  events: RunEvent[];
  /** The approvals it cancelled. */
  approvals: ApprovalRecord[];
}

/** One scope's use of the store (quotas). */
export interface ScopeUsage {
  /** Runs `queued` (not yet claimed). */
  queued: number;
  /** Runs not settled (queued, running, waiting, parked, interrupted). */
  unsettled: number;
  /** Bytes its runs hold (sum of {@link RunRecord.bytes}). */
  bytes: number;
}

/** The whole store's size (metrics). */
export interface StoreStats {
  runs: number;
  events: number;
  calls: number;
  approvalsPending: number;
  bytes: number;
}

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

  /** Inserts a run (see {@link NewRun.lease} and {@link NewRun.idempotencyKey}). */
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
   * Takes a run for `owner` until `leaseExpiresAt`, bumping its epoch, when it is claimable at
   * `now`: not final, not `interrupted`, and either unowned or its lease lapsed; a parked run only
   * once none of its approvals is pending (the claim clears `parked`). A `queued` run becomes
   * `running` with `startedAt` now.
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
   * one tenant's backlog never hides another tenant's queued run.
   */
  listClaimable(now: number, limit?: number): Promise<RunRecord[]>;
  /** Extends the lease of the life `fence` until `leaseExpiresAt`. @returns false when the fence no longer holds. */
  renewLease(id: string, fence: Fence, leaseExpiresAt: number): Promise<boolean>;
  /**
   * Gives the run up (owner and lease cleared, epoch kept), with `parked` set when asked: a parked
   * run is not claimable while one of its approvals is pending. @returns false when the fence no longer holds.
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
   * Resolves an `interrupted` run's `started` call by hand: settled `ok`/`error` with `result`, or
   * back to `pending` (retry: its body runs again in the next life).
   * @returns false when no such `started` record exists.
   */
  resolveCall(
    runId: string,
    key: string,
    resolution: { status: 'ok' | 'error'; result: JsonValue } | { status: 'pending' },
  ): Promise<boolean>;
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

  createApproval(approval: NewApproval): Promise<ApprovalRecord>;
  /** The approval; with `scope`, only if it belongs to that scope. */
  getApproval(id: string, scope?: string): Promise<ApprovalRecord | undefined>;
  listApprovals(filter?: ApprovalFilter): Promise<ApprovalRecord[]>;
  /**
   * Settles a pending approval (first decision wins) and wakes its waiters and every replica's
   * dispatcher ({@link onWake}).
   * @returns the settled approval, or undefined when unknown, of another scope, or already settled.
   */
  decideApproval(
    id: string,
    status: Exclude<ApprovalStatus, 'pending'>,
    decidedBy: string,
    scope?: string,
  ): Promise<ApprovalRecord | undefined>;
  /** Settles `unavailable` (by `decidedBy`) every pending approval whose `expiresAt` passed before `now`. */
  expireApprovals(now: number, decidedBy: string): Promise<ApprovalRecord[]>;
  /**
   * Resolves when the approval is no longer pending (from this or any replica), or when the signal
   * aborts or the time-out passes (then with the approval still pending). Undefined for an unknown id.
   */
  waitForDecision(id: string, options?: WaitOptions): Promise<ApprovalRecord | undefined>;

  /** Appends an event with the run's next sequence number. @returns undefined for an unknown run. */
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
