/**
 * What the embedded store's method groups share: the database, the one-transaction-per-method
 * rule, the statements several groups use (a run's fence, its byte count, its events, an approval's
 * decision with its event) and the SQL fragments of the contract's rules. Made once per open store by
 * `openSqliteStore` (sqlite-store.ts); the groups are sqlite-runs.ts, sqlite-journal.ts and
 * sqlite-approvals.ts.
 */
import { IsocodeError } from '../errors.js';
import type { JsonValue } from '../json.js';
import { encodeJson, encodeText } from './encode.js';
import type { SqliteDb, SqliteRow, SqlValue } from './sqlite-driver.js';
import { toApproval as approvalOf, toRun as runOf } from './rows.js';
import {
  FINAL_STATUSES,
  type ApprovalRecord,
  type Fence,
  type RunEvent,
  type RunRecord,
} from './records.js';
import { approvalEventData } from './stored-events.js';

const MAX_LIST = 1000;
/** A list's limit: 1 to 1,000, 100 when absent or not a number. */
export const clamp = (limit: number | undefined): number =>
  Math.max(1, Math.min(MAX_LIST, Math.trunc(limit ?? 100) || 100));
/** `n` placeholders: `?, ?, ?`. */
export const marks = (n: number): string => Array.from({ length: n }, () => '?').join(', ');
/** The final statuses as an SQL list. */
export const FINAL = FINAL_STATUSES.map((s) => `'${s}'`).join(', ');
/** Runs a replica may claim at `?` (now): the contract's rule, once. */
export const CLAIMABLE = `status NOT IN (${FINAL}, 'interrupted') AND finished_at IS NULL
  AND (owner IS NULL OR lease_expires_at IS NULL OR lease_expires_at < ?)
  AND (parked = 0 OR NOT EXISTS (SELECT 1 FROM approvals a WHERE a.run_id = runs.id AND a.status = 'pending'))`;
/** The stored length of a nullable text. */
export const len = (text: string | null): number => (text === null ? 0 : text.length);

/** A `WHERE` clause built condition by condition, its parameters in placeholder order. */
export class Conditions {
  readonly #parts: string[] = [];
  /** The parameters of the conditions added so far. */
  readonly params: SqlValue[] = [];

  /** Adds `sql` (with a `?` per value) to the conjunction. */
  add(sql: string, ...values: SqlValue[]): void {
    this.#parts.push(sql);
    this.params.push(...values);
  }

  /** ` WHERE a AND b`, or nothing when no condition was added. */
  get clause(): string {
    return this.#parts.length ? ` WHERE ${this.#parts.join(' AND ')}` : '';
  }
}

/** What every method group of the embedded store works with. */
export interface SqliteContext {
  /** Runs `fn` in one write transaction. Every store method goes through here. */
  readonly tx: <T>(fn: () => T) => Promise<T>;
  readonly one: (sql: string, ...params: SqlValue[]) => SqliteRow | undefined;
  readonly all: (sql: string, ...params: SqlValue[]) => SqliteRow[];
  /** Runs a statement; the number of rows it changed. */
  readonly run: (sql: string, ...params: SqlValue[]) => number;
  readonly getRun: (id: string) => RunRecord | undefined;
  /** Whether run `id` is still held by `f` (owner and epoch). */
  readonly holds: (id: string, f: Fence) => boolean;
  readonly addBytes: (id: string, n: number) => void;
  /** Appends an event to a run's stream (its next sequence number); undefined for no such run. */
  readonly append: (
    runId: string,
    type: string,
    data: JsonValue,
    at: number,
    /** Only while the run is not settled (undefined after its result). @default false */
    unsettledOnly?: boolean,
  ) => RunEvent | undefined;
  /** Decides a pending approval and appends its run's `approval` event; undefined when it was not pending. */
  readonly decide: (
    id: string,
    status: string,
    by: string,
    at: number,
  ) => { approval: ApprovalRecord; event: RunEvent | undefined } | undefined;
  /** Wakes the waiters of decided approvals, and the store's wake listeners. */
  readonly announce: (decided: readonly ApprovalRecord[]) => void;
  /** Tells the store's wake listeners that a run may be claimable (after this turn). */
  readonly wake: () => void;
}

/** The context of an open database; `close()` makes every later transaction fail. */
export function sqliteContext(
  db: SqliteDb,
  wake: () => void,
  wakeApproval: (id: string) => void,
  told: (event: RunEvent) => void,
): SqliteContext & { readonly closed: boolean; readonly close: () => void } {
  let closed = false;
  /** The events appended by the transaction in progress: told once it commits. */
  let appended: RunEvent[] = [];
  /**
   * Runs `fn` in one write transaction. Every store method goes through here. The events it
   * appended go to `told` once it committed, in order; a rolled-back one's never do.
   */
  function tx<T>(fn: () => T): Promise<T> {
    if (closed)
      return Promise.reject(new IsocodeError('STORE_UNAVAILABLE', 'the run store is closed'));
    try {
      db.exec('BEGIN IMMEDIATE');
      appended = [];
      try {
        const out = fn();
        db.exec('COMMIT');
        const committed = appended;
        appended = [];
        for (const e of committed) told(e);
        return Promise.resolve(out);
      } catch (error) {
        appended = [];
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
    unsettledOnly = false,
  ): RunEvent | undefined => {
    const text = encodeJson(data) ?? 'null';
    const row = one(
      `UPDATE runs SET next_event = next_event + 1, bytes = bytes + ? WHERE id = ?${unsettledOnly ? ' AND finished_at IS NULL' : ''} RETURNING next_event`,
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
    const event: RunEvent = { runId, seq, type, data: JSON.parse(text) as JsonValue, at };
    appended.push(event);
    return event;
  };
  const decide = (
    id: string,
    status: string,
    by: string,
    at: number,
  ): { approval: ApprovalRecord; event: RunEvent | undefined } | undefined => {
    const row = one(
      `UPDATE approvals SET status = ?, decided_by = ?, decided_at = ? WHERE id = ? AND status = 'pending' RETURNING *`,
      status,
      encodeText(by),
      at,
      id,
    );
    if (!row) return undefined;
    const approval = approvalOf(row);
    return { approval, event: append(approval.runId, 'approval', approvalEventData(approval), at) };
  };
  const announce = (decided: readonly ApprovalRecord[]): void => {
    for (const a of decided) wakeApproval(a.id);
    if (decided.length > 0) wake();
  };

  return {
    tx,
    one,
    all,
    run,
    getRun,
    holds,
    addBytes,
    append,
    decide,
    announce,
    wake,
    get closed() {
      return closed;
    },
    close() {
      closed = true;
    },
  };
}

/** Ends a transaction early with a value (rolled back). */
export class RollBack<T> extends Error {
  constructor(readonly value: T) {
    super('rolled back');
  }
}

/** The value of a {@link RollBack} that ended a transaction; anything else is thrown again. */
export function unwrapRollBack<T>(error: unknown): T {
  const cause = (error as { cause?: unknown }).cause;
  if (cause instanceof RollBack) return cause.value as T;
  throw error;
}
