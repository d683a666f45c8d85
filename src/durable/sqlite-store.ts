/**
 * The embedded run store: SQLite in this process (in memory, or a file one process owns). Every
 * method is one synchronous transaction, so the contract's compare-and-sets are plain conditional
 * statements; wake-ups and approval waiters are in process (one process holds the database: a
 * second one opening the same file is refused at open, by SQLite's exclusive lock, which the
 * kernel frees when the holder dies).
 */
import { IsocodeError, thrownText } from '../errors.js';
import { Emitter } from '../events/emitter.js';
import { ApprovalWaiters } from './approval-waiters.js';
import { approvalMethods } from './sqlite-approvals.js';
import { FINAL, clamp, sqliteContext } from './sqlite-context.js';
import { openSqlite, type SqliteDb } from './sqlite-driver.js';
import { journalMethods } from './sqlite-journal.js';
import { runMethods } from './sqlite-runs.js';
import { SQLITE_SCHEMA, SQLITE_SCHEMA_VERSION } from './sqlite-schema.js';
import type { RunEvent, RunStore } from './store.js';

/** Options of {@link openSqliteStore}. */
export interface SqliteStoreOptions {
  /** A database file (created if missing). @default in memory */
  path?: string | undefined;
  /** How often an approval waiter re-reads its approval on top of in-process wake-ups. @default 1000 */
  pollMs?: number | undefined;
}

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
    // A file holding another application's database (tables, and no isocode schema version) is
    // refused before anything is written to it: the store would add its tables and switch the
    // file to WAL journaling under that application.
    const foreign = db
      .prepare(
        `SELECT count(*) AS n FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'`,
      )
      .get();
    const userVersion = Number(db.prepare('PRAGMA user_version').get()?.user_version ?? 0);
    if (userVersion === 0 && Number(foreign?.n ?? 0) > 0)
      throw new IsocodeError(
        'INVALID_CONFIG',
        `the embedded run store ${path} holds another application's database (${String(foreign?.n)} tables and no isocode schema); give the store a file of its own`,
      );
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
    const busy = /locked|busy/i.test(thrownText(cause));
    throw new IsocodeError(
      'STORE_UNAVAILABLE',
      busy
        ? `the embedded run store ${path} is in use by another process (one process per store path; use PostgreSQL, store.url, for several replicas)`
        : `the embedded run store ${path} cannot be opened`,
      { cause },
    );
  }

  const wakes = new Emitter<[]>();
  const appended = new Emitter<[RunEvent]>();
  const waiters = new ApprovalWaiters(pollMs);
  const ctx = sqliteContext(
    db,
    () => void queueMicrotask(() => wakes.emit()),
    (id) => waiters.wake(id),
    (e) => appended.emit(e),
  );
  const { tx, one, run } = ctx;

  const store: RunStore = {
    kind: 'sqlite',
    ...runMethods(ctx),
    ...journalMethods(ctx),
    ...approvalMethods(ctx),

    waitForDecision: (id, o = {}) =>
      waiters.wait(
        id,
        (x) => store.getApproval(x),
        o,
        () => ctx.closed,
      ),

    onWake: (listener) => wakes.on(listener),
    onEvent: (listener) => appended.on(listener),

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
      ctx.closed
        ? Promise.reject(new IsocodeError('STORE_UNAVAILABLE', 'the run store is closed'))
        : tx(() => undefined),

    close() {
      if (!ctx.closed) {
        ctx.close();
        waiters.wake('*');
        db.close();
      }
      return Promise.resolve();
    },
  };
  return store;
}
