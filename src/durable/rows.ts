/**
 * Row mappers of both SQL stores: rows (snake_case; PostgreSQL int8 as string, SQLite booleans as
 * 0/1) to records; hostile text and JSON columns decoded by encode.ts.
 *
 * A row is read whole even when a column of it is not text isocode wrote (edited by hand, a disk or
 * a tool that damaged it): that column reads as empty and is named in the record's `damaged`, so
 * one bad row never makes a list, a scan for claimable runs or a stream fail. What a damaged record
 * means for its run is decided where it is used (a run is failed `STORE_CORRUPT`, never run again).
 */
import { decodeJson, decodeText } from './encode.js';
import type { JsonValue } from '../json.js';
import {
  APPROVAL_STATUSES,
  CALL_STATUSES,
  RUN_STATUSES,
  type ApprovalRecord,
  type CallRecord,
  type RecordedKind,
  type RecordedValue,
  type RunEvent,
  type RunRecord,
} from './store.js';

/** A row as a driver returns it. */
export type Row = Record<string, unknown>;

const num = (v: unknown): number => Number(v);
const optNum = (v: unknown): number | undefined =>
  v === null || v === undefined ? undefined : Number(v);
const optStr = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** Decodes a row's text and JSON columns, noting the ones that do not decode. */
class Columns {
  readonly damaged: string[] = [];
  constructor(private readonly row: Row) {}
  json(column: string): JsonValue | undefined {
    return this.#read(column, decodeJson);
  }
  text(column: string): string | undefined {
    return this.#read(column, decodeText);
  }
  #read<T>(column: string, decode: (stored: unknown) => T): T | undefined {
    try {
      return decode(this.row[column]);
    } catch {
      this.damaged.push(column);
      return undefined;
    }
  }
  /**
   * A status column: one of `known`, else (a value this version never writes) it is damaged and
   * shown as stored.
   */
  status<T extends string>(known: readonly T[]): T {
    const value = String(this.row.status);
    if (!(known as readonly string[]).includes(value)) this.damaged.push('status');
    return value as T;
  }
  /** `record` with `damaged` when a column did not decode. */
  done<T extends object>(record: T): T & { damaged?: string[] } {
    return this.damaged.length === 0 ? record : { ...record, damaged: this.damaged };
  }
}

export function toRun(r: Row): RunRecord {
  const c = new Columns(r);
  return c.done({
    id: String(r.id),
    scope: String(r.scope),
    program: c.text('program') ?? '',
    description: c.text('description'),
    status: c.status(RUN_STATUSES),
    owner: optStr(r.owner),
    leaseExpiresAt: optNum(r.lease_expires_at),
    epoch: num(r.epoch),
    parked: r.parked === true || r.parked === 1,
    limits: c.json('limits'),
    result: c.json('result'),
    error: c.json('error'),
    idempotencyKey: c.text('idempotency_key'),
    requestHash: optStr(r.request_hash),
    bytes: num(r.bytes),
    createdAt: num(r.created_at),
    updatedAt: num(r.updated_at),
    startedAt: optNum(r.started_at),
    finishedAt: optNum(r.finished_at),
  });
}

export function toCall(r: Row): CallRecord {
  const c = new Columns(r);
  return c.done({
    runId: String(r.run_id),
    key: String(r.key),
    name: c.text('name') ?? '',
    args: c.json('args') ?? null,
    status: c.status(CALL_STATUSES),
    result: c.json('result'),
    idempotent: r.idempotent === true || r.idempotent === 1,
    epoch: num(r.epoch),
    finishSeq: optNum(r.finish_seq),
    startedAt: num(r.started_at),
    finishedAt: optNum(r.finished_at),
  });
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
  const c = new Columns(r);
  return c.done({
    id: String(r.id),
    runId: String(r.run_id),
    callKey: c.text('call_key') ?? '',
    tool: c.text('tool') ?? '',
    args: c.json('args') ?? null,
    scope: String(r.scope),
    reason: c.text('reason') ?? '',
    status: c.status(APPROVAL_STATUSES),
    decidedBy: c.text('decided_by'),
    decidedAt: optNum(r.decided_at),
    createdAt: num(r.created_at),
    expiresAt: optNum(r.expires_at),
  });
}

export function toEvent(r: Row): RunEvent {
  const c = new Columns(r);
  return c.done({
    runId: String(r.run_id),
    seq: num(r.seq),
    type: String(r.type),
    data: c.json('data') ?? null,
    at: num(r.at),
  });
}
