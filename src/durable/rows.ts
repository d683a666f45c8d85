/** Row mappers of the SQL run store: database rows (snake_case, int8 as string or bigint) to records. */
import type { JsonValue } from '../json.js';
import type {
  ApprovalRecord,
  ApprovalStatus,
  CallRecord,
  CallStatus,
  RecordedKind,
  RecordedValue,
  RunEvent,
  RunRecord,
  RunStatus,
} from './store.js';

/** A row as a driver returns it. */
export type Row = Record<string, unknown>;

const num = (v: unknown): number => Number(v);
const optNum = (v: unknown): number | undefined =>
  v === null || v === undefined ? undefined : Number(v);
const optStr = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const optJson = (v: unknown): JsonValue | undefined =>
  v === null || v === undefined ? undefined : (v as JsonValue);

/** A JSON parameter: the text form (pg turns JS arrays into SQL arrays, so never pass values raw). */
export function jsonParam(value: JsonValue | undefined): string | null {
  return value === undefined ? null : JSON.stringify(value);
}

export function toRun(r: Row): RunRecord {
  return {
    id: String(r.id),
    scope: String(r.scope),
    program: String(r.program),
    description: optStr(r.description),
    status: String(r.status) as RunStatus,
    owner: optStr(r.owner),
    leaseExpiresAt: optNum(r.lease_expires_at),
    limits: optJson(r.limits),
    result: optJson(r.result),
    error: optJson(r.error),
    createdAt: num(r.created_at),
    updatedAt: num(r.updated_at),
    startedAt: optNum(r.started_at),
    finishedAt: optNum(r.finished_at),
  };
}

export function toCall(r: Row): CallRecord {
  return {
    runId: String(r.run_id),
    key: String(r.key),
    name: String(r.name),
    args: (r.args ?? null) as JsonValue,
    status: String(r.status) as CallStatus,
    result: optJson(r.result),
    idempotent: r.idempotent === true,
    startedAt: num(r.started_at),
    finishedAt: optNum(r.finished_at),
  };
}

export function toValue(r: Row): RecordedValue {
  return {
    runId: String(r.run_id),
    seq: num(r.seq),
    kind: String(r.kind) as RecordedKind,
    value: num(r.value),
  };
}

export function toApproval(r: Row): ApprovalRecord {
  return {
    id: String(r.id),
    runId: String(r.run_id),
    callKey: String(r.call_key),
    tool: String(r.tool),
    args: (r.args ?? null) as JsonValue,
    scope: String(r.scope),
    reason: String(r.reason),
    status: String(r.status) as ApprovalStatus,
    decidedBy: optStr(r.decided_by),
    decidedAt: optNum(r.decided_at),
    createdAt: num(r.created_at),
  };
}

export function toEvent(r: Row): RunEvent {
  return {
    runId: String(r.run_id),
    seq: num(r.seq),
    type: String(r.type),
    data: (r.data ?? null) as JsonValue,
    at: num(r.at),
  };
}
