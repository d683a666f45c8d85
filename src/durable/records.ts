/**
 * What a durable run persists, record by record: the run row, its call records, recorded
 * non-deterministic values, approvals and events, with their statuses. The store's contract over
 * them is store.ts; the row mappers that read them back are rows.ts.
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
  /**
   * The outcome the run reached. A run whose stored status is already `cancelled` (a cancel was
   * committed first) settles `cancelled` whatever this says; `interrupted` leaves it unsettled.
   */
  status: RunStatus;
  result?: JsonValue | undefined;
  error?: JsonValue | undefined;
  /** When it settled. @default now (an `interrupted` run has none: it can still be resolved) */
  finishedAt?: number | undefined;
  /**
   * Decides every approval of the run still pending `cancelled` by this decider, and appends an
   * `approval` event for each (before the run's own). @default undefined: approvals are left alone
   */
  cancelPendingApprovalsAs?: string | undefined;
}

/** What {@link RunStore.settleRun} did. */
export interface Settled {
  run: RunRecord;
  /** Every event it appended, in order (leftover approvals' first, then the run's). */
  events: RunEvent[];
  /** The approvals it cancelled. */
  approvals: ApprovalRecord[];
}

/** How a human resolved an interrupted run's call: it took effect, it failed, or run it again. */
export type CallResolution = { status: 'ok' | 'error'; result: JsonValue } | { status: 'pending' };

/**
 * What {@link RunStore.resolveInterrupted} did: the run queued with its `status` event, or why not
 * (`not-interrupted`: the run is in another state; `not-started`: it holds no such started call,
 * for instance because a resolution came first).
 */
export type Resumed = { run: RunRecord; event: RunEvent } | 'not-interrupted' | 'not-started';

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
