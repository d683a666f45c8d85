/** The PostgreSQL store's approvals: create, read, list, decide and expire (decisions announced by NOTIFY). */
import { IsocodeError } from '../errors.js';
import { encodeJson, encodeText, isStorableId } from './encode.js';
import { refuseAllowingDamaged, toApproval, type Row } from './rows.js';
import type { SqlQuery } from './sql-client.js';
import { clamp, type SqlContext } from './sql-context.js';
import { approvalEventData, type ApprovalRecord, type RunStoreApprovals } from './store.js';

/** The approval methods of the store on `ctx`. */
export function approvalMethods(ctx: SqlContext): RunStoreApprovals {
  const { s, decisions, wakeChannel, query, inTx, append, lockRuns, wakeApproval } = ctx;
  /** Appends the `approval` event of each of `changed` inside transaction `q`. */
  const eventsOf = async (q: SqlQuery, changed: readonly ApprovalRecord[]): Promise<void> => {
    for (const a of changed) await append(q, a.runId, 'approval', approvalEventData(a));
  };
  return {
    async createApproval(a) {
      const args = encodeJson(a.args) ?? 'null';
      return inTx(async (q) => {
        // The run's row first (the lock order); a settled run takes no new ask: it would wait for
        // a human forever, after the result.
        const [run] = await lockRuns(q, [a.runId]);
        if (!run) throw new IsocodeError('NOT_FOUND', 'unknown run');
        if (run.settled)
          throw new IsocodeError(
            'NOT_FOUND',
            `run ${a.runId} is settled: it takes no new approval`,
          );
        const rows = await q<Row>(
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
        const asked = toApproval(rows[0]!);
        await eventsOf(q, [asked]);
        return asked;
      });
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
      // A cursor that names no approval of the listed scope (another tenant's, a deleted one) is
      // past the end: an empty page, never a restart from the first (a pager would loop).
      if (f.after !== undefined) {
        const ofScope = f.scope === undefined ? '' : ` AND scope = $${params.push(f.scope)}`;
        const cursor = `(SELECT ord FROM ${s}.approvals WHERE id = $${params.push(f.after)}${ofScope})`;
        where.push(
          f.newestFirst
            ? `ord < coalesce(${cursor}, 0)`
            : `ord > coalesce(${cursor}, 9223372036854775807)`,
        );
      }
      const rows = await query(
        `SELECT * FROM ${s}.approvals${where.length ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY ord${f.newestFirst ? ' DESC' : ''} LIMIT ${clamp(f.limit)}`,
        params,
      );
      return rows.map(toApproval);
    },

    async decideApproval(id, status, by, scope) {
      if (!isStorableId(id)) return undefined;
      const params: unknown[] = [id, status, encodeText(by), Date.now(), decisions, wakeChannel];
      const ofScope = scope === undefined ? '' : ` AND scope = $${params.push(scope)}`;
      const decided = await inTx(async (q) => {
        const [row] = await q<Row>(
          `SELECT * FROM ${s}.approvals WHERE id = $1${scope === undefined ? '' : ' AND scope = $2'}`,
          scope === undefined ? [id] : [id, scope],
        );
        if (!row) return undefined;
        const asked = toApproval(row);
        // The approval's text is written once, at its creation: what is read here is what the
        // update decides.
        if (status === 'allowed-once') refuseAllowingDamaged(asked, status);
        await lockRuns(q, [asked.runId]); // the run's row first (the lock order)
        const rows = await q<Row>(
          `WITH u AS (
             UPDATE ${s}.approvals SET status = $2, decided_by = $3, decided_at = $4
             WHERE id = $1 AND status = 'pending'${ofScope}
             RETURNING *)
           SELECT u.*, pg_notify($5, u.id) AS n1, pg_notify($6, u.run_id) AS n2 FROM u`,
          params,
        );
        if (!rows[0]) return undefined;
        const decided = toApproval(rows[0]);
        await eventsOf(q, [decided]);
        return decided;
      });
      if (decided) wakeApproval(id);
      return decided;
    },

    async expireApprovals(now, by) {
      const decided = await inTx(async (q) => {
        // The runs' rows first (the lock order); only approvals of the runs locked are decided.
        const due = await q<{ run_id: string }>(
          `SELECT DISTINCT run_id FROM (SELECT run_id FROM ${s}.approvals
             WHERE status = 'pending' AND expires_at < $1 ORDER BY ord LIMIT 500) d`,
          [now],
        );
        const locked = await lockRuns(
          q,
          due.map((r) => String(r.run_id)),
        );
        if (locked.length === 0) return [];
        const rows = await q<Row>(
          `WITH u AS (
           UPDATE ${s}.approvals SET status = 'unavailable', decided_by = $2, decided_at = $1
           WHERE id IN (SELECT id FROM ${s}.approvals WHERE status = 'pending' AND expires_at < $1 ORDER BY ord LIMIT 500)
             AND status = 'pending' AND run_id = ANY($5)
           RETURNING *)
         SELECT u.*, pg_notify($3, u.id) AS n1, pg_notify($4, u.run_id) AS n2 FROM u`,
          [now, encodeText(by), decisions, wakeChannel, locked.map((r) => r.id)],
        );
        const decided = rows.map(toApproval);
        await eventsOf(q, decided);
        return decided;
      });
      for (const a of decided) wakeApproval(a.id);
      return decided;
    },
  };
}
