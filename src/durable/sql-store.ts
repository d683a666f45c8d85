/**
 * The run store over PostgreSQL, shared by replicas, written against {@link SqlClient}. Every
 * compare-and-set of the contract is one conditional statement (or one transaction: the
 * settlement); fenced journal writes lock the run row (`FOR SHARE`), so a claim that bumps the
 * epoch and a body start of the old epoch are serialised and exactly one of them wins. Decisions
 * and claimable runs are announced by NOTIFY (approval waiters; every replica's dispatcher), with
 * polling as the safety net.
 */
import { IsocodeError, thrownText } from '../errors.js';
import { Emitter } from '../events/emitter.js';
import { ApprovalWaiters } from './approval-waiters.js';
import { isSchemaName, migrate } from './migrations.js';
import type { Row } from './rows.js';
import { approvalMethods } from './sql-approvals.js';
import type { SqlClient, SqlQuery } from './sql-client.js';
import { FINAL, clamp, sqlContext } from './sql-context.js';
import { journalMethods } from './sql-journal.js';
import { runMethods } from './sql-runs.js';
import type { RunEvent, RunStore, WaitOptions } from './store.js';

/** Options of {@link createSqlStore}. */
export interface SqlStoreOptions {
  /** The schema holding the tables (letters, digits, `_`). @default "isocode" */
  schema?: string | undefined;
  /** How often a waiter re-reads its approval, on top of NOTIFY (lost notifications, broken LISTEN). @default 1000 */
  pollMs?: number | undefined;
}

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
  const message = thrownText(cause);
  return /Connection terminated|timeout exceeded when trying to connect|connect ECONNREFUSED|Client has encountered a connection error/i.test(
    message,
  );
}

/** deadlock_detected, serialization_failure: the transaction was rolled back and may run again. */
const RETRYABLE_CODES = new Set(['40P01', '40001']);
const MAX_TX_ATTEMPTS = 5;
function retryable(cause: unknown): boolean {
  const code = (cause as { code?: unknown } | null)?.code;
  return typeof code === 'string' && RETRYABLE_CODES.has(code);
}

/** The store error for a driver failure. */
export function storeError(cause: unknown): IsocodeError {
  if (cause instanceof IsocodeError) return cause;
  if ((cause as { code?: unknown } | null)?.code === '23503')
    return new IsocodeError('NOT_FOUND', 'unknown run', { cause });
  if (unreachable(cause))
    return new IsocodeError(
      'STORE_UNAVAILABLE',
      `the run store (PostgreSQL) is unreachable: ${thrownText(cause)}`,
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
    for (let attempt = 1; ; attempt++) {
      try {
        return await client.transaction(fn);
      } catch (cause) {
        // PostgreSQL chose this transaction to break a deadlock or a serialization conflict: it
        // rolled back whole, and running it again is the documented answer. The lock order
        // (decision 020) should make these rare; a few retries make them invisible.
        if (attempt < MAX_TX_ATTEMPTS && retryable(cause)) {
          await new Promise((r) => setTimeout(r, Math.random() * 20 * attempt));
          continue;
        }
        throw storeError(cause);
      }
    }
  };

  // Approval waiters on this replica (woken by a local decision or a NOTIFY) and dispatch listeners.
  // '*' after a LISTEN reconnect: notifications may have been lost, every waiter re-reads.
  const waiters = new ApprovalWaiters(pollMs);
  const wakeApproval = (id: string): void => waiters.wake(id);
  const appended = new Emitter<[RunEvent]>();
  const ctx = sqlContext(s, query, inTx, wakeApproval, (e) => appended.emit(e));
  const { decisions, wakeChannel } = ctx;
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

  let closed: Promise<void> | undefined;
  const store: RunStore = {
    kind: 'postgres',
    ...runMethods(ctx),
    ...journalMethods(ctx),
    ...approvalMethods(ctx),

    async waitForDecision(id, o: WaitOptions = {}) {
      await listen();
      return waiters.wait(
        id,
        (x) => store.getApproval(x),
        o,
        () => closed !== undefined,
      );
    },

    onWake(listener) {
      wakeListeners.add(listener);
      void listen();
      return () => wakeListeners.delete(listener);
    },

    onEvent: (listener) => appended.on(listener),

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
