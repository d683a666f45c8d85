/**
 * The run store over PostgreSQL, shared by replicas, written against {@link SqlClient}. Every
 * compare-and-set of the contract is one conditional statement (or one transaction: the
 * settlement); fenced journal writes lock the run row (`FOR SHARE`), so a claim that bumps the
 * epoch and a body start of the old epoch are serialised and exactly one of them wins. Decisions
 * and claimable runs are announced by NOTIFY (approval waiters; every replica's dispatcher), with
 * polling as the safety net.
 */
import { IsocodeError } from '../errors.js';
import type { JsonValue } from '../json.js';
import { encodeJson, encodeText, isStorableId } from './encode.js';
import { ApprovalWaiters } from './approval-waiters.js';
import { isSchemaName, migrate } from './migrations.js';
import { toApproval, toCall, toEvent, toRun, toValue, type Row } from './rows.js';
import type { SqlClient, SqlQuery } from './sql-client.js';
import {
  FINAL_STATUSES,
  type ApprovalRecord,
  type RunEvent,
  type RunStore,
  type WaitOptions,
} from './store.js';

/** Options of {@link createSqlStore}. */
export interface SqlStoreOptions {
  /** The schema holding the tables (letters, digits, `_`). @default "isocode" */
  schema?: string | undefined;
  /** How often a waiter re-reads its approval, on top of NOTIFY (lost notifications, broken LISTEN). @default 1000 */
  pollMs?: number | undefined;
}

const MAX_LIST = 1000;
const clamp = (limit: number | undefined): number =>
  Math.max(1, Math.min(MAX_LIST, Math.trunc(limit ?? 100) || 100));
const FINAL = FINAL_STATUSES.map((s) => `'${s}'`).join(', ');
const len = (text: string | null | undefined): number => text?.length ?? 0;

/** Errors that mean the server cannot be reached (as opposed to a statement it refused). */
const UNREACHABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  '57P01',
  '57P02',
  '57P03',
  '08000',
  '08001',
  '08003',
  '08004',
  '08006',
]);
function unreachable(cause: unknown): boolean {
  const code = (cause as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && UNREACHABLE_CODES.has(code)) return true;
  const message = cause instanceof Error ? cause.message : String(cause);
  return /Connection terminated|timeout exceeded when trying to connect|connect ECONNREFUSED|Client has encountered a connection error/i.test(
    message,
  );
}

/** The store error for a driver failure. */
export function storeError(cause: unknown): IsocodeError {
  if (cause instanceof IsocodeError) return cause;
  if ((cause as { code?: unknown } | null)?.code === '23503')
    return new IsocodeError('NOT_FOUND', 'unknown run', { cause });
  if (unreachable(cause))
    return new IsocodeError(
      'STORE_UNAVAILABLE',
      `the run store (PostgreSQL) is unreachable: ${cause instanceof Error ? cause.message : String(cause)}`,
      { cause },
    );
  return new IsocodeError('INTERNAL_ERROR', 'the run store (PostgreSQL) failed', { cause });
}

/** Migrates the schema, then returns a store over `client` (which the store owns and closes). */
export async function createSqlStore(
  client: SqlClient,
  options: SqlStoreOptions = {},
): Promise<RunStore> {
  const s = options.schema ?? 'isocode';
  if (!isSchemaName(s))
    throw new IsocodeError(
      'INVALID_CONFIG',
      `store schema ${JSON.stringify(s)} is not a plain identifier`,
    );
  const pollMs = Math.max(10, options.pollMs ?? 1000);
  const decisions = `${s}_decisions`;
  const wakeChannel = `${s}_runs`;
  try {
    await migrate(client, s);
  } catch (cause) {
    await client.close().catch(() => undefined);
    throw cause instanceof IsocodeError ? cause : storeError(cause);
  }

  const query = async (sql: string, params: unknown[] = []): Promise<Row[]> => {
    try {
      return await client.query<Row>(sql, params);
    } catch (cause) {
      throw storeError(cause);
    }
  };
  const inTx = async <T>(fn: (q: SqlQuery) => Promise<T>): Promise<T> => {
    try {
      return await client.transaction(fn);
    } catch (cause) {
      throw storeError(cause);
    }
  };
  const notify = (channel: string, payload: string): Promise<unknown> =>
    query('SELECT pg_notify($1, $2)', [channel, payload]).catch(() => undefined);

  // Approval waiters on this replica (woken by a local decision or a NOTIFY) and dispatch listeners.
  // '*' after a LISTEN reconnect: notifications may have been lost, every waiter re-reads.
  const waiters = new ApprovalWaiters(pollMs);
  const wakeApproval = (id: string): void => waiters.wake(id);
  const wakeListeners = new Set<() => void>();
  const wakeAll = (): void => {
    for (const l of wakeListeners) l();
  };
  let listening: Promise<unknown> | undefined;
  const listen = (): Promise<unknown> =>
    (listening ??= Promise.all([
      client.listen(decisions, wakeApproval),
      client.listen(wakeChannel, wakeAll),
    ]).catch(() => undefined)); // polling still answers

  /** Appends one event inside transaction `q`. */
  const append = async (
    q: SqlQuery,
    runId: string,
    type: string,
    data: JsonValue,
  ): Promise<RunEvent | undefined> => {
    const text = encodeJson(data) ?? 'null';
    const rows = await q<Row>(
      `WITH n AS (UPDATE ${s}.runs SET next_event = next_event + 1, bytes = bytes + $4 WHERE id = $1 RETURNING next_event)
       INSERT INTO ${s}.events (run_id, seq, type, data, at) SELECT $1, next_event, $2, $3, $5 FROM n RETURNING *`,
      [runId, type, text, text.length, Date.now()],
    );
    return rows[0] ? toEvent(rows[0]) : undefined;
  };
  const claimable = (
    now: string,
  ): string => `status NOT IN (${FINAL}, 'interrupted') AND finished_at IS NULL
    AND (owner IS NULL OR lease_expires_at IS NULL OR lease_expires_at < ${now})
    AND (NOT parked OR NOT EXISTS (SELECT 1 FROM ${s}.approvals a WHERE a.run_id = runs.id AND a.status = 'pending'))`;
  const fenced = (id: string, owner: string, epoch: string): string =>
    `EXISTS (SELECT 1 FROM ${s}.runs r WHERE r.id = ${id} AND r.owner = ${owner} AND r.epoch = ${epoch} FOR SHARE)`;

  let closed: Promise<void> | undefined;
  const store: RunStore = {
    kind: 'postgres',

    async createRun(n) {
      const t = Date.now();
      const program = encodeText(n.program) ?? '""';
      const rows = await query(
        `INSERT INTO ${s}.runs (id, scope, program, description, status, owner, lease_expires_at, epoch, limits,
           idempotency_key, request_hash, bytes, created_at, updated_at, started_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $13, $14)
         ON CONFLICT (scope, idempotency_key) DO NOTHING RETURNING *`,
        [
          n.id,
          n.scope,
          program,
          encodeText(n.description),
          n.lease ? 'running' : 'queued',
          n.lease?.owner ?? null,
          n.lease?.expiresAt ?? null,
          n.lease ? 1 : 0,
          encodeJson(n.limits),
          encodeText(n.idempotencyKey),
          n.requestHash ?? null,
          program.length,
          t,
          n.lease ? t : null,
        ],
      );
      if (rows[0]) {
        if (!n.lease) await notify(wakeChannel, n.id);
        return { run: toRun(rows[0]), created: true };
      }
      const existing = await query(
        `SELECT * FROM ${s}.runs WHERE scope = $1 AND idempotency_key = $2`,
        [n.scope, encodeText(n.idempotencyKey)],
      );
      if (!existing[0]) throw new IsocodeError('INTERNAL_ERROR', 'the run store lost a run');
      return { run: toRun(existing[0]), created: false };
    },

    async getRun(id, scope) {
      if (!isStorableId(id)) return undefined;
      const params: unknown[] = [id];
      const rows = await query(
        `SELECT * FROM ${s}.runs WHERE id = $1${scope === undefined ? '' : ` AND scope = $${params.push(scope)}`}`,
        params,
      );
      return rows[0] ? toRun(rows[0]) : undefined;
    },

    async listRuns(f = {}) {
      const params: unknown[] = [];
      const where: string[] = [];
      if (f.scope !== undefined) where.push(`scope = $${params.push(f.scope)}`);
      if (f.status) {
        if (f.status.length === 0) return [];
        where.push(`status = ANY($${params.push([...f.status])})`);
      }
      if (f.unsettled === true) where.push('finished_at IS NULL');
      if (f.leaseExpiredBefore !== undefined)
        where.push(
          `(lease_expires_at IS NULL OR lease_expires_at < $${params.push(f.leaseExpiredBefore)})`,
        );
      if (f.idempotencyKey !== undefined)
        where.push(`idempotency_key = $${params.push(encodeText(f.idempotencyKey))}`);
      if (f.createdBefore !== undefined)
        where.push(`created_at < $${params.push(f.createdBefore)}`);
      const rows = await query(
        `SELECT * FROM ${s}.runs${where.length ? ` WHERE ${where.join(' AND ')}` : ''}
         ORDER BY created_at DESC, id LIMIT ${clamp(f.limit)}`,
        params,
      );
      return rows.map(toRun);
    },

    async updateRun(id, p, e = {}) {
      const params: unknown[] = [id];
      const set: string[] = [`updated_at = $${params.push(Date.now())}`];
      const column = (name: string, value: unknown): void => {
        set.push(`${name} = $${params.push(value)}`);
      };
      if (p.status !== undefined) column('status', p.status);
      if (p.owner !== undefined) column('owner', p.owner);
      if (p.leaseExpiresAt !== undefined) column('lease_expires_at', p.leaseExpiresAt);
      if (p.parked !== undefined) column('parked', p.parked);
      if (p.result !== undefined) column('result', encodeJson(p.result));
      if (p.error !== undefined) column('error', p.error === null ? null : encodeJson(p.error));
      if (p.startedAt !== undefined) column('started_at', p.startedAt);
      if (p.finishedAt !== undefined) column('finished_at', p.finishedAt);
      const where = ['id = $1'];
      if (e.status) {
        if (e.status.length === 0) return undefined;
        where.push(`status = ANY($${params.push([...e.status])})`);
      }
      if (e.owner === null) where.push('owner IS NULL');
      else if (e.owner !== undefined) where.push(`owner = $${params.push(e.owner)}`);
      if (e.epoch !== undefined) where.push(`epoch = $${params.push(e.epoch)}`);
      const rows = await query(
        `UPDATE ${s}.runs SET ${set.join(', ')} WHERE ${where.join(' AND ')} RETURNING *`,
        params,
      );
      const run = rows[0] ? toRun(rows[0]) : undefined;
      if (run?.status === 'queued' && run.owner === undefined) await notify(wakeChannel, id);
      return run;
    },

    async claimRun(id, owner, until, now) {
      const rows = await query(
        `UPDATE ${s}.runs SET owner = $2, lease_expires_at = $3, epoch = epoch + 1, parked = false, updated_at = $5,
           started_at = CASE WHEN status = 'queued' THEN coalesce(started_at, $4) ELSE started_at END,
           status = CASE WHEN status = 'queued' THEN 'running' ELSE status END
         WHERE id = $1 AND ${claimable('$4')} RETURNING *`,
        [id, owner, until, now, Date.now()],
      );
      return rows[0] ? toRun(rows[0]) : undefined;
    },

    async listClaimable(now, limit) {
      const rows = await query(
        `SELECT * FROM (SELECT *, row_number() OVER (PARTITION BY scope ORDER BY created_at, id) AS turn
           FROM ${s}.runs WHERE ${claimable('$1')}) c ORDER BY turn, created_at, id LIMIT ${clamp(limit)}`,
        [now],
      );
      return rows.map(toRun);
    },

    async renewLease(id, f, until) {
      const rows = await query(
        `UPDATE ${s}.runs SET lease_expires_at = $4 WHERE id = $1 AND owner = $2 AND epoch = $3 AND finished_at IS NULL RETURNING id`,
        [id, f.owner, f.epoch, until],
      );
      return rows.length > 0;
    },

    async releaseRun(id, f, o = {}) {
      const rows = await query(
        `UPDATE ${s}.runs SET owner = NULL, lease_expires_at = NULL, parked = $4, updated_at = $5
         WHERE id = $1 AND owner = $2 AND epoch = $3 RETURNING id`,
        [id, f.owner, f.epoch, o.parked === true, Date.now()],
      );
      if (rows.length > 0) await notify(wakeChannel, id);
      return rows.length > 0;
    },

    async settleRun(id, f, st) {
      const out = await inTx(async (q) => {
        const now = Date.now();
        const [row] = await q<Row>(`SELECT * FROM ${s}.runs WHERE id = $1 FOR UPDATE`, [id]);
        const r = row ? toRun(row) : undefined;
        if (!r || r.finishedAt !== undefined) return undefined;
        const mine =
          f === null
            ? r.owner === undefined || (r.leaseExpiresAt ?? 0) < now
            : r.owner === f.owner && r.epoch === f.epoch;
        if (!mine) return undefined;
        const result = st.result === undefined ? null : encodeJson(st.result);
        const error = st.error === undefined ? null : encodeJson(st.error);
        const [updated] = await q<Row>(
          `UPDATE ${s}.runs SET status = $2, result = coalesce($3, result), error = coalesce($4, error), finished_at = $5,
             owner = NULL, lease_expires_at = NULL, parked = false, updated_at = $6, bytes = bytes + $7
           WHERE id = $1 RETURNING *`,
          [
            id,
            st.status,
            result,
            error,
            st.finishedAt === null ? null : (st.finishedAt ?? now),
            now,
            len(result) + len(error),
          ],
        );
        const approvals: ApprovalRecord[] = [];
        const events: RunEvent[] = [];
        if (st.cancelPendingApprovalsAs !== undefined) {
          const decided = await q<Row>(
            `UPDATE ${s}.approvals SET status = 'cancelled', decided_by = $2, decided_at = $3
             WHERE run_id = $1 AND status = 'pending' RETURNING *`,
            [id, encodeText(st.cancelPendingApprovalsAs), now],
          );
          for (const a of decided
            .map(toApproval)
            .sort((x, y) => x.createdAt - y.createdAt || (x.id < y.id ? -1 : 1))) {
            approvals.push(a);
            await q('SELECT pg_notify($1, $2)', [decisions, a.id]);
            const e = await append(q, id, 'approval', {
              id: a.id,
              tool: a.tool,
              status: a.status,
              reason: a.reason,
              decidedBy: a.decidedBy ?? null,
            });
            if (e) events.push(e);
          }
        }
        for (const ev of st.events) {
          const e = await append(q, id, ev.type, ev.data);
          if (e) events.push(e);
        }
        return { run: toRun(updated!), events, approvals };
      });
      for (const a of out?.approvals ?? []) wakeApproval(a.id);
      return out;
    },

    async recordArrival(c, f) {
      const args = encodeJson(c.args) ?? 'null';
      const rows = await query(
        `WITH ok AS (SELECT 1 WHERE ${fenced('$1', '$7', '$8')}),
         ins AS (
           INSERT INTO ${s}.calls (run_id, key, name, args, status, idempotent, started_at)
           SELECT $1, $2, $3, $4, 'pending', $5, $6 FROM ok
           ON CONFLICT (run_id, key) DO NOTHING RETURNING *),
         b AS (UPDATE ${s}.runs SET bytes = bytes + $9 WHERE id = $1 AND EXISTS (SELECT 1 FROM ins) RETURNING id)
         SELECT ins.*, true AS inserted, (SELECT count(*) FROM b) AS billed FROM ins
         UNION ALL SELECT c.*, false, 0 FROM ${s}.calls c, ok WHERE c.run_id = $1 AND c.key = $2 AND NOT EXISTS (SELECT 1 FROM ins)`,
        [
          c.runId,
          c.key,
          encodeText(c.name),
          args,
          c.idempotent === true,
          Date.now(),
          f.owner,
          f.epoch,
          args.length,
        ],
      );
      if (!rows[0]) return undefined;
      return { inserted: rows[0].inserted === true, record: toCall(rows[0]) };
    },

    async markCallStarted(runId, key, f) {
      const rows = await query(
        `UPDATE ${s}.calls SET status = 'started', epoch = $4
         WHERE run_id = $1 AND key = $2 AND status = 'pending' AND ${fenced('$1', '$3', '$4')} RETURNING key`,
        [runId, key, f.owner, f.epoch],
      );
      return rows.length > 0;
    },

    async finishCall(runId, key, status, result) {
      const text = encodeJson(result) ?? 'null';
      const rows = await query(
        `WITH n AS (UPDATE ${s}.runs SET next_finish = next_finish + 1, bytes = bytes + $5 WHERE id = $1 RETURNING next_finish)
         UPDATE ${s}.calls SET status = $3, result = $4, finish_seq = (SELECT next_finish FROM n), finished_at = $6
         WHERE run_id = $1 AND key = $2 AND status IN ('pending', 'started') RETURNING key`,
        [runId, key, status, text, text.length, Date.now()],
      );
      return rows.length > 0;
    },

    async resolveCall(runId, key, res) {
      const rows =
        res.status === 'pending'
          ? await query(
              `UPDATE ${s}.calls SET status = 'pending' WHERE run_id = $1 AND key = $2 AND status = 'started' RETURNING key`,
              [runId, key],
            )
          : await query(
              `WITH n AS (UPDATE ${s}.runs SET next_finish = next_finish + 1 WHERE id = $1 RETURNING next_finish)
               UPDATE ${s}.calls SET status = $3, result = $4, finish_seq = (SELECT next_finish FROM n), finished_at = $5
               WHERE run_id = $1 AND key = $2 AND status = 'started' RETURNING key`,
              [runId, key, res.status, encodeJson(res.result), Date.now()],
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
      return (await query(`SELECT * FROM ${s}.calls WHERE run_id = $1 ORDER BY ord`, [runId])).map(
        toCall,
      );
    },

    async countCalls(ids) {
      const counts = new Map<string, number>();
      if (ids.length === 0) return counts;
      const rows = await query(
        `SELECT run_id, count(*) AS n FROM ${s}.calls WHERE status <> 'pending' AND run_id = ANY($1) GROUP BY run_id`,
        [[...ids]],
      );
      for (const row of rows) counts.set(String(row.run_id), Number(row.n));
      return counts;
    },

    async recordValue(runId, kind, value, f) {
      const rows = await query(
        `WITH n AS (UPDATE ${s}.runs SET next_value = next_value + 1, bytes = bytes + 16
           WHERE id = $1 AND owner = $4 AND epoch = $5 RETURNING next_value)
         INSERT INTO ${s}.run_values (run_id, seq, kind, value) SELECT $1, next_value, $2, $3 FROM n RETURNING seq`,
        [runId, kind, value, f.owner, f.epoch],
      );
      return rows[0] ? Number(rows[0].seq) : undefined;
    },

    async listValues(runId) {
      return (
        await query(`SELECT * FROM ${s}.run_values WHERE run_id = $1 ORDER BY seq`, [runId])
      ).map(toValue);
    },

    async createApproval(a) {
      const args = encodeJson(a.args) ?? 'null';
      const rows = await query(
        `WITH ins AS (
           INSERT INTO ${s}.approvals (id, run_id, call_key, tool, args, scope, reason, status, created_at, expires_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, 'pending', $8, $9) RETURNING *),
         b AS (UPDATE ${s}.runs SET bytes = bytes + $10 WHERE id = $2)
         SELECT * FROM ins`,
        [
          a.id,
          a.runId,
          encodeText(a.callKey),
          encodeText(a.tool),
          args,
          a.scope,
          encodeText(a.reason),
          Date.now(),
          a.expiresAt ?? null,
          args.length,
        ],
      );
      return toApproval(rows[0]!);
    },

    async getApproval(id, scope) {
      if (!isStorableId(id)) return undefined;
      const params: unknown[] = [id];
      const rows = await query(
        `SELECT * FROM ${s}.approvals WHERE id = $1${scope === undefined ? '' : ` AND scope = $${params.push(scope)}`}`,
        params,
      );
      return rows[0] ? toApproval(rows[0]) : undefined;
    },

    async listApprovals(f = {}) {
      const params: unknown[] = [];
      const where: string[] = [];
      if (f.scope !== undefined) where.push(`scope = $${params.push(f.scope)}`);
      if (f.runId !== undefined) where.push(`run_id = $${params.push(f.runId)}`);
      if (f.status) {
        if (f.status.length === 0) return [];
        where.push(`status = ANY($${params.push([...f.status])})`);
      }
      if (f.after !== undefined)
        where.push(
          f.newestFirst
            ? `ord < coalesce((SELECT ord FROM ${s}.approvals WHERE id = $${params.push(f.after)}), 9223372036854775807)`
            : `ord > coalesce((SELECT ord FROM ${s}.approvals WHERE id = $${params.push(f.after)}), 0)`,
        );
      const rows = await query(
        `SELECT * FROM ${s}.approvals${where.length ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY ord${f.newestFirst ? ' DESC' : ''} LIMIT ${clamp(f.limit)}`,
        params,
      );
      return rows.map(toApproval);
    },

    async decideApproval(id, status, by, scope) {
      if (!isStorableId(id)) return undefined;
      const params: unknown[] = [id, status, encodeText(by), Date.now(), decisions, wakeChannel];
      const rows = await query(
        `WITH u AS (
           UPDATE ${s}.approvals SET status = $2, decided_by = $3, decided_at = $4
           WHERE id = $1 AND status = 'pending'${scope === undefined ? '' : ` AND scope = $${params.push(scope)}`}
           RETURNING *)
         SELECT u.*, pg_notify($5, u.id) AS n1, pg_notify($6, u.run_id) AS n2 FROM u`,
        params,
      );
      if (!rows[0]) return undefined;
      wakeApproval(id);
      return toApproval(rows[0]);
    },

    async expireApprovals(now, by) {
      const rows = await query(
        `WITH u AS (
           UPDATE ${s}.approvals SET status = 'unavailable', decided_by = $2, decided_at = $1
           WHERE id IN (SELECT id FROM ${s}.approvals WHERE status = 'pending' AND expires_at < $1 ORDER BY ord LIMIT 500)
             AND status = 'pending'
           RETURNING *)
         SELECT u.*, pg_notify($3, u.id) AS n1, pg_notify($4, u.run_id) AS n2 FROM u`,
        [now, encodeText(by), decisions, wakeChannel],
      );
      const decided = rows.map(toApproval);
      for (const a of decided) wakeApproval(a.id);
      return decided;
    },

    async waitForDecision(id, o: WaitOptions = {}) {
      await listen();
      return waiters.wait(
        id,
        (x) => store.getApproval(x),
        o,
        () => closed !== undefined,
      );
    },

    async appendEvent(runId, type, data) {
      return inTx((q) => append(q, runId, type, data));
    },

    async listEvents(runId, after = 0, limit) {
      const rows = await query(
        `SELECT * FROM ${s}.events WHERE run_id = $1 AND seq > $2 ORDER BY seq LIMIT ${clamp(limit)}`,
        [runId, after],
      );
      return rows.map(toEvent);
    },

    onWake(listener) {
      wakeListeners.add(listener);
      void listen();
      return () => wakeListeners.delete(listener);
    },

    async usage(scope) {
      const [row] = await query(
        `SELECT count(*) FILTER (WHERE status = 'queued') AS queued, count(*) FILTER (WHERE finished_at IS NULL) AS unsettled,
           coalesce(sum(bytes), 0) AS bytes FROM ${s}.runs WHERE scope = $1`,
        [scope],
      );
      return {
        queued: Number(row?.queued ?? 0),
        unsettled: Number(row?.unsettled ?? 0),
        bytes: Number(row?.bytes ?? 0),
      };
    },

    async stats() {
      const [row] = await query(
        `SELECT (SELECT count(*) FROM ${s}.runs) AS runs, (SELECT count(*) FROM ${s}.events) AS events,
           (SELECT count(*) FROM ${s}.calls) AS calls,
           (SELECT count(*) FROM ${s}.approvals WHERE status = 'pending') AS pending,
           (SELECT coalesce(sum(bytes), 0) FROM ${s}.runs) AS bytes`,
      );
      return {
        runs: Number(row?.runs ?? 0),
        events: Number(row?.events ?? 0),
        calls: Number(row?.calls ?? 0),
        approvalsPending: Number(row?.pending ?? 0),
        bytes: Number(row?.bytes ?? 0),
      };
    },

    async deleteSettled(before, limit) {
      const rows = await query(
        `DELETE FROM ${s}.runs WHERE id IN (SELECT id FROM ${s}.runs WHERE status IN (${FINAL})
           AND finished_at IS NOT NULL AND finished_at < $1 LIMIT ${clamp(limit)}) RETURNING id`,
        [before],
      );
      return rows.length;
    },

    async ping() {
      await query('SELECT 1');
    },

    close: () =>
      (closed ??= (async () => {
        wakeApproval('*');
        await client.close();
      })()),
  };
  return store;
}
