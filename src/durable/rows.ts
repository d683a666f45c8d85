/**
 * Row mappers of both SQL stores: rows (snake_case; PostgreSQL int8 as string, SQLite booleans as
 * 0/1) to records; hostile text and JSON columns decoded by encode.ts.
 */
import { decodeJson, decodeText } from './encode.js';
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

export function toRun(r: Row): RunRecord {
  return {
    id: String(r.id),
    scope: String(r.scope),
    program: decodeText(r.program) ?? '',
    description: decodeText(r.description),
    status: String(r.status) as RunStatus,
    owner: optStr(r.owner),
    leaseExpiresAt: optNum(r.lease_expires_at),
    epoch: num(r.epoch),
    parked: r.parked === true || r.parked === 1,
    limits: decodeJson(r.limits),
    result: decodeJson(r.result),
    error: decodeJson(r.error),
    idempotencyKey: decodeText(r.idempotency_key),
    requestHash: optStr(r.request_hash),
    bytes: num(r.bytes),
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
    name: decodeText(r.name) ?? '',
    args: decodeJson(r.args) ?? null,
    status: String(r.status) as CallStatus,
    result: decodeJson(r.result),
    idempotent: r.idempotent === true || r.idempotent === 1,
    epoch: num(r.epoch),
    finishSeq: optNum(r.finish_seq),
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
    callKey: decodeText(r.call_key) ?? '',
    tool: decodeText(r.tool) ?? '',
    args: decodeJson(r.args) ?? null,
    scope: String(r.scope),
    reason: decodeText(r.reason) ?? '',
    status: String(r.status) as ApprovalStatus,
    decidedBy: decodeText(r.decided_by),
    decidedAt: optNum(r.decided_at),
    createdAt: num(r.created_at),
    expiresAt: optNum(r.expires_at),
  };
}

export function toEvent(r: Row): RunEvent {
  return {
    runId: String(r.run_id),
    seq: num(r.seq),
    type: String(r.type),
    data: decodeJson(r.data) ?? null,
    at: num(r.at),
  };
}
