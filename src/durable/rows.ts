/**
 * Row mappers of both SQL stores: rows (snake_case; PostgreSQL int8 as string, SQLite booleans as
 * 0/1) to records; hostile text and JSON columns decoded by encode.ts.
 *
 * A row is read whole even when a column of it is not text isocode wrote (edited by hand, a disk or
 * a tool that damaged it): that column reads as empty and is named in the record's `damaged`, so
 * one bad row never makes a list, a scan for claimable runs or a stream fail. What a damaged record
 * means for its run is decided where it is used (a run is failed `STORE_CORRUPT`, never run again).
 */
import { IsocodeError } from '../errors.js';
import { decodeJson, decodeText } from './encode.js';
import type { JsonValue } from '../json.js';
import {
  APPROVAL_STATUSES,
  CALL_STATUSES,
  RECORDED_KINDS,
  RUN_STATUSES,
  type ApprovalRecord,
  type CallRecord,
  type RecordedValue,
  type RunEvent,
  type RunRecord,
} from './records.js';

/** A row as a driver returns it. */
export type Row = Record<string, unknown>;

/** An integer column as stored: a number, a bigint, or (PostgreSQL's int8) decimal text. */
const INTEGER_TEXT = /^-?\d{1,16}$/;
const asInteger = (v: unknown): number | undefined => {
  const n =
    typeof v === 'number' || typeof v === 'bigint'
      ? Number(v)
      : typeof v === 'string' && INTEGER_TEXT.test(v)
        ? Number(v)
        : NaN;
  return Number.isSafeInteger(n) ? n : undefined;
};
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
  /** An integer column (a sequence, an epoch, a time, a size): 0 and damaged if it is not one. */
  int(column: string): number {
    const n = asInteger(this.row[column]);
    if (n === undefined) this.damaged.push(column);
    return n ?? 0;
  }
  /** An integer column that may be NULL. */
  optInt(column: string): number | undefined {
    const v = this.row[column];
    return v === null || v === undefined ? undefined : this.int(column);
  }
  /** A real column: any finite number, else 0 and damaged (PostgreSQL stores `NaN` and `Infinity`). */
  real(column: string, inRange: (n: number) => boolean = () => true): number {
    const v = this.row[column];
    const n = typeof v === 'number' ? v : NaN;
    if (Number.isFinite(n) && inRange(n)) return n;
    this.damaged.push(column);
    return 0;
  }
  /** A column that must be one of `known` (a status, a kind); else it is damaged and shown as stored. */
  oneOf<T extends string>(column: string, known: readonly T[]): T {
    const value = String(this.row[column]);
    if (!(known as readonly string[]).includes(value)) this.damaged.push(column);
    return value as T;
  }
  /**
   * A status column: one of `known`, else (a value this version never writes) it is damaged and
   * shown as stored.
   */
  status<T extends string>(known: readonly T[]): T {
    return this.oneOf('status', known);
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
    leaseExpiresAt: c.optInt('lease_expires_at'),
    epoch: c.int('epoch'),
    parked: r.parked === true || r.parked === 1,
    limits: c.json('limits'),
    result: c.json('result'),
    error: c.json('error'),
    idempotencyKey: c.text('idempotency_key'),
    requestHash: optStr(r.request_hash),
    bytes: c.int('bytes'),
    createdAt: c.int('created_at'),
    updatedAt: c.int('updated_at'),
    startedAt: c.optInt('started_at'),
    finishedAt: c.optInt('finished_at'),
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
    epoch: c.int('epoch'),
    finishSeq: c.optInt('finish_seq'),
    startedAt: c.int('started_at'),
    finishedAt: c.optInt('finished_at'),
  });
}

export function toValue(r: Row): RecordedValue {
  const c = new Columns(r);
  const kind = c.oneOf('kind', RECORDED_KINDS);
  return c.done({
    runId: String(r.run_id),
    seq: c.int('seq'),
    kind,
    // A die is in [0, 1); a clock reading is any finite number.
    value: c.real('value', kind === 'random' ? (n) => n >= 0 && n < 1 : undefined),
  });
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
    decidedAt: c.optInt('decided_at'),
    createdAt: c.int('created_at'),
    expiresAt: c.optInt('expires_at'),
  });
}

/**
 * A human approves what an approval shows: one whose stored record does not read whole may show
 * something else than what was asked, so it can be rejected or cancelled, never allowed (any
 * damaged column counts: a row edited behind isocode's back is not trusted in part). Both stores
 * check it as they decide, so every face (HTTP, the console, a library caller) gets the same refusal.
 * @throws IsocodeError `STORE_CORRUPT` when `status` allows a pending approval that is damaged.
 */
export function refuseAllowingDamaged(approval: ApprovalRecord | undefined, status: string): void {
  if (status !== 'allowed-once' || approval?.damaged === undefined) return;
  if (approval.status !== 'pending') return;
  throw new IsocodeError(
    'STORE_CORRUPT',
    `approval ${approval.id}'s stored record cannot be read whole (${approval.damaged.join(', ')}): it can be rejected, not approved`,
  );
}

export function toEvent(r: Row): RunEvent {
  const c = new Columns(r);
  return c.done({
    runId: String(r.run_id),
    seq: c.int('seq'),
    type: String(r.type),
    data: c.json('data') ?? null,
    at: c.int('at'),
  });
}
