/**
 * The embedded run store: SQLite in this process (in memory, or a file one process owns). Every
 * method is one synchronous transaction, so the contract's compare-and-sets are plain conditional
 * statements; wake-ups and approval waiters are in process (one process holds the database: a
 * second one opening the same file is refused at open, by SQLite's exclusive lock, which the
 * kernel frees when the holder dies).
 */
import { IsocodeError } from '../errors.js';
import type { JsonValue } from '../json.js';
import { Emitter } from '../events/emitter.js';
import { encodeJson, encodeText, isStorableId } from './encode.js';
import { ApprovalWaiters } from './approval-waiters.js';
import { openSqlite, type SqliteDb, type SqlValue } from './sqlite-driver.js';
import {
  toApproval as approvalOf,
  toCall as callOf,
  toEvent as eventOf,
  toRun as runOf,
  toValue as valueOf,
} from './rows.js';
import { SQLITE_SCHEMA, SQLITE_SCHEMA_VERSION } from './sqlite-schema.js';
import {
  FINAL_STATUSES,
  type ApprovalRecord,
  type Fence,
  type RunEvent,
  type RunRecord,
  type RunStore,
} from './store.js';

/** Options of {@link openSqliteStore}. */
export interface SqliteStoreOptions {
  /** A database file (created if missing). @default in memory */
  path?: string | undefined;
  /** How often an approval waiter re-reads its approval on top of in-process wake-ups. @default 1000 */
  pollMs?: number | undefined;
}

const MAX_LIST = 1000;
const clamp = (limit: number | undefined): number =>
  Math.max(1, Math.min(MAX_LIST, Math.trunc(limit ?? 100) || 100));
const marks = (n: number): string => Array.from({ length: n }, () => '?').join(', ');
const FINAL = FINAL_STATUSES.map((s) => `'${s}'`).join(', ');
/** Runs a replica may claim at `?` (now): the contract's rule, once. */
const CLAIMABLE = `status NOT IN (${FINAL}, 'interrupted') AND finished_at IS NULL
  AND (owner IS NULL OR lease_expires_at IS NULL OR lease_expires_at < ?)
  AND (parked = 0 OR NOT EXISTS (SELECT 1 FROM approvals a WHERE a.run_id = runs.id AND a.status = 'pending'))`;
const len = (text: string | null): number => (text === null ? 0 : text.length);

/** Opens (and creates) the embedded store. @throws IsocodeError STORE_UNAVAILABLE when another process holds the file. */
export function openSqliteStore(options: SqliteStoreOptions = {}): RunStore {
  const path = options.path ?? ':memory:';
  const pollMs = Math.max(10, options.pollMs ?? 1000);
  let db: SqliteDb;
  try {
    db = openSqlite(path).db;
  } catch (cause) {
    if (cause instanceof IsocodeError) throw cause;
    throw new IsocodeError('STORE_UNAVAILABLE', `the embedded run store ${path} cannot be opened`, {
      cause,
    });
  }
  try {
    db.exec('PRAGMA busy_timeout = 0');
    if (path !== ':memory:') {
      // One process per file: the exclusive lock is taken by the first write and held until close.
      db.exec('PRAGMA locking_mode = EXCLUSIVE');
      db.exec('PRAGMA journal_mode = WAL');
      db.exec('PRAGMA synchronous = NORMAL');
    }
    db.exec('PRAGMA foreign_keys = ON');
    db.exec('BEGIN IMMEDIATE');
    const version = Number(db.prepare('PRAGMA user_version').get()?.user_version ?? 0);
    if (version === 0) {
      db.exec(SQLITE_SCHEMA);
      db.exec(`PRAGMA user_version = ${SQLITE_SCHEMA_VERSION}`);
    } else if (version !== SQLITE_SCHEMA_VERSION) {
      db.exec('ROLLBACK');
      throw new IsocodeError(
        'INVALID_CONFIG',
        `the embedded run store ${path} has schema version ${version}; this isocode reads ${SQLITE_SCHEMA_VERSION}`,
      );
    }
    db.exec('COMMIT');
  } catch (cause) {
    db.close();
    if (cause instanceof IsocodeError) throw cause;
    const busy = /locked|busy/i.test(cause instanceof Error ? cause.message : String(cause));
    throw new IsocodeError(
      'STORE_UNAVAILABLE',
      busy
        ? `the embedded run store ${path} is in use by another process (one process per store path; use PostgreSQL, store.url, for several replicas)`
        : `the embedded run store ${path} cannot be opened`,
      { cause },
    );
  }

  let closed = false;
  const wakes = new Emitter<[]>();
  const waiters = new ApprovalWaiters(pollMs);
  const wake = (): void => void queueMicrotask(() => wakes.emit());
  const wakeApproval = (id: string): void => waiters.wake(id);

  /** Runs `fn` in one write transaction. Every store method goes through here. */
  function tx<T>(fn: () => T): Promise<T> {
    if (closed)
      return Promise.reject(new IsocodeError('STORE_UNAVAILABLE', 'the run store is closed'));
    try {
      db.exec('BEGIN IMMEDIATE');
      try {
        const out = fn();
        db.exec('COMMIT');
        return Promise.resolve(out);
      } catch (error) {
        db.exec('ROLLBACK');
        throw error;
      }
    } catch (cause) {
      if (cause instanceof IsocodeError) return Promise.reject(cause);
      return Promise.reject(
        new IsocodeError('INTERNAL_ERROR', 'the embedded run store failed', { cause }),
      );
    }
  }
  const one = (sql: string, ...params: SqlValue[]) => db.prepare(sql).get(...params);
  const all = (sql: string, ...params: SqlValue[]) => db.prepare(sql).all(...params);
  const run = (sql: string, ...params: SqlValue[]): number =>
    Number(db.prepare(sql).run(...params).changes);

  const getRun = (id: string): RunRecord | undefined => {
    const row = one('SELECT * FROM runs WHERE id = ?', id);
    return row ? runOf(row) : undefined;
  };
  const holds = (id: string, f: Fence): boolean =>
    one(
      'SELECT 1 AS ok FROM runs WHERE id = ? AND owner = ? AND epoch = ?',
      id,
      f.owner,
      f.epoch,
    ) !== undefined;
  const addBytes = (id: string, n: number): void => {
    run('UPDATE runs SET bytes = bytes + ? WHERE id = ?', n, id);
  };
  const append = (
    runId: string,
    type: string,
    data: JsonValue,
    at: number,
  ): RunEvent | undefined => {
    const text = encodeJson(data) ?? 'null';
    const row = one(
      'UPDATE runs SET next_event = next_event + 1, bytes = bytes + ? WHERE id = ? RETURNING next_event',
      text.length,
      runId,
    );
    if (!row) return undefined;
    const seq = Number(row.next_event);
    run(
      'INSERT INTO events (run_id, seq, type, data, at) VALUES (?, ?, ?, ?, ?)',
      runId,
      seq,
      type,
      text,
      at,
    );
    return { runId, seq, type, data: JSON.parse(text) as JsonValue, at };
  };
  const decide = (
    id: string,
    status: string,
    by: string,
    at: number,
  ): ApprovalRecord | undefined => {
    const row = one(
      `UPDATE approvals SET status = ?, decided_by = ?, decided_at = ? WHERE id = ? AND status = 'pending' RETURNING *`,
      status,
      encodeText(by),
      at,
      id,
    );
    return row ? approvalOf(row) : undefined;
  };
  const approvalEvent = (a: ApprovalRecord): JsonValue => ({
    id: a.id,
    tool: a.tool,
    status: a.status,
    reason: a.reason,
    decidedBy: a.decidedBy ?? null,
  });
  const announce = (decided: readonly ApprovalRecord[]): void => {
    for (const a of decided) wakeApproval(a.id);
    if (decided.length > 0) wake();
  };

  const store: RunStore = {
    kind: 'sqlite',

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
        if (!n.lease) wake();
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
        const where: string[] = [];
        const params: SqlValue[] = [];
        const cond = (sql: string, ...values: SqlValue[]): void => {
          where.push(sql);
          params.push(...values);
        };
        if (f.scope !== undefined) cond('scope = ?', f.scope);
        if (f.status) {
          if (f.status.length === 0) return [];
          where.push(`status IN (${marks(f.status.length)})`);
          params.push(...f.status);
        }
        if (f.unsettled === true) where.push('finished_at IS NULL');
        if (f.leaseExpiredBefore !== undefined)
          cond('(lease_expires_at IS NULL OR lease_expires_at < ?)', f.leaseExpiredBefore);
        if (f.idempotencyKey !== undefined)
          cond('idempotency_key = ?', encodeText(f.idempotencyKey));
        if (f.createdBefore !== undefined) cond('created_at < ?', f.createdBefore);
        return all(
          `SELECT * FROM runs${where.length ? ` WHERE ${where.join(' AND ')}` : ''}
           ORDER BY created_at DESC, id LIMIT ${clamp(f.limit)}`,
          ...params,
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
        return row ? runOf(row) : undefined;
      }),

    listClaimable: (now, limit) =>
      tx(() =>
        all(
          `SELECT * FROM (SELECT *, row_number() OVER (PARTITION BY scope ORDER BY created_at, id) AS turn
             FROM runs WHERE ${CLAIMABLE}) ORDER BY turn, created_at, id LIMIT ${clamp(limit)}`,
          now,
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

    releaseRun: (id, f, o = {}) =>
      tx(() => {
        const n = run(
          'UPDATE runs SET owner = NULL, lease_expires_at = NULL, parked = ?, updated_at = ? WHERE id = ? AND owner = ? AND epoch = ?',
          o.parked === true ? 1 : 0,
          Date.now(),
          id,
          f.owner,
          f.epoch,
        );
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
        const result = s.result === undefined ? undefined : encodeJson(s.result);
        const error = s.error === undefined ? undefined : encodeJson(s.error);
        const row = one(
          `UPDATE runs SET status = ?, result = coalesce(?, result), error = coalesce(?, error), finished_at = ?,
             owner = NULL, lease_expires_at = NULL, parked = 0, updated_at = ?, bytes = bytes + ? WHERE id = ? RETURNING *`,
          s.status,
          result ?? null,
          error ?? null,
          s.finishedAt === null ? null : (s.finishedAt ?? now),
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
            approvals.push(d);
            const e = append(id, 'approval', approvalEvent(d), now);
            if (e) events.push(e);
          }
        for (const ev of s.events) {
          const e = append(id, ev.type, ev.data, now);
          if (e) events.push(e);
        }
        announce(approvals);
        return { run: runOf(row!), events, approvals };
      }),

    recordArrival: (c, f) =>
      tx(() => {
        if (!holds(c.runId, f)) return undefined;
        const existing = one('SELECT * FROM calls WHERE run_id = ? AND key = ?', c.runId, c.key);
        if (existing) return { inserted: false, record: callOf(existing) };
        const args = encodeJson(c.args) ?? 'null';
        const ord = Number(
          one('SELECT count(*) AS n FROM calls WHERE run_id = ?', c.runId)?.n ?? 0,
        );
        const row = one(
          `INSERT INTO calls (run_id, key, ord, name, args, status, idempotent, started_at)
           VALUES (?, ?, ?, ?, ?, 'pending', ?, ?) RETURNING *`,
          c.runId,
          c.key,
          ord,
          encodeText(c.name),
          args,
          c.idempotent === true ? 1 : 0,
          Date.now(),
        );
        addBytes(c.runId, args.length);
        return { inserted: true, record: callOf(row!) };
      }),

    markCallStarted: (runId, key, f) =>
      tx(
        () =>
          holds(runId, f) &&
          run(
            `UPDATE calls SET status = 'started', epoch = ? WHERE run_id = ? AND key = ? AND status = 'pending'`,
            f.epoch,
            runId,
            key,
          ) > 0,
      ),

    finishCall: (runId, key, status, result) =>
      tx(() => {
        const text = encodeJson(result) ?? 'null';
        const seq = one(
          'UPDATE runs SET next_finish = next_finish + 1, bytes = bytes + ? WHERE id = ? RETURNING next_finish',
          text.length,
          runId,
        );
        if (!seq) return false;
        const n = run(
          `UPDATE calls SET status = ?, result = ?, finish_seq = ?, finished_at = ?
           WHERE run_id = ? AND key = ? AND status IN ('pending', 'started')`,
          status,
          text,
          Number(seq.next_finish),
          Date.now(),
          runId,
          key,
        );
        if (n === 0) throw new RollBack(false);
        return true;
      }).catch((e: unknown) => unwrapRollBack<boolean>(e)),

    resolveCall: (runId, key, res) =>
      tx(() => {
        const started = one(
          `SELECT 1 AS ok FROM calls WHERE run_id = ? AND key = ? AND status = 'started'`,
          runId,
          key,
        );
        if (!started) return false;
        if (res.status === 'pending') {
          run(`UPDATE calls SET status = 'pending' WHERE run_id = ? AND key = ?`, runId, key);
          return true;
        }
        const seq = one(
          'UPDATE runs SET next_finish = next_finish + 1 WHERE id = ? RETURNING next_finish',
          runId,
        );
        run(
          `UPDATE calls SET status = ?, result = ?, finish_seq = ?, finished_at = ? WHERE run_id = ? AND key = ?`,
          res.status,
          encodeJson(res.result),
          Number(seq?.next_finish ?? 0),
          Date.now(),
          runId,
          key,
        );
        return true;
      }),

    getCall: (runId, key) =>
      tx(() => {
        const row = one('SELECT * FROM calls WHERE run_id = ? AND key = ?', runId, key);
        return row ? callOf(row) : undefined;
      }),

    listCalls: (runId) =>
      tx(() => all('SELECT * FROM calls WHERE run_id = ? ORDER BY ord', runId).map(callOf)),

    countCalls: (ids) =>
      tx(() => {
        const counts = new Map<string, number>();
        if (ids.length === 0) return counts;
        for (const row of all(
          `SELECT run_id, count(*) AS n FROM calls WHERE status <> 'pending' AND run_id IN (${marks(ids.length)}) GROUP BY run_id`,
          ...ids,
        ))
          counts.set(String(row.run_id), Number(row.n));
        return counts;
      }),

    recordValue: (runId, kind, value, f) =>
      tx(() => {
        const row = one(
          'UPDATE runs SET next_value = next_value + 1, bytes = bytes + 16 WHERE id = ? AND owner = ? AND epoch = ? RETURNING next_value',
          runId,
          f.owner,
          f.epoch,
        );
        if (!row) return undefined;
        const seq = Number(row.next_value);
        run(
          'INSERT INTO run_values (run_id, seq, kind, value) VALUES (?, ?, ?, ?)',
          runId,
          seq,
          kind,
          value,
        );
        return seq;
      }),

    listValues: (runId) =>
      tx(() => all('SELECT * FROM run_values WHERE run_id = ? ORDER BY seq', runId).map(valueOf)),

    createApproval: (a) =>
      tx(() => {
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
        return approvalOf(row!);
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
        const where: string[] = [];
        const params: SqlValue[] = [];
        const cond = (sql: string, ...values: SqlValue[]): void => {
          where.push(sql);
          params.push(...values);
        };
        if (f.scope !== undefined) cond('scope = ?', f.scope);
        if (f.runId !== undefined) cond('run_id = ?', f.runId);
        if (f.status) {
          if (f.status.length === 0) return [];
          where.push(`status IN (${marks(f.status.length)})`);
          params.push(...f.status);
        }
        if (f.after !== undefined)
          cond(
            f.newestFirst
              ? 'ord < coalesce((SELECT ord FROM approvals WHERE id = ?), 9007199254740991)'
              : 'ord > coalesce((SELECT ord FROM approvals WHERE id = ?), 0)',
            f.after,
          );
        return all(
          `SELECT * FROM approvals${where.length ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY ord${f.newestFirst ? ' DESC' : ''} LIMIT ${clamp(f.limit)}`,
          ...params,
        ).map(approvalOf);
      }),

    decideApproval: (id, status, by, scope) =>
      !isStorableId(id)
        ? Promise.resolve(undefined)
        : tx(() => {
            if (
              scope !== undefined &&
              one('SELECT 1 AS ok FROM approvals WHERE id = ? AND scope = ?', id, scope) ===
                undefined
            )
              return undefined;
            const d = decide(id, status, by, Date.now());
            if (d) announce([d]);
            return d;
          }),

    expireApprovals: (now, by) =>
      tx(() => {
        const due = all(
          `SELECT id FROM approvals WHERE status = 'pending' AND expires_at IS NOT NULL AND expires_at < ? ORDER BY ord LIMIT 500`,
          now,
        );
        const decided = due.flatMap((r) => decide(String(r.id), 'unavailable', by, now) ?? []);
        announce(decided);
        return decided;
      }),

    waitForDecision: (id, o = {}) =>
      waiters.wait(
        id,
        (x) => store.getApproval(x),
        o,
        () => closed,
      ),

    appendEvent: (runId, type, data) => tx(() => append(runId, type, data, Date.now())),

    listEvents: (runId, after = 0, limit) =>
      tx(() =>
        all(
          `SELECT * FROM events WHERE run_id = ? AND seq > ? ORDER BY seq LIMIT ${clamp(limit)}`,
          runId,
          after,
        ).map(eventOf),
      ),

    onWake: (listener) => wakes.on(listener),

    usage: (scope) =>
      tx(() => {
        const row = one(
          `SELECT coalesce(sum(status = 'queued'), 0) AS queued, coalesce(sum(finished_at IS NULL), 0) AS unsettled,
             coalesce(sum(bytes), 0) AS bytes FROM runs WHERE scope = ?`,
          scope,
        );
        return {
          queued: Number(row?.queued ?? 0),
          unsettled: Number(row?.unsettled ?? 0),
          bytes: Number(row?.bytes ?? 0),
        };
      }),

    stats: () =>
      tx(() => {
        const n = (sql: string): number => Number(one(sql)?.n ?? 0);
        return {
          runs: n('SELECT count(*) AS n FROM runs'),
          events: n('SELECT count(*) AS n FROM events'),
          calls: n('SELECT count(*) AS n FROM calls'),
          approvalsPending: n(`SELECT count(*) AS n FROM approvals WHERE status = 'pending'`),
          bytes: n('SELECT coalesce(sum(bytes), 0) AS n FROM runs'),
        };
      }),

    deleteSettled: (before, limit) =>
      tx(() =>
        run(
          `DELETE FROM runs WHERE id IN (SELECT id FROM runs WHERE status IN (${FINAL}) AND finished_at IS NOT NULL
             AND finished_at < ? LIMIT ${clamp(limit)})`,
          before,
        ),
      ),

    ping: () =>
      closed
        ? Promise.reject(new IsocodeError('STORE_UNAVAILABLE', 'the run store is closed'))
        : tx(() => undefined),

    close() {
      if (!closed) {
        closed = true;
        wakeApproval('*');
        db.close();
      }
      return Promise.resolve();
    },
  };
  return store;
}

/** Ends a transaction early with a value (rolled back). */
class RollBack<T> extends Error {
  constructor(readonly value: T) {
    super('rolled back');
  }
}

function unwrapRollBack<T>(error: unknown): T {
  const cause = (error as { cause?: unknown }).cause;
  if (cause instanceof RollBack) return cause.value as T;
  throw error;
}
