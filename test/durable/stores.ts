/**
 * The stores every durable test runs against: the embedded SQLite store (a fresh in-memory
 * database per store) and PostgreSQL from ISOCODE_TEST_PG_URL (a fresh schema per store). Without
 * the URL the PostgreSQL half is skipped with a visible reason, except under CI, where it fails.
 */
import { randomBytes } from 'node:crypto';
import { openPgClient } from '../../src/durable/pg-client.js';
import { openSqliteStore } from '../../src/durable/sqlite-store.js';
import type { SqlClient } from '../../src/durable/sql-client.js';
import { createSqlStore, type SqlStoreOptions } from '../../src/durable/sql-store.js';
import type { RunStore } from '../../src/durable/store.js';

/** A kind of store under test. */
export interface StoreKind {
  name: 'sqlite' | 'postgres';
  /** Why this kind is skipped (undefined: it runs). */
  skip: string | undefined;
  /** Opens the shared connection (PGlite's start takes seconds, up to a minute on a loaded machine). */
  ready(): Promise<void>;
  /** A store over a fresh schema. */
  open(options?: Omit<SqlStoreOptions, 'schema'>): Promise<RunStore>;
  /**
   * Two stores over one fresh schema, as two replicas see it: separate connections for PostgreSQL,
   * one embedded database for PGlite.
   */
  openPair(options?: Omit<SqlStoreOptions, 'schema'>): Promise<[RunStore, RunStore]>;
  /** The store URL a service config can use (postgres only). */
  url: string | undefined;
  /** Drops the schemas this kind created and closes its connections. */
  close(): Promise<void>;
}

const PG_URL = process.env.ISOCODE_TEST_PG_URL;

/** A fresh schema name. */
export const schemaName = (): string => `t_${randomBytes(6).toString('hex')}`;

function kind(name: StoreKind['name'], connect: () => Promise<SqlClient>): StoreKind {
  let shared: Promise<SqlClient> | undefined;
  const schemas: string[] = [];
  return {
    name,
    skip: undefined,
    url: name === 'postgres' ? PG_URL : undefined,
    async ready() {
      await (shared ??= connect());
    },
    async open(options = {}) {
      const client = await (shared ??= connect());
      const schema = schemaName();
      schemas.push(schema);
      // The store closes its client; the shared one outlives it.
      return createSqlStore({ ...client, close: () => Promise.resolve() }, { ...options, schema });
    },
    async openPair(options = {}) {
      const client = await (shared ??= connect());
      const schema = schemaName();
      schemas.push(schema);
      const a = await createSqlStore(
        { ...client, close: () => Promise.resolve() },
        { ...options, schema },
      );
      const other =
        name === 'postgres' ? await connect() : { ...client, close: () => Promise.resolve() };
      return [a, await createSqlStore(other, { ...options, schema })];
    },
    async close() {
      if (!shared) return;
      const client = await shared;
      for (const schema of schemas) await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await client.close();
    },
  };
}

/** The store kinds for this environment. */
export function storeKinds(): StoreKind[] {
  const pglite: StoreKind = {
    name: 'sqlite',
    skip: undefined,
    url: undefined,
    ready: () => Promise.resolve(),
    open: (options = {}) => Promise.resolve(openSqliteStore({ pollMs: options.pollMs })),
    // One embedded database serves one process: both "replicas" share it, as PGlite's did.
    openPair: (options = {}) => {
      const store = openSqliteStore({ pollMs: options.pollMs });
      return Promise.resolve([store, { ...store, close: () => Promise.resolve() }]);
    },
    close: () => Promise.resolve(),
  };
  if (PG_URL)
    return [pglite, kind('postgres', () => Promise.resolve(openPgClient({ url: PG_URL })))];
  if (process.env.CI)
    throw new Error(
      'CI is set but ISOCODE_TEST_PG_URL is not: the PostgreSQL store must be tested',
    );
  const reason = 'ISOCODE_TEST_PG_URL is not set: the PostgreSQL half is skipped';
  console.warn(`[durable] ${reason}`);
  return [
    pglite,
    {
      name: 'postgres',
      skip: reason,
      url: undefined,
      ready: () => Promise.resolve(),
      open: () => Promise.reject(new Error(reason)),
      openPair: () => Promise.reject(new Error(reason)),
      close: () => Promise.resolve(),
    },
  ];
}
