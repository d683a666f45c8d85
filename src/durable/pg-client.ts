/**
 * The PostgreSQL client: a `pg` pool for queries and one dedicated connection for LISTEN.
 */
import pg from 'pg';
import type { SqlClient, SqlQuery } from './sql-client.js';

/** Options of {@link openPgClient}. */
export interface PgClientOptions {
  /** `postgres://user:pass@host:port/db`. */
  url: string;
  /** Pool size. @default 10 */
  max?: number | undefined;
}

/** Connects a pool to a PostgreSQL server (lazily: the first query connects). */
export function openPgClient(options: PgClientOptions): SqlClient {
  const pool = new pg.Pool({ connectionString: options.url, max: options.max ?? 10 });
  // An idle client's error (server restart) must not crash the process: the next query reconnects.
  pool.on('error', () => undefined);
  let listener: Promise<pg.Client> | undefined;
  const handlers = new Map<string, Set<(payload: string) => void>>();
  let closed: Promise<void> | undefined;

  const query: SqlQuery = async <R>(sql: string, params: unknown[] = []) =>
    (await pool.query(sql, params)).rows as R[];

  const listenClient = (): Promise<pg.Client> =>
    (listener ??= (async () => {
      const client = new pg.Client({ connectionString: options.url });
      client.on('error', () => {
        listener = undefined; // the next listen reconnects; waiters keep polling meanwhile
      });
      client.on('notification', (msg) => {
        for (const h of handlers.get(msg.channel) ?? []) h(msg.payload ?? '');
      });
      await client.connect();
      for (const channel of handlers.keys())
        await client.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
      return client;
    })());

  return {
    kind: 'postgres',
    query,
    transaction: async (fn) => {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        const result = await fn(
          async <R>(sql: string, params: unknown[] = []) =>
            (await client.query(sql, params)).rows as R[],
        );
        await client.query('COMMIT');
        return result;
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      } finally {
        client.release();
      }
    },
    listen: async (channel, onNotify) => {
      let set = handlers.get(channel);
      if (!set) {
        set = new Set();
        handlers.set(channel, set);
        const client = await listenClient(); // a fresh client listens on every known channel itself
        await client.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
      }
      set.add(onNotify);
      return () => {
        set.delete(onNotify);
        return Promise.resolve();
      };
    },
    close: () =>
      (closed ??= (async () => {
        const client = await listener?.catch(() => undefined);
        await client?.end().catch(() => undefined);
        await pool.end();
      })()),
  };
}
