/**
 * The tiny SQL seam the run store is written against: PostgreSQL's dialect, `$1` parameters.
 * Implemented by pg-client.ts (a PostgreSQL server); the embedded store is SQLite (sqlite-store.ts).
 */

/** Runs one parameterised statement. */
export type SqlQuery = <R = Record<string, unknown>>(
  sql: string,
  params?: unknown[],
) => Promise<R[]>;

/** A connection (or pool) to a PostgreSQL-dialect database. */
export interface SqlClient {
  /** `postgres`: a server shared by replicas. */
  readonly kind: 'postgres';
  /** Runs one parameterised statement and returns its rows. */
  query: SqlQuery;
  /** Runs `fn` in one transaction on one connection: committed when it resolves, rolled back when it rejects. */
  transaction<T>(fn: (query: SqlQuery) => Promise<T>): Promise<T>;
  /**
   * Subscribes to `NOTIFY channel` (from any connection to the same database).
   * @returns the unsubscribe function.
   */
  listen(channel: string, onNotify: (payload: string) => void): Promise<() => Promise<void>>;
  /** Releases the connections (closes the embedded database). Idempotent. */
  close(): Promise<void>;
}
