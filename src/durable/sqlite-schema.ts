/**
 * The embedded store's schema. Hostile strings and JSON are stored as the text encode.ts makes of
 * them (so U+0000 and lone surrogates survive); times are ms integers; rows map through rows.ts.
 */
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
