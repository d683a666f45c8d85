/**
 * The run store: one interface over everything a durable run persists (the run row, its call
 * records, recorded non-deterministic values, approvals and events). One SQL implementation
 * (sql-store.ts) serves both the embedded PGlite default and PostgreSQL.
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

/** A persisted run. */
export interface RunRecord {
  id: string;
  scope: string;
  /** The program's TypeScript source. */
  program: string;
  description: string | undefined;
  status: RunStatus;
  /** The replica that holds the run (runs it, or parks its approvals); undefined when nobody does. */
  owner: string | undefined;
  /** When the owner's lease lapses unless renewed. */
  leaseExpiresAt: number | undefined;
  /** The limits the run was started with (JSON, as the caller gave them). */
  limits: JsonValue | undefined;
  /** The run_code ToolResult JSON once settled. */
  result: JsonValue | undefined;
  /** The error (`{code, message, ...}`) of a failed, cancelled or interrupted run. */
  error: JsonValue | undefined;
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
  /** @default "queued" */
  status?: RunStatus | undefined;
  owner?: string | undefined;
  leaseExpiresAt?: number | undefined;
}

/** Fields {@link RunStore.updateRun} may change; `null` clears an optional field. */
export interface RunPatch {
  status?: RunStatus;
  owner?: string | null;
  leaseExpiresAt?: number | null;
  result?: JsonValue;
  error?: JsonValue;
  startedAt?: number;
  finishedAt?: number;
}

/** Conditions of a compare-and-set update: every given one must hold or nothing changes. */
export interface RunExpect {
  /** The run's status must be one of these. */
  status?: readonly RunStatus[];
  /** The run's owner must be this (`null`: no owner). */
  owner?: string | null;
}

/** Which runs {@link RunStore.listRuns} returns (newest first). */
export interface RunFilter {
  scope?: string | undefined;
  status?: readonly RunStatus[] | undefined;
  /** Only runs whose lease lapsed before this time (or that have no lease). */
  leaseExpiredBefore?: number | undefined;
  /** Only runs not settled yet (no `finishedAt`). @default false */
  unsettled?: boolean | undefined;
  /** @default 100 */
  limit?: number | undefined;
}

/** The state of a nested call's record. */
export type CallStatus = 'started' | 'ok' | 'error';

/** A nested call of a run, keyed by (run id, call key). */
export interface CallRecord {
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
  startedAt: number;
  finishedAt: number | undefined;
}

/** What {@link RunStore.startCall} records. */
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

/** One recorded non-deterministic value, in the order the program drew it. */
export interface RecordedValue {
  runId: string;
  /** 1, 2, 3… per run. */
  seq: number;
  kind: RecordedKind;
  value: number;
}

/** The state of an approval. `pending` until decided (by a human, a time-out or a cancel). */
export type ApprovalStatus = 'pending' | 'allowed-once' | 'rejected' | 'cancelled' | 'unavailable';

/** A decision a human can post. */
export type ApprovalDecision = 'allowed-once' | 'rejected';

/** An approval asked by a run's nested call. */
export interface ApprovalRecord {
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
}

/** Which approvals {@link RunStore.listApprovals} returns (oldest first). */
export interface ApprovalFilter {
  scope?: string | undefined;
  runId?: string | undefined;
  status?: readonly ApprovalStatus[] | undefined;
  /** @default 100 */
  limit?: number | undefined;
}

/** An event of a run, numbered 1, 2, 3… per run (the SSE id). */
export interface RunEvent {
  runId: string;
  seq: number;
  /** For example `status`, `log`, `call`, `approval`. */
  type: string;
  data: JsonValue;
  at: number;
}

/** Options of {@link RunStore.waitForDecision}. */
export interface WaitOptions {
  /** Stops waiting (resolves with the approval as it stands, still `pending`). */
  signal?: AbortSignal | undefined;
  /** Gives up after this long (resolves with the approval as it stands). @default no limit */
  timeoutMs?: number | undefined;
}

/**
 * Persists durable runs. Every method rejects only on a store failure (connection lost, disk
 * full) with an IsocodeError; unknown ids resolve to `undefined` or `false`.
 */
export interface RunStore {
  /** A name for logs and figures: `pglite` or `postgres`. */
  readonly kind: 'pglite' | 'postgres';

  createRun(run: NewRun): Promise<RunRecord>;
  /** The run; with `scope`, only if it belongs to that scope. */
  getRun(id: string, scope?: string): Promise<RunRecord | undefined>;
  listRuns(filter?: RunFilter): Promise<RunRecord[]>;
  /**
   * Applies `patch` if every `expect` condition holds (compare-and-set).
   * @returns the updated run, or undefined when the run is unknown or a condition failed.
   */
  updateRun(id: string, patch: RunPatch, expect?: RunExpect): Promise<RunRecord | undefined>;
  /**
   * Takes (or renews) the lease of a run for `owner` until `leaseExpiresAt`: succeeds when the run has
   * no owner, is already `owner`'s, or its lease lapsed before `now`, and it is not final.
   * @returns the claimed run, or undefined.
   */
  claimRun(
    id: string,
    owner: string,
    leaseExpiresAt: number,
    now: number,
  ): Promise<RunRecord | undefined>;

  /**
   * Records a call as `started`, unless (run id, key) exists.
   * @returns `inserted: true` and the new record, or `inserted: false` and the existing one.
   */
  startCall(call: NewCall): Promise<{ inserted: boolean; record: CallRecord }>;
  /** Settles a call record. @returns false when no such record exists. */
  finishCall(
    runId: string,
    key: string,
    status: 'ok' | 'error',
    result: JsonValue,
  ): Promise<boolean>;
  getCall(runId: string, key: string): Promise<CallRecord | undefined>;
  /** A run's calls in the order they started. */
  listCalls(runId: string): Promise<CallRecord[]>;
  /** How many calls each of these runs has journaled (runs without calls are absent). */
  countCalls(runIds: readonly string[]): Promise<Map<string, number>>;

  /** Appends a recorded value. @returns its sequence number. */
  recordValue(runId: string, kind: RecordedKind, value: number): Promise<number>;
  /** A run's recorded values in order. */
  listValues(runId: string): Promise<RecordedValue[]>;

  createApproval(approval: NewApproval): Promise<ApprovalRecord>;
  /** The approval; with `scope`, only if it belongs to that scope. */
  getApproval(id: string, scope?: string): Promise<ApprovalRecord | undefined>;
  listApprovals(filter?: ApprovalFilter): Promise<ApprovalRecord[]>;
  /**
   * Settles a pending approval (first decision wins) and wakes its waiters on every replica.
   * @returns the settled approval, or undefined when unknown, of another scope, or already settled.
   */
  decideApproval(
    id: string,
    status: Exclude<ApprovalStatus, 'pending'>,
    decidedBy: string,
    scope?: string,
  ): Promise<ApprovalRecord | undefined>;
  /**
   * Resolves when the approval is no longer pending (from this or any replica), or when the signal
   * aborts or the time-out passes (then with the approval still pending). Undefined for an unknown id.
   */
  waitForDecision(id: string, options?: WaitOptions): Promise<ApprovalRecord | undefined>;

  /** Appends an event with the run's next sequence number. @returns undefined for an unknown run. */
  appendEvent(runId: string, type: string, data: JsonValue): Promise<RunEvent | undefined>;
  /** A run's events with `seq > afterSeq`, in order. */
  listEvents(runId: string, afterSeq?: number, limit?: number): Promise<RunEvent[]>;

  /** Releases connections (and the embedded database). Idempotent. */
  close(): Promise<void>;
}
