/**
 * The embedded SQL client: PGlite, PostgreSQL compiled to WASM, in this process. No setup: in
 * memory by default, or in a data directory that survives a restart.
 */
import { PGlite } from '@electric-sql/pglite';
import type { SqlClient, SqlQuery } from './sql-client.js';

/**
 * Opens an embedded database.
 * @param dataDir a directory for the database files; undefined keeps it in memory (lost on exit).
 */
export async function openPgliteClient(dataDir?: string): Promise<SqlClient> {
  const db = await PGlite.create(dataDir === undefined ? {} : { dataDir });
  let closed: Promise<void> | undefined;
  const query: SqlQuery = async <R>(sql: string, params: unknown[] = []) =>
    (await db.query<R>(sql, params)).rows;
  return {
    kind: 'pglite',
    query,
    transaction: (fn) =>
      db.transaction(async (tx) =>
        fn(async <R>(sql: string, params: unknown[] = []) => (await tx.query<R>(sql, params)).rows),
      ),
    listen: async (channel, onNotify) => {
      const unlisten = await db.listen(channel, onNotify);
      return async () => {
        if (!db.closed) await unlisten();
      };
    },
    close: () => (closed ??= db.closed ? Promise.resolve() : db.close()),
  };
}
