/**
 * The run store over SQL: one implementation for PGlite and PostgreSQL (same dialect), written
 * against {@link SqlClient}. Approval decisions wake waiters on every replica by NOTIFY, with a
 * polling safety net (see {@link SqlStoreOptions.pollMs}).
 */
import { IsocodeError } from '../errors.js';
import type { JsonValue } from '../json.js';
import { isSchemaName, migrate } from './migrations.js';
import { jsonParam, toApproval, toCall, toEvent, toRun, toValue, type Row } from './rows.js';
import type { SqlClient } from './sql-client.js';
import {
  FINAL_STATUSES,
  type ApprovalFilter,
  type ApprovalRecord,
  type RunExpect,
  type RunFilter,
  type RunPatch,
  type RunStore,
  type WaitOptions,
} from './store.js';

/** Options of {@link createSqlStore}. */
export interface SqlStoreOptions {
  /** The schema holding the tables (letters, digits, `_`). @default "isocode" */
  schema?: string | undefined;
  /** How often a waiter re-reads its approval, on top of NOTIFY (lost notifications, broken LISTEN). @default 1000 */
  pollMs?: number | undefined;
  /** The clock. @default Date.now */
  now?: (() => number) | undefined;
}

const MAX_LIST = 1000;
const clampLimit = (limit: number | undefined): number =>
  Math.max(1, Math.min(MAX_LIST, Math.trunc(limit ?? 100) || 100));

/** Placeholders `$n, $n+1, …` for `values`, appended to `params`. */
function inList(params: unknown[], values: readonly unknown[]): string {
  return values.map((v) => `$${params.push(v)}`).join(', ');
}

/** Migrates the schema, then returns a store over `client` (which the store owns and closes). */
export async function createSqlStore(
  client: SqlClient,
  options: SqlStoreOptions = {},
): Promise<RunStore> {
  const schema = options.schema ?? 'isocode';
  if (!isSchemaName(schema))
    throw new IsocodeError(
      'INVALID_CONFIG',
      `store schema ${JSON.stringify(schema)} is not a plain identifier`,
    );
  const now = options.now ?? Date.now;
  const pollMs = Math.max(10, options.pollMs ?? 1000);
  const s = schema;
  const channel = `${schema}_decisions`;

  const query = async (sql: string, params: unknown[] = []): Promise<Row[]> => {
    try {
      return await client.query<Row>(sql, params);
    } catch (cause) {
      if ((cause as { code?: unknown }).code === '23503')
        throw new IsocodeError('NOT_FOUND', 'unknown run', { cause });
      throw new IsocodeError('INTERNAL_ERROR', 'the run store failed', { cause });
    }
  };
  try {
    await migrate(client, schema);
  } catch (cause) {
    await client.close().catch(() => undefined);
    throw new IsocodeError('INTERNAL_ERROR', 'the run store could not be migrated', { cause });
  }

  // Waiters of approvals on this replica, woken by a local decision or a NOTIFY.
  const waiters = new Map<string, Set<() => void>>();
  const wake = (id: string): void => {
    for (const w of waiters.get(id) ?? []) w();
  };
  let listening: Promise<unknown> | undefined;
  const listen = (): Promise<unknown> =>
    (listening ??= client.listen(channel, wake).catch(() => undefined)); // polling still answers

  const getApproval = async (id: string, scope?: string): Promise<ApprovalRecord | undefined> => {
    const params: unknown[] = [id];
    const rows = await query(
      `SELECT * FROM ${s}.approvals WHERE id = $1${scope === undefined ? '' : ` AND scope = $${params.push(scope)}`}`,
      params,
    );
    return rows[0] ? toApproval(rows[0]) : undefined;
  };

  let closed: Promise<void> | undefined;
  const store: RunStore = {
    kind: client.kind,

    async createRun(run) {
      const t = now();
      const rows = await query(
        `INSERT INTO ${s}.runs (id, scope, program, description, status, owner, lease_expires_at, limits, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8::jsonb, $9, $9) RETURNING *`,
        [
          run.id,
          run.scope,
          run.program,
          run.description ?? null,
          run.status ?? 'queued',
          run.owner ?? null,
          run.leaseExpiresAt ?? null,
          jsonParam(run.limits),
          t,
        ],
      );
      return toRun(rows[0] as Row);
    },

    async getRun(id, scope) {
      const params: unknown[] = [id];
      const rows = await query(
        `SELECT * FROM ${s}.runs WHERE id = $1${scope === undefined ? '' : ` AND scope = $${params.push(scope)}`}`,
        params,
      );
      return rows[0] ? toRun(rows[0]) : undefined;
    },

    async listRuns(filter: RunFilter = {}) {
      const params: unknown[] = [];
      const where: string[] = [];
      if (filter.scope !== undefined) where.push(`scope = $${params.push(filter.scope)}`);
      if (filter.status) {
        if (filter.status.length === 0) return [];
        where.push(`status IN (${inList(params, filter.status)})`);
      }
      if (filter.unsettled === true) where.push('finished_at IS NULL');
      if (filter.leaseExpiredBefore !== undefined)
        where.push(
          `(lease_expires_at IS NULL OR lease_expires_at < $${params.push(filter.leaseExpiredBefore)})`,
        );
      const rows = await query(
        `SELECT * FROM ${s}.runs${where.length ? ` WHERE ${where.join(' AND ')}` : ''}
         ORDER BY created_at DESC, id LIMIT ${clampLimit(filter.limit)}`,
        params,
      );
      return rows.map(toRun);
    },

    async updateRun(id, patch: RunPatch, expect: RunExpect = {}) {
      const params: unknown[] = [id];
      const set: string[] = [`updated_at = $${params.push(now())}`];
      const column = (name: string, value: unknown, cast = ''): void => {
        set.push(`${name} = $${params.push(value)}${cast}`);
      };
      if (patch.status !== undefined) column('status', patch.status);
      if (patch.owner !== undefined) column('owner', patch.owner);
      if (patch.leaseExpiresAt !== undefined) column('lease_expires_at', patch.leaseExpiresAt);
      if (patch.result !== undefined) column('result', jsonParam(patch.result), '::jsonb');
      if (patch.error !== undefined) column('error', jsonParam(patch.error), '::jsonb');
      if (patch.startedAt !== undefined) column('started_at', patch.startedAt);
      if (patch.finishedAt !== undefined) column('finished_at', patch.finishedAt);
      const where = ['id = $1'];
      if (expect.status) {
        if (expect.status.length === 0) return undefined;
        where.push(`status IN (${inList(params, expect.status)})`);
      }
      if (expect.owner === null) where.push('owner IS NULL');
      else if (expect.owner !== undefined) where.push(`owner = $${params.push(expect.owner)}`);
      const rows = await query(
        `UPDATE ${s}.runs SET ${set.join(', ')} WHERE ${where.join(' AND ')} RETURNING *`,
        params,
      );
      return rows[0] ? toRun(rows[0]) : undefined;
    },

    async claimRun(id, owner, leaseExpiresAt, at) {
      const params: unknown[] = [id, owner, leaseExpiresAt, at, now()];
      const rows = await query(
        `UPDATE ${s}.runs SET owner = $2, lease_expires_at = $3, updated_at = $5
         WHERE id = $1 AND status NOT IN (${inList(params, FINAL_STATUSES)})
           AND (owner IS NULL OR owner = $2 OR lease_expires_at IS NULL OR lease_expires_at < $4)
         RETURNING *`,
        params,
      );
      return rows[0] ? toRun(rows[0]) : undefined;
    },

    async startCall(call) {
      const rows = await query(
        `INSERT INTO ${s}.calls (run_id, key, name, args, status, idempotent, started_at)
         VALUES ($1, $2, $3, $4::jsonb, 'started', $5, $6)
         ON CONFLICT (run_id, key) DO NOTHING RETURNING *`,
        [call.runId, call.key, call.name, jsonParam(call.args), call.idempotent ?? false, now()],
      );
      if (rows[0]) return { inserted: true, record: toCall(rows[0]) };
      const existing = await store.getCall(call.runId, call.key);
      if (!existing) throw new IsocodeError('INTERNAL_ERROR', 'the run store lost a call record');
      return { inserted: false, record: existing };
    },

    async finishCall(runId, key, status, result) {
      const rows = await query(
        `UPDATE ${s}.calls SET status = $3, result = $4::jsonb, finished_at = $5
         WHERE run_id = $1 AND key = $2 RETURNING key`,
        [runId, key, status, jsonParam(result), now()],
      );
      return rows.length > 0;
    },

    async getCall(runId, key) {
      const rows = await query(`SELECT * FROM ${s}.calls WHERE run_id = $1 AND key = $2`, [
        runId,
        key,
      ]);
      return rows[0] ? toCall(rows[0]) : undefined;
    },

    async listCalls(runId) {
      const rows = await query(`SELECT * FROM ${s}.calls WHERE run_id = $1 ORDER BY ord`, [runId]);
      return rows.map(toCall);
    },

    async countCalls(runIds) {
      const counts = new Map<string, number>();
      if (runIds.length === 0) return counts;
      const params: unknown[] = [];
      const rows = await query(
        `SELECT run_id, count(*) AS n FROM ${s}.calls WHERE run_id IN (${inList(params, runIds)})
         GROUP BY run_id`,
        params,
      );
      for (const row of rows) counts.set(String(row.run_id), Number(row.n));
      return counts;
    },

    async recordValue(runId, kind, value) {
      const rows = await query(
        `WITH n AS (UPDATE ${s}.runs SET next_value = next_value + 1 WHERE id = $1 RETURNING next_value)
         INSERT INTO ${s}.run_values (run_id, seq, kind, value) SELECT $1, next_value, $2, $3 FROM n
         RETURNING seq`,
        [runId, kind, value],
      );
      if (!rows[0]) throw new IsocodeError('NOT_FOUND', 'unknown run');
      return Number(rows[0].seq);
    },

    async listValues(runId) {
      const rows = await query(`SELECT * FROM ${s}.run_values WHERE run_id = $1 ORDER BY seq`, [
        runId,
      ]);
      return rows.map(toValue);
    },

    async createApproval(a) {
      const rows = await query(
        `INSERT INTO ${s}.approvals (id, run_id, call_key, tool, args, scope, reason, status, created_at)
         VALUES ($1, $2, $3, $4, $5::jsonb, $6, $7, 'pending', $8) RETURNING *`,
        [a.id, a.runId, a.callKey, a.tool, jsonParam(a.args), a.scope, a.reason, now()],
      );
      return toApproval(rows[0] as Row);
    },

    getApproval,

    async listApprovals(filter: ApprovalFilter = {}) {
      const params: unknown[] = [];
      const where: string[] = [];
      if (filter.scope !== undefined) where.push(`scope = $${params.push(filter.scope)}`);
      if (filter.runId !== undefined) where.push(`run_id = $${params.push(filter.runId)}`);
      if (filter.status) {
        if (filter.status.length === 0) return [];
        where.push(`status IN (${inList(params, filter.status)})`);
      }
      const rows = await query(
        `SELECT * FROM ${s}.approvals${where.length ? ` WHERE ${where.join(' AND ')}` : ''}
         ORDER BY ord LIMIT ${clampLimit(filter.limit)}`,
        params,
      );
      return rows.map(toApproval);
    },

    async decideApproval(id, status, decidedBy, scope) {
      const params: unknown[] = [id, status, decidedBy, now(), channel];
      const rows = await query(
        `WITH u AS (
           UPDATE ${s}.approvals SET status = $2, decided_by = $3, decided_at = $4
           WHERE id = $1 AND status = 'pending'${scope === undefined ? '' : ` AND scope = $${params.push(scope)}`}
           RETURNING *)
         SELECT u.*, pg_notify($5, u.id) AS notified FROM u`,
        params,
      );
      if (!rows[0]) return undefined;
      wake(id);
      return toApproval(rows[0]);
    },

    async waitForDecision(id, options: WaitOptions = {}) {
      await listen();
      const { signal, timeoutMs } = options;
      const deadline = timeoutMs === undefined ? Infinity : now() + timeoutMs;
      for (;;) {
        let woken = false;
        let resume: () => void = () => undefined;
        const waiter = (): void => {
          woken = true;
          resume();
        };
        let set = waiters.get(id);
        if (!set) waiters.set(id, (set = new Set()));
        set.add(waiter); // before reading, so a decision between the read and the wait is not missed
        try {
          const approval = await getApproval(id);
          if (!approval || approval.status !== 'pending') return approval;
          if (signal?.aborted || now() >= deadline || closed) return approval;
          if (!woken)
            await new Promise<void>((resolve) => {
              const timer = setTimeout(done, Math.min(pollMs, Math.max(0, deadline - now())));
              function done(): void {
                clearTimeout(timer);
                signal?.removeEventListener('abort', done);
                resolve();
              }
              resume = done;
              signal?.addEventListener('abort', done, { once: true });
            });
        } finally {
          set.delete(waiter);
          if (set.size === 0) waiters.delete(id);
        }
      }
    },

    async appendEvent(runId, type, data: JsonValue) {
      const rows = await query(
        `WITH n AS (UPDATE ${s}.runs SET next_event = next_event + 1 WHERE id = $1 RETURNING next_event)
         INSERT INTO ${s}.events (run_id, seq, type, data, at) SELECT $1, next_event, $2, $3::jsonb, $4 FROM n
         RETURNING *`,
        [runId, type, jsonParam(data), now()],
      );
      return rows[0] ? toEvent(rows[0]) : undefined;
    },

    async listEvents(runId, afterSeq = 0, limit) {
      const rows = await query(
        `SELECT * FROM ${s}.events WHERE run_id = $1 AND seq > $2 ORDER BY seq LIMIT ${clampLimit(limit)}`,
        [runId, afterSeq],
      );
      return rows.map(toEvent);
    },

    close: () =>
      (closed ??= (async () => {
        for (const id of [...waiters.keys()]) wake(id);
        await client.close();
      })()),
  };
  return store;
}
