/**
 * The embedded store's schema and row mappers. Hostile strings and JSON are stored as the text
 * encode.ts makes of them (so U+0000 and lone surrogates survive); times are ms integers.
 */
import { decodeJson, decodeText } from './encode.js';
import type { SqliteRow } from './sqlite-driver.js';
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

/** The schema version this code writes; a database of another version is refused at open. */
export const SQLITE_SCHEMA_VERSION = 1;

/** The tables (created once, at version 0). */
export const SQLITE_SCHEMA = `
CREATE TABLE runs (
  id TEXT PRIMARY KEY,
  scope TEXT NOT NULL,
  program TEXT NOT NULL,
  description TEXT,
  status TEXT NOT NULL,
  owner TEXT,
  lease_expires_at INTEGER,
  epoch INTEGER NOT NULL DEFAULT 0,
  parked INTEGER NOT NULL DEFAULT 0,
  limits TEXT,
  result TEXT,
  error TEXT,
  idempotency_key TEXT,
  request_hash TEXT,
  bytes INTEGER NOT NULL DEFAULT 0,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  started_at INTEGER,
  finished_at INTEGER,
  next_event INTEGER NOT NULL DEFAULT 0,
  next_value INTEGER NOT NULL DEFAULT 0,
  next_finish INTEGER NOT NULL DEFAULT 0,
  UNIQUE (scope, idempotency_key)
);
CREATE INDEX runs_scope_created ON runs (scope, created_at DESC);
CREATE INDEX runs_claimable ON runs (finished_at, status, created_at);
CREATE TABLE calls (
  run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  key TEXT NOT NULL,
  ord INTEGER NOT NULL,
  name TEXT NOT NULL,
  args TEXT NOT NULL,
  status TEXT NOT NULL,
  result TEXT,
  idempotent INTEGER NOT NULL,
  epoch INTEGER NOT NULL DEFAULT 0,
  finish_seq INTEGER,
  started_at INTEGER NOT NULL,
  finished_at INTEGER,
  PRIMARY KEY (run_id, key)
);
CREATE TABLE run_values (
  run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  seq INTEGER NOT NULL,
  kind TEXT NOT NULL,
  value REAL NOT NULL,
  PRIMARY KEY (run_id, seq)
);
CREATE TABLE approvals (
  ord INTEGER PRIMARY KEY AUTOINCREMENT,
  id TEXT NOT NULL UNIQUE,
  run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  call_key TEXT NOT NULL,
  tool TEXT NOT NULL,
  args TEXT NOT NULL,
  scope TEXT NOT NULL,
  reason TEXT NOT NULL,
  status TEXT NOT NULL,
  decided_by TEXT,
  decided_at INTEGER,
  created_at INTEGER NOT NULL,
  expires_at INTEGER
);
CREATE INDEX approvals_run ON approvals (run_id, status);
CREATE INDEX approvals_scope ON approvals (scope, status, ord);
CREATE TABLE events (
  run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  seq INTEGER NOT NULL,
  type TEXT NOT NULL,
  data TEXT NOT NULL,
  at INTEGER NOT NULL,
  PRIMARY KEY (run_id, seq)
);
`;

const num = (v: unknown): number => Number(v);
const optNum = (v: unknown): number | undefined =>
  v === null || v === undefined ? undefined : Number(v);
const optStr = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

export function runOf(r: SqliteRow): RunRecord {
  return {
    id: String(r.id),
    scope: String(r.scope),
    program: decodeText(r.program) ?? '',
    description: decodeText(r.description),
    status: String(r.status) as RunStatus,
    owner: optStr(r.owner),
    leaseExpiresAt: optNum(r.lease_expires_at),
    epoch: num(r.epoch),
    parked: num(r.parked) === 1,
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

export function callOf(r: SqliteRow): CallRecord {
  return {
    runId: String(r.run_id),
    key: String(r.key),
    name: decodeText(r.name) ?? '',
    args: decodeJson(r.args) ?? null,
    status: String(r.status) as CallStatus,
    result: decodeJson(r.result),
    idempotent: num(r.idempotent) === 1,
    epoch: num(r.epoch),
    finishSeq: optNum(r.finish_seq),
    startedAt: num(r.started_at),
    finishedAt: optNum(r.finished_at),
  };
}

export function valueOf(r: SqliteRow): RecordedValue {
  return {
    runId: String(r.run_id),
    seq: num(r.seq),
    kind: String(r.kind) as RecordedKind,
    value: num(r.value),
  };
}

export function approvalOf(r: SqliteRow): ApprovalRecord {
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

export function eventOf(r: SqliteRow): RunEvent {
  return {
    runId: String(r.run_id),
    seq: num(r.seq),
    type: String(r.type),
    data: decodeJson(r.data) ?? null,
    at: num(r.at),
  };
}
