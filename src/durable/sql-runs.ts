/** The PostgreSQL store's runs: create, read, list, update, claim, lease, release and settle. */
import { IsocodeError } from '../errors.js';
import { encodeJson, encodeText, isStorableId } from './encode.js';
import { toApproval, toRun, type Row } from './rows.js';
import { clamp, len, type SqlContext } from './sql-context.js';
import {
  approvalEventData,
  lifeEventData,
  PARKED_EVENT,
  QUEUED_EVENT,
  planSettlement,
  type ApprovalRecord,
  type RunEvent,
  type RunStoreRuns,
} from './store.js';

/** The run methods of the store on `ctx`. */
export function runMethods(ctx: SqlContext): RunStoreRuns {
  const { s, decisions, wakeChannel, query, inTx, notify, wakeApproval, append, claimable } = ctx;
  return {
    async createRun(n) {
      const t = Date.now();
      const program = encodeText(n.program) ?? '""';
      const rows = await inTx(async (q) => {
        const inserted = await q<Row>(
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
        // The run's first event, with it: a queued run's, or the start of its first life.
        if (inserted[0])
          await append(q, n.id, 'status', n.lease ? lifeEventData(n.lease.owner, 1) : QUEUED_EVENT);
        return inserted;
      });
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
      return inTx(async (q) => {
        const [row] = await q<Row>(
          `UPDATE ${s}.runs SET owner = $2, lease_expires_at = $3, epoch = epoch + 1, parked = false, updated_at = $5,
             started_at = CASE WHEN status = 'queued' THEN coalesce(started_at, $4) ELSE started_at END,
             status = CASE WHEN status = 'queued' THEN 'running' ELSE status END
           WHERE id = $1 AND ${claimable('$4')} RETURNING *`,
          [id, owner, until, now, Date.now()],
        );
        if (!row) return undefined;
        const claimed = toRun(row);
        await append(q, id, 'status', lifeEventData(owner, claimed.epoch));
        return claimed;
      });
    },

    async listClaimable(now, limit, skipScopes = []) {
      const skip = skipScopes.length > 0;
      const rows = await query(
        `SELECT * FROM (SELECT *, row_number() OVER (PARTITION BY scope ORDER BY created_at, id) AS turn
           FROM ${s}.runs WHERE ${claimable('$1')}${skip ? ' AND NOT (scope = ANY($2::text[]))' : ''}) c
           ORDER BY turn, created_at, id LIMIT ${clamp(limit)}`,
        skip ? [now, [...skipScopes]] : [now],
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

    async changeStatus(id, status, from) {
      if (!isStorableId(id) || from.length === 0) return undefined;
      return inTx(async (q) => {
        const [row] = await q<Row>(
          `UPDATE ${s}.runs SET status = $2, updated_at = $3 WHERE id = $1 AND status = ANY($4) RETURNING *`,
          [id, status, Date.now(), [...from]],
        );
        if (!row) return undefined;
        await append(q, id, 'status', { status });
        return toRun(row);
      });
    },

    async releaseRun(id, f, o = {}) {
      const released = await inTx(async (q) => {
        const rows = await q<Row>(
          `UPDATE ${s}.runs SET owner = NULL, lease_expires_at = NULL, parked = $4, updated_at = $5
           WHERE id = $1 AND owner = $2 AND epoch = $3 RETURNING id`,
          [id, f.owner, f.epoch, o.parked === true, Date.now()],
        );
        if (rows.length > 0 && o.parked === true) await append(q, id, 'status', PARKED_EVENT);
        return rows.length > 0;
      });
      if (released) await notify(wakeChannel, id);
      return released;
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
        const plan = planSettlement(r, st, now);
        const result = plan.result === undefined ? null : encodeJson(plan.result);
        const error = plan.error === undefined ? null : encodeJson(plan.error);
        const [updated] = await q<Row>(
          `UPDATE ${s}.runs SET status = $2, result = coalesce($3, result), error = coalesce($4, error), finished_at = $5,
             owner = NULL, lease_expires_at = NULL, parked = false, updated_at = $6, bytes = bytes + $7
           WHERE id = $1 RETURNING *`,
          [id, plan.status, result, error, plan.finishedAt, now, len(result) + len(error)],
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
            const e = await append(q, id, 'approval', approvalEventData(a));
            if (e) events.push(e);
          }
        }
        for (const ev of plan.events) {
          const e = await append(q, id, ev.type, ev.data);
          if (e) events.push(e);
        }
        return { run: toRun(updated!), events, approvals };
      });
      for (const a of out?.approvals ?? []) wakeApproval(a.id);
      return out;
    },
  };
}
