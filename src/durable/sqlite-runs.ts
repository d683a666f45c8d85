/** The embedded store's runs: create, read, list, update, claim, lease, release and settle (one transaction each). */
import { encodeJson, encodeText, isStorableId } from './encode.js';
import type { SqlValue } from './sqlite-driver.js';
import { toRun as runOf } from './rows.js';
import { CLAIMABLE, Conditions, clamp, len, marks, type SqliteContext } from './sqlite-context.js';
import {
  lifeEventData,
  PARKED_EVENT,
  QUEUED_EVENT,
  planSettlement,
  type ApprovalRecord,
  type RunEvent,
  type RunStoreRuns,
} from './store.js';

/** The run methods of the store on `ctx`. */
export function runMethods(ctx: SqliteContext): RunStoreRuns {
  const { tx, one, all, run, getRun, append, decide, announce, wake } = ctx;
  return {
    createRun: (n) =>
      tx(() => {
        const t = Date.now();
        const program = encodeText(n.program) ?? '""';
        const key = encodeText(n.idempotencyKey);
        if (key !== null) {
          const existing = one(
            'SELECT * FROM runs WHERE scope = ? AND idempotency_key = ?',
            n.scope,
            key,
          );
          if (existing) return { run: runOf(existing), created: false };
        }
        const row = one(
          `INSERT INTO runs (id, scope, program, description, status, owner, lease_expires_at, epoch, limits,
             idempotency_key, request_hash, bytes, created_at, updated_at, started_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING *`,
          n.id,
          n.scope,
          program,
          encodeText(n.description),
          n.lease ? 'running' : 'queued',
          n.lease?.owner ?? null,
          n.lease?.expiresAt ?? null,
          n.lease ? 1 : 0,
          encodeJson(n.limits),
          key,
          n.requestHash ?? null,
          program.length,
          t,
          t,
          n.lease ? t : null,
        );
        if (n.lease) append(n.id, 'status', lifeEventData(n.lease.owner, 1), t);
        else {
          append(n.id, 'status', QUEUED_EVENT, t);
          wake();
        }
        return { run: runOf(row!), created: true };
      }),

    getRun: (id, scope) =>
      !isStorableId(id)
        ? Promise.resolve(undefined)
        : tx(() => {
            const r = getRun(id);
            return r && (scope === undefined || r.scope === scope) ? r : undefined;
          }),

    listRuns: (f = {}) =>
      tx(() => {
        const where = new Conditions();
        const cond = where.add.bind(where);
        if (f.scope !== undefined) cond('scope = ?', f.scope);
        if (f.status) {
          if (f.status.length === 0) return [];
          cond(`status IN (${marks(f.status.length)})`, ...f.status);
        }
        if (f.unsettled === true) cond('finished_at IS NULL');
        if (f.leaseExpiredBefore !== undefined)
          cond('(lease_expires_at IS NULL OR lease_expires_at < ?)', f.leaseExpiredBefore);
        if (f.idempotencyKey !== undefined)
          cond('idempotency_key = ?', encodeText(f.idempotencyKey));
        if (f.createdBefore !== undefined) cond('created_at < ?', f.createdBefore);
        return all(
          `SELECT * FROM runs${where.clause}
           ORDER BY created_at DESC, id LIMIT ${clamp(f.limit)}`,
          ...where.params,
        ).map(runOf);
      }),

    updateRun: (id, p, e = {}) =>
      tx(() => {
        const r = getRun(id);
        if (
          !r ||
          (e.status && !e.status.includes(r.status)) ||
          (e.owner !== undefined && (r.owner ?? null) !== e.owner) ||
          (e.epoch !== undefined && r.epoch !== e.epoch)
        )
          return undefined;
        const set: string[] = ['updated_at = ?'];
        const params: SqlValue[] = [Date.now()];
        const column = (name: string, value: SqlValue): void => {
          set.push(`${name} = ?`);
          params.push(value);
        };
        if (p.status !== undefined) column('status', p.status);
        if (p.owner !== undefined) column('owner', p.owner);
        if (p.leaseExpiresAt !== undefined) column('lease_expires_at', p.leaseExpiresAt);
        if (p.parked !== undefined) column('parked', p.parked ? 1 : 0);
        if (p.result !== undefined) column('result', encodeJson(p.result));
        if (p.error !== undefined) column('error', p.error === null ? null : encodeJson(p.error));
        if (p.startedAt !== undefined) column('started_at', p.startedAt);
        if (p.finishedAt !== undefined) column('finished_at', p.finishedAt);
        const row = one(
          `UPDATE runs SET ${set.join(', ')} WHERE id = ? RETURNING *`,
          ...params,
          id,
        );
        const updated = row ? runOf(row) : undefined;
        if (updated?.status === 'queued' && updated.owner === undefined) wake();
        return updated;
      }),

    claimRun: (id, owner, until, now) =>
      tx(() => {
        const row = one(
          `UPDATE runs SET owner = ?, lease_expires_at = ?, epoch = epoch + 1, parked = 0, updated_at = ?,
             started_at = CASE WHEN status = 'queued' THEN coalesce(started_at, ?) ELSE started_at END,
             status = CASE WHEN status = 'queued' THEN 'running' ELSE status END
           WHERE id = ? AND ${CLAIMABLE} RETURNING *`,
          owner,
          until,
          Date.now(),
          now,
          id,
          now,
        );
        if (!row) return undefined;
        const claimed = runOf(row);
        append(id, 'status', lifeEventData(owner, claimed.epoch), Date.now());
        return claimed;
      }),

    listClaimable: (now, limit, skipScopes = []) =>
      tx(() =>
        all(
          `SELECT * FROM (SELECT *, row_number() OVER (PARTITION BY scope ORDER BY created_at, id) AS turn
             FROM runs WHERE ${CLAIMABLE}${skipScopes.length > 0 ? ` AND scope NOT IN (SELECT value FROM json_each(?))` : ''})
             ORDER BY turn, created_at, id LIMIT ${clamp(limit)}`,
          now,
          ...(skipScopes.length > 0 ? [JSON.stringify(skipScopes)] : []),
        ).map(runOf),
      ),

    renewLease: (id, f, until) =>
      tx(
        () =>
          run(
            'UPDATE runs SET lease_expires_at = ? WHERE id = ? AND owner = ? AND epoch = ? AND finished_at IS NULL',
            until,
            id,
            f.owner,
            f.epoch,
          ) > 0,
      ),

    changeStatus: (id, status, from) =>
      !isStorableId(id)
        ? Promise.resolve(undefined)
        : tx(() => {
            const r = getRun(id);
            if (!r || !from.includes(r.status)) return undefined;
            const now = Date.now();
            const row = one(
              'UPDATE runs SET status = ?, updated_at = ? WHERE id = ? RETURNING *',
              status,
              now,
              id,
            );
            append(id, 'status', { status }, now);
            return runOf(row!);
          }),

    releaseRun: (id, f, o = {}) =>
      tx(() => {
        const now = Date.now();
        const n = run(
          'UPDATE runs SET owner = NULL, lease_expires_at = NULL, parked = ?, updated_at = ? WHERE id = ? AND owner = ? AND epoch = ?',
          o.parked === true ? 1 : 0,
          now,
          id,
          f.owner,
          f.epoch,
        );
        if (n > 0 && o.parked === true) append(id, 'status', PARKED_EVENT, now);
        if (n > 0) wake();
        return n > 0;
      }),

    settleRun: (id, f, s) =>
      tx(() => {
        const now = Date.now();
        const r = getRun(id);
        if (!r || r.finishedAt !== undefined) return undefined;
        const mine =
          f === null
            ? r.owner === undefined || (r.leaseExpiresAt ?? 0) < now
            : r.owner === f.owner && r.epoch === f.epoch;
        if (!mine) return undefined;
        const plan = planSettlement(r, s, now);
        const result = plan.result === undefined ? undefined : encodeJson(plan.result);
        const error = plan.error === undefined ? undefined : encodeJson(plan.error);
        const row = one(
          `UPDATE runs SET status = ?, result = coalesce(?, result), error = coalesce(?, error), finished_at = ?,
             owner = NULL, lease_expires_at = NULL, parked = 0, updated_at = ?, bytes = bytes + ? WHERE id = ? RETURNING *`,
          plan.status,
          result ?? null,
          error ?? null,
          plan.finishedAt,
          now,
          len(result ?? null) + len(error ?? null),
          id,
        );
        const approvals: ApprovalRecord[] = [];
        const events: RunEvent[] = [];
        if (s.cancelPendingApprovalsAs !== undefined)
          for (const a of all(
            `SELECT id FROM approvals WHERE run_id = ? AND status = 'pending' ORDER BY ord`,
            id,
          )) {
            const d = decide(String(a.id), 'cancelled', s.cancelPendingApprovalsAs, now);
            if (!d) continue;
            approvals.push(d.approval);
            if (d.event) events.push(d.event);
          }
        for (const ev of plan.events) {
          const e = append(id, ev.type, ev.data, now);
          if (e) events.push(e);
        }
        announce(approvals);
        return { run: runOf(row!), events, approvals };
      }),
  };
}
