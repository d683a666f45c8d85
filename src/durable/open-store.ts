/** Opens the configured run store: PostgreSQL for a `postgres://` url, else the embedded SQLite store. */
import { IsocodeError } from '../errors.js';
import type { RunStore } from './store.js';

/** Where runs are stored (the `store` section of the config). */
export interface StoreOptions {
  /** A PostgreSQL server shared by replicas: `postgres://user:pass@host:port/db`. @default none (embedded) */
  url?: string | undefined;
  /** A database file for the embedded store (survives a restart; one process per file). @default in memory */
  path?: string | undefined;
  /** The schema holding the tables. @default "isocode" */
  schema?: string | undefined;
  /** How often an approval waiter re-reads the store on top of NOTIFY, in ms. @default 1000 */
  pollMs?: number | undefined;
  /** PostgreSQL pool size. @default 10 */
  poolSize?: number | undefined;
}

/** Opens (and migrates) the store `options` describe. */
export async function openRunStore(options: StoreOptions = {}): Promise<RunStore> {
  if (options.url !== undefined && options.path !== undefined)
    throw new IsocodeError(
      'INVALID_CONFIG',
      'store: give either url (PostgreSQL) or path (embedded), not both',
    );
  if (options.url !== undefined && !/^postgres(ql)?:\/\//.test(options.url))
    throw new IsocodeError(
      'INVALID_CONFIG',
      'store.url must start with postgres:// or postgresql://',
    );
  // Each driver is loaded only when chosen: a process that uses one never pays for the other.
  if (options.url === undefined)
    return (await import('./sqlite-store.js')).openSqliteStore({
      path: options.path,
      pollMs: options.pollMs,
    });
  const client = (await import('./pg-client.js')).openPgClient({
    url: options.url,
    max: options.poolSize,
  });
  const { createSqlStore } = await import('./sql-store.js');
  return createSqlStore(client, { schema: options.schema, pollMs: options.pollMs });
}
