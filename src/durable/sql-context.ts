/**
 * What the PostgreSQL store's method groups share: the schema, the statement runner and the
 * transaction runner (each turns a driver failure into the store's error), NOTIFY, the event
 * append, and the SQL fragments of the contract's rules. Made once per store by `createSqlStore`
 * (sql-store.ts); the groups are sql-runs.ts, sql-journal.ts and sql-approvals.ts.
 */
import type { JsonValue } from '../json.js';
import { encodeJson } from './encode.js';
import { toEvent, type Row } from './rows.js';
import type { SqlQuery } from './sql-client.js';
import { FINAL_STATUSES, type RunEvent } from './records.js';

const MAX_LIST = 1000;
/** A list's limit: 1 to 1,000, 100 when absent or not a number. */
export const clamp = (limit: number | undefined): number =>
  Math.max(1, Math.min(MAX_LIST, Math.trunc(limit ?? 100) || 100));
/** The final statuses as an SQL list. */
export const FINAL = FINAL_STATUSES.map((s) => `'${s}'`).join(', ');
/** The stored length of a nullable text. */
export const len = (text: string | null | undefined): number => text?.length ?? 0;

/** What every method group of the PostgreSQL store works with. */
export interface SqlContext {
  /** The schema holding the tables (a checked plain identifier). */
  readonly s: string;
  /** The NOTIFY channel of decisions (payload: the approval id). */
  readonly decisions: string;
  /** The NOTIFY channel of runs that may be claimable (payload: the run id). */
  readonly wakeChannel: string;
  /** One statement; a driver failure becomes the store's error. */
  readonly query: (sql: string, params?: unknown[]) => Promise<Row[]>;
  /**
   * One transaction; a driver failure becomes the store's error. The events it appended go to the
   * store's listeners once it committed, in order; a rolled-back one's never do.
   */
  readonly inTx: <T>(fn: (q: SqlQuery) => Promise<T>) => Promise<T>;
  /** NOTIFY, best effort (polling is the safety net). */
  readonly notify: (channel: string, payload: string) => Promise<unknown>;
  /** Wakes this replica's waiters of approval `id` (`*`: all of them). */
  readonly wakeApproval: (id: string) => void;
  /** Appends one event inside transaction `q`. */
  readonly append: (
    q: SqlQuery,
    runId: string,
    type: string,
    data: JsonValue,
    /** Only while the run is not settled (undefined after its result). @default false */
    unsettledOnly?: boolean,
  ) => Promise<RunEvent | undefined>;
  /**
   * Locks the rows of runs `ids`, in id order, for the rest of transaction `q`; returns the ones
   * that exist, each with whether it is settled. Every transaction that writes a run's approvals
   * takes its run's row first, as a settlement does: one lock order, so none of them deadlocks
   * with another (decision 020).
   */
  readonly lockRuns: (
    q: SqlQuery,
    ids: readonly string[],
  ) => Promise<{ id: string; settled: boolean }[]>;
  /** Runs a replica may claim at `now` (an SQL expression): the contract's rule, once. */
  readonly claimable: (now: string) => string;
  /** The run `id` is held by `owner` at `epoch`, its row locked for share (SQL expressions). */
  readonly fenced: (id: string, owner: string, epoch: string) => string;
}

/** The context over `query` and `transaction` for schema `s`; committed events go to `told`. */
export function sqlContext(
  s: string,
  query: SqlContext['query'],
  transaction: SqlContext['inTx'],
  wakeApproval: (id: string) => void,
  told: (event: RunEvent) => void,
): SqlContext {
  const appended = new WeakMap<SqlQuery, RunEvent[]>(); // by transaction
  const inTx = async <T>(fn: (q: SqlQuery) => Promise<T>): Promise<T> => {
    let events: RunEvent[] = [];
    const out = await transaction((q) => {
      events = [];
      appended.set(q, events);
      return fn(q);
    });
    for (const e of events) told(e);
    return out;
  };
  const decisions = `${s}_decisions`;
  const wakeChannel = `${s}_runs`;
  const notify = (channel: string, payload: string): Promise<unknown> =>
    query('SELECT pg_notify($1, $2)', [channel, payload]).catch(() => undefined);
  /** Appends one event inside transaction `q`. */
  const append = async (
    q: SqlQuery,
    runId: string,
    type: string,
    data: JsonValue,
    unsettledOnly = false,
  ): Promise<RunEvent | undefined> => {
    const text = encodeJson(data) ?? 'null';
    const rows = await q<Row>(
      `WITH n AS (UPDATE ${s}.runs SET next_event = next_event + 1, bytes = bytes + $4 WHERE id = $1${unsettledOnly ? ' AND finished_at IS NULL' : ''} RETURNING next_event)
       INSERT INTO ${s}.events (run_id, seq, type, data, at) SELECT $1, next_event, $2, $3, $5 FROM n RETURNING *`,
      [runId, type, text, text.length, Date.now()],
    );
    const event = rows[0] ? toEvent(rows[0]) : undefined;
    if (event) appended.get(q)?.push(event);
    return event;
  };
  const lockRuns: SqlContext['lockRuns'] = async (q, ids) =>
    ids.length === 0
      ? []
      : (
          await q<{ id: string; settled: boolean }>(
            `SELECT id, finished_at IS NOT NULL AS settled FROM ${s}.runs WHERE id = ANY($1) ORDER BY id FOR NO KEY UPDATE`,
            [[...ids]],
          )
        ).map((r) => ({ id: String(r.id), settled: r.settled === true }));
  const claimable = (
    now: string,
  ): string => `status NOT IN (${FINAL}, 'interrupted') AND finished_at IS NULL
    AND (owner IS NULL OR lease_expires_at IS NULL OR lease_expires_at < ${now})
    AND (NOT parked OR NOT EXISTS (SELECT 1 FROM ${s}.approvals a WHERE a.run_id = runs.id AND a.status = 'pending'))`;
  const fenced = (id: string, owner: string, epoch: string): string =>
    `EXISTS (SELECT 1 FROM ${s}.runs r WHERE r.id = ${id} AND r.owner = ${owner} AND r.epoch = ${epoch} FOR SHARE)`;
  return {
    s,
    decisions,
    wakeChannel,
    query,
    inTx,
    notify,
    wakeApproval,
    append,
    lockRuns,
    claimable,
    fenced,
  };
}
