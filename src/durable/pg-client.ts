/**
 * The PostgreSQL client: a `pg` pool for queries and one dedicated connection for LISTEN, which is
 * re-established (with backoff) whenever it breaks — a server restart, a network cut — and then
 * tells every handler `*`, since notifications sent meanwhile are lost.
 */
import type * as Pg from 'pg';
import { requireOptional } from '../optional.js';
import type { SqlClient, SqlQuery } from './sql-client.js';

/** Options of {@link openPgClient}. */
export interface PgClientOptions {
  /** `postgres://user:pass@host:port/db`. */
  url: string;
  /** Pool size. @default 10 */
  max?: number | undefined;
  /** How long a query waits for a connection before it fails (the server is unreachable), ms. @default 5000 */
  connectTimeoutMs?: number | undefined;
}

/**
 * Ends a client we no longer use. Its own listeners go, but an `error` listener stays: `pg` emits a
 * connection's errors (a server shutting down sends FATAL 57P01) on the client, and an `error` event
 * with no listener is an uncaught exception that would end the host.
 */
function discard(client: Pg.Client): Promise<void> {
  client.removeAllListeners();
  client.on('error', () => undefined);
  return client.end().catch(() => undefined);
}

/** Connects a pool to a PostgreSQL server (lazily: the first query connects). */
export function openPgClient(options: PgClientOptions): SqlClient {
  // pg is an optional peer (decision 038): loaded when a PostgreSQL store is opened.
  const pg = requireOptional<typeof Pg>('pg');
  const connectionTimeoutMillis = options.connectTimeoutMs ?? 5000;
  const pool = new pg.Pool({
    connectionString: options.url,
    max: options.max ?? 10,
    connectionTimeoutMillis,
  });
  // An idle client's error (server restart) must not crash the process: the next query reconnects.
  pool.on('error', () => undefined);
  const handlers = new Map<string, Set<(payload: string) => void>>();
  let listener: Pg.Client | undefined;
  let connecting: Promise<Pg.Client> | undefined;
  let retry: NodeJS.Timeout | undefined;
  let backoff = 100;
  let closed = false;

  const query: SqlQuery = async <R>(sql: string, params: unknown[] = []) =>
    (await pool.query(sql, params)).rows as R[];

  /** The listening connection, connecting (and LISTENing on every known channel) if needed. */
  const listenClient = (): Promise<Pg.Client> => {
    if (listener) return Promise.resolve(listener);
    return (connecting ??= (async () => {
      const client = new pg.Client({ connectionString: options.url, connectionTimeoutMillis });
      const broken = (): void => {
        if (listener === client) listener = undefined;
        client.removeAllListeners('notification');
        void client.end().catch(() => undefined);
        reconnectSoon();
      };
      client.on('error', broken);
      client.on('end', broken);
      client.on('notification', (msg) => {
        for (const h of handlers.get(msg.channel) ?? []) h(msg.payload ?? '');
      });
      try {
        await client.connect();
        for (const channel of handlers.keys())
          await client.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
      } catch (error) {
        void discard(client);
        throw error;
      } finally {
        connecting = undefined;
      }
      listener = client;
      return client;
    })());
  };

  /** After a break: reconnect with backoff, then wake every handler (notifications may be lost). */
  function reconnectSoon(): void {
    if (closed || retry !== undefined || handlers.size === 0) return;
    retry = setTimeout(() => {
      retry = undefined;
      listenClient().then(
        () => {
          backoff = 100;
          for (const set of handlers.values()) for (const h of set) h('*');
        },
        () => {
          backoff = Math.min(backoff * 2, 5000);
          reconnectSoon();
        },
      );
    }, backoff);
    retry.unref();
  }

  return {
    kind: 'postgres',
    query,
    transaction: async (fn) => {
      const client = await pool.connect();
      // The pool listens for errors only while a client is idle: checked out, a connection error
      // between two queries (the server stopped, the backend terminated) is emitted on the client.
      // Kept, it fails the next query; the client then leaves the pool instead of going back to it.
      let broken = false;
      const onError = (): void => {
        broken = true;
      };
      client.on('error', onError);
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
        // A broken client keeps the listener: it is ended, and may still report its socket's end.
        if (!broken) client.removeListener('error', onError);
        client.release(broken);
      }
    },
    listen: async (channel, onNotify) => {
      let set = handlers.get(channel);
      if (!set) {
        set = new Set();
        handlers.set(channel, set);
        try {
          const client = await listenClient(); // a fresh client listens on every known channel itself
          await client.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
        } catch {
          reconnectSoon(); // polling answers meanwhile
        }
      }
      set.add(onNotify);
      return () => {
        set.delete(onNotify);
        return Promise.resolve();
      };
    },
    close: async () => {
      if (closed) return;
      closed = true;
      clearTimeout(retry);
      const client = listener ?? (await connecting?.catch(() => undefined));
      if (client) await discard(client);
      await pool.end();
    },
  };
}
