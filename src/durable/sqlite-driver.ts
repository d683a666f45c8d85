/**
 * The embedded store's SQLite, through one small seam over two drivers with the same shape:
 * `node:sqlite` where Node has it without a flag (22.13+, 23.4+, 24, 26), else `better-sqlite3`
 * (an optional dependency, built at install on Node 20). Both are synchronous; the store runs each
 * method as one transaction.
 */
import { createRequire } from 'node:module';
import { IsocodeError } from '../errors.js';

/** A value a statement binds or returns. */
export type SqlValue = string | number | bigint | null | Uint8Array;
/** A row as the driver returns it. */
export type SqliteRow = Record<string, SqlValue>;

/** A prepared statement. */
export interface SqliteStatement {
  run(...params: SqlValue[]): { changes: number | bigint };
  get(...params: SqlValue[]): SqliteRow | undefined;
  all(...params: SqlValue[]): SqliteRow[];
}

/** An open database. */
export interface SqliteDb {
  exec(sql: string): void;
  prepare(sql: string): SqliteStatement;
  close(): void;
}

/** Which driver opened the database. */
export type SqliteDriverName = 'node:sqlite' | 'better-sqlite3';

const require = createRequire(import.meta.url);

interface NodeSqlite {
  DatabaseSync: new (path: string) => SqliteDb;
}
type BetterSqlite = new (path: string) => SqliteDb;

/** `node:sqlite` if this Node has it without a flag, else undefined. */
function nodeSqlite(): NodeSqlite | undefined {
  const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
  const unflagged = major >= 24 || (major === 23 && minor >= 4) || (major === 22 && minor >= 13);
  if (!unflagged) return undefined;
  try {
    // Loaded only here; its ExperimentalWarning (Node 22/23) is the runtime's, not ours.
    return require('node:sqlite') as NodeSqlite;
  } catch {
    return undefined;
  }
}

/**
 * Opens `path` (`:memory:` for an in-memory database) with the best driver this Node has.
 * @throws IsocodeError INVALID_CONFIG when neither driver can be loaded (with what to install).
 */
export function openSqlite(path: string): { db: SqliteDb; driver: SqliteDriverName } {
  const builtin = nodeSqlite();
  if (builtin !== undefined) return { db: new builtin.DatabaseSync(path), driver: 'node:sqlite' };
  let Better: BetterSqlite;
  try {
    Better = require('better-sqlite3') as BetterSqlite;
  } catch (cause) {
    throw new IsocodeError(
      'INVALID_CONFIG',
      `the embedded run store needs SQLite: Node ${process.versions.node} has no node:sqlite and the optional dependency better-sqlite3 is not installed (npm install better-sqlite3@12, which builds with a C++ compiler), or use a PostgreSQL store (store.url)`,
      { cause },
    );
  }
  return { db: new Better(path), driver: 'better-sqlite3' };
}
