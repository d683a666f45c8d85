/** The embedded store's approvals: create, read, list, decide and expire (one transaction each). */
import { IsocodeError } from '../errors.js';
import { encodeJson, encodeText, isStorableId } from './encode.js';
import { refuseAllowingDamaged, toApproval as approvalOf } from './rows.js';
import { Conditions, clamp, marks, type SqliteContext } from './sqlite-context.js';
import { approvalEventData, type RunStoreApprovals } from './store.js';

/** A new ask of a settled run is refused like one of an unknown run. */
const settledRun = (runId: string): IsocodeError =>
  new IsocodeError('NOT_FOUND', `run ${runId} is settled: it takes no new approval`);

/** The approval methods of the store on `ctx`. */
export function approvalMethods(ctx: SqliteContext): RunStoreApprovals {
  const { tx, one, all, addBytes, append, decide, announce } = ctx;
  return {
    createApproval: (a) =>
      tx(() => {
        // A settled run takes no new ask: it would wait for a human forever, after the result.
        const run = one('SELECT finished_at FROM runs WHERE id = ?', a.runId);
        if (run && run.finished_at !== null) throw settledRun(a.runId);
        const args = encodeJson(a.args) ?? 'null';
        const row = one(
          `INSERT INTO approvals (id, run_id, call_key, tool, args, scope, reason, status, created_at, expires_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, 'pending', ?, ?) RETURNING *`,
          a.id,
          a.runId,
          encodeText(a.callKey),
          encodeText(a.tool),
          args,
          a.scope,
          encodeText(a.reason),
          Date.now(),
          a.expiresAt ?? null,
        );
        addBytes(a.runId, args.length);
        const asked = approvalOf(row!);
        append(a.runId, 'approval', approvalEventData(asked), asked.createdAt);
        return asked;
      }).catch((e: unknown) => {
        const cause = (e as { cause?: unknown }).cause;
        if (/FOREIGN KEY/i.test(cause instanceof Error ? cause.message : ''))
          throw new IsocodeError('NOT_FOUND', 'unknown run', { cause });
        throw e;
      }),

    getApproval: (id, scope) =>
      !isStorableId(id)
        ? Promise.resolve(undefined)
        : tx(() => {
            const row = one('SELECT * FROM approvals WHERE id = ?', id);
            const a = row ? approvalOf(row) : undefined;
            return a && (scope === undefined || a.scope === scope) ? a : undefined;
          }),

    listApprovals: (f = {}) =>
      tx(() => {
        const where = new Conditions();
        const cond = where.add.bind(where);
        if (f.scope !== undefined) cond('scope = ?', f.scope);
        if (f.runId !== undefined) cond('run_id = ?', f.runId);
        if (f.status) {
          if (f.status.length === 0) return [];
          cond(`status IN (${marks(f.status.length)})`, ...f.status);
        }
        // A cursor that names no approval of the listed scope (another tenant's, a deleted one)
        // is past the end: an empty page, never a restart from the first (a pager would loop).
        if (f.after !== undefined)
          cond(
            `ord ${f.newestFirst ? '<' : '>'} coalesce((SELECT ord FROM approvals WHERE id = ?${f.scope === undefined ? '' : ' AND scope = ?'}), ${f.newestFirst ? '0' : '9007199254740991'})`,
            f.after,
            ...(f.scope === undefined ? [] : [f.scope]),
          );
        return all(
          `SELECT * FROM approvals${where.clause} ORDER BY ord${f.newestFirst ? ' DESC' : ''} LIMIT ${clamp(f.limit)}`,
          ...where.params,
        ).map(approvalOf);
      }),

    decideApproval: (id, status, by, scope) =>
      !isStorableId(id)
        ? Promise.resolve(undefined)
        : tx(() => {
            const row = one('SELECT * FROM approvals WHERE id = ?', id);
            const asked = row ? approvalOf(row) : undefined;
            if (asked === undefined || (scope !== undefined && asked.scope !== scope))
              return undefined;
            refuseAllowingDamaged(asked, status);
            const d = decide(id, status, by, Date.now());
            if (d) announce([d.approval]);
            return d?.approval;
          }),

    expireApprovals: (now, by) =>
      tx(() => {
        const due = all(
          `SELECT id FROM approvals WHERE status = 'pending' AND expires_at IS NOT NULL AND expires_at < ? ORDER BY ord LIMIT 500`,
          now,
        );
        const decided = due.flatMap((r) => decide(String(r.id), 'unavailable', by, now) ?? []);
        const approvals = decided.map((d) => d.approval);
        announce(approvals);
        return approvals;
      }),
  };
}
