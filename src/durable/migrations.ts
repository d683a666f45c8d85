/**
 * The run store's schema, as numbered migrations applied once each, in one transaction under an
 * advisory lock (so replicas starting together do not race).
 */
import { IsocodeError } from '../errors.js';
import type { SqlClient } from './sql-client.js';

/** A schema name: letters, digits and `_`, starting with a letter or `_`, at most 48 characters. */
const SCHEMA_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,47}$/;

/** True when `name` is a usable schema name (it is spliced into SQL, so it is checked, never quoted). */
export function isSchemaName(name: string): boolean {
  return SCHEMA_NAME.test(name);
}

/**
 * The migrations, in order; each is a list of statements over the schema `s`. Hostile strings and
 * JSON are `text` holding what encode.ts makes of them (never `jsonb`: it rejects U+0000).
 */
export function migrations(s: string): readonly string[][] {
  return [
    [
      `CREATE TABLE ${s}.runs (
        id text PRIMARY KEY,
        scope text NOT NULL,
        program text NOT NULL,
        description text,
        status text NOT NULL,
        owner text,
        lease_expires_at bigint,
        epoch integer NOT NULL DEFAULT 0,
        parked boolean NOT NULL DEFAULT false,
        limits text,
        result text,
        error text,
        idempotency_key text,
        request_hash text,
        bytes bigint NOT NULL DEFAULT 0,
        created_at bigint NOT NULL,
        updated_at bigint NOT NULL,
        started_at bigint,
        finished_at bigint,
        next_event bigint NOT NULL DEFAULT 0,
        next_value integer NOT NULL DEFAULT 0,
        next_finish integer NOT NULL DEFAULT 0,
        UNIQUE (scope, idempotency_key)
      )`,
      `CREATE INDEX runs_scope_created ON ${s}.runs (scope, created_at DESC)`,
      `CREATE INDEX runs_claimable ON ${s}.runs (created_at) WHERE finished_at IS NULL`,
      `CREATE TABLE ${s}.calls (
        run_id text NOT NULL REFERENCES ${s}.runs (id) ON DELETE CASCADE,
        key text NOT NULL,
        ord bigserial,
        name text NOT NULL,
        args text NOT NULL,
        status text NOT NULL,
        result text,
        idempotent boolean NOT NULL,
        epoch integer NOT NULL DEFAULT 0,
        finish_seq integer,
        started_at bigint NOT NULL,
        finished_at bigint,
        PRIMARY KEY (run_id, key)
      )`,
      `CREATE TABLE ${s}.run_values (
        run_id text NOT NULL REFERENCES ${s}.runs (id) ON DELETE CASCADE,
        seq integer NOT NULL,
        kind text NOT NULL,
        value double precision NOT NULL,
        PRIMARY KEY (run_id, seq)
      )`,
      `CREATE TABLE ${s}.approvals (
        id text PRIMARY KEY,
        ord bigserial,
        run_id text NOT NULL REFERENCES ${s}.runs (id) ON DELETE CASCADE,
        call_key text NOT NULL,
        tool text NOT NULL,
        args text NOT NULL,
        scope text NOT NULL,
        reason text NOT NULL,
        status text NOT NULL,
        decided_by text,
        decided_at bigint,
        created_at bigint NOT NULL,
        expires_at bigint
      )`,
      `CREATE INDEX approvals_scope_status ON ${s}.approvals (scope, status, ord)`,
      `CREATE INDEX approvals_run ON ${s}.approvals (run_id, status)`,
      `CREATE INDEX approvals_expiry ON ${s}.approvals (expires_at) WHERE status = 'pending'`,
      `CREATE TABLE ${s}.events (
        run_id text NOT NULL REFERENCES ${s}.runs (id) ON DELETE CASCADE,
        seq bigint NOT NULL,
        type text NOT NULL,
        data text NOT NULL,
        at bigint NOT NULL,
        PRIMARY KEY (run_id, seq)
      )`,
    ],
  ];
}

/**
 * Creates the schema and applies the migrations it lacks.
 * @returns the schema version after migrating.
 */
export async function migrate(client: SqlClient, schema: string): Promise<number> {
  const all = migrations(schema);
  return client.transaction(async (query) => {
    // hashtext is stable across servers: every replica takes the same lock for the same schema.
    await query(`SELECT pg_advisory_xact_lock(hashtext($1))`, [`isocode.migrate.${schema}`]);
    await query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
    await query(
      `CREATE TABLE IF NOT EXISTS ${schema}.migrations (version integer PRIMARY KEY, applied_at bigint NOT NULL)`,
    );
    const rows = await query<{ v: number | null }>(
      `SELECT max(version) AS v FROM ${schema}.migrations`,
    );
    const current = Number(rows[0]?.v ?? 0);
    if (current > 0) {
      // A schema an earlier isocode made (before fenced epochs) is not migrated in place.
      const epoch = await query(
        `SELECT 1 FROM information_schema.columns WHERE table_schema = $1 AND table_name = 'runs' AND column_name = 'epoch'`,
        [schema],
      );
      if (epoch.length === 0)
        throw new IsocodeError(
          'INVALID_CONFIG',
          `the store schema "${schema}" was made by an earlier isocode (before fenced run epochs); give store.schema a new name`,
        );
    }
    for (let version = current + 1; version <= all.length; version++) {
      for (const statement of all[version - 1] ?? []) await query(statement);
      await query(`INSERT INTO ${schema}.migrations (version, applied_at) VALUES ($1, $2)`, [
        version,
        Date.now(),
      ]);
    }
    return Math.max(current, all.length);
  });
}
