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

/** node:sqlite's statement: its reads throw on an integer beyond 2^53 unless they read bigints. */
interface NodeStatement extends SqliteStatement {
  setReadBigInts(on: boolean): void;
}

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);
const MIN_SAFE = BigInt(Number.MIN_SAFE_INTEGER);

/** The row with every integer that fits a number as one; larger ones stay bigints. */
function narrowed(row: SqliteRow): SqliteRow {
  for (const [column, value] of Object.entries(row))
    if (typeof value === 'bigint' && value <= MAX_SAFE && value >= MIN_SAFE)
      row[column] = Number(value);
  return row;
}

/**
 * node:sqlite throws `ERR_OUT_OF_RANGE` on reading an integer beyond 2^53, so one such value stored
 * in a row (isocode writes none; an edit or damage can) would fail every read that touches the row:
 * a list, the scan for claimable runs. Read as bigints and narrow, so that such a value reaches the
 * row mappers, which name it damaged (`rows.ts`). better-sqlite3 reads it as an inexact number,
 * which the mappers reject as well.
 */
function readingWholeIntegers(db: SqliteDb): SqliteDb {
  return {
    exec: (sql) => db.exec(sql),
    close: () => db.close(),
    prepare(sql) {
      const statement = db.prepare(sql) as NodeStatement;
      statement.setReadBigInts(true);
      return {
        run: (...params) => statement.run(...params),
        get: (...params) => {
          const row = statement.get(...params);
          return row === undefined ? undefined : narrowed(row);
        },
        all: (...params) => statement.all(...params).map(narrowed),
      };
    },
  };
}

/**
 * Opens `path` (`:memory:` for an in-memory database) with the best driver this Node has.
 * @throws IsocodeError INVALID_CONFIG when neither driver can be loaded (with what to install).
 */
export function openSqlite(path: string): { db: SqliteDb; driver: SqliteDriverName } {
  const builtin = nodeSqlite();
  if (builtin !== undefined)
    return { db: readingWholeIntegers(new builtin.DatabaseSync(path)), driver: 'node:sqlite' };
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
