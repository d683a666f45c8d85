/**
 * The store's PostgreSQL client when the server ends its connections (a restart, an operator's
 * `pg_terminate_backend`, a failover): the host never gets an uncaught exception, the failed work
 * fails as an error, and the next work runs on a new connection. A connection's error is emitted on
 * its `pg` client, and a client checked out of the pool has no listener of the pool's: a backend
 * ended between two statements of a transaction crashed the host (a loaded run of the PostgreSQL
 * restart test, once).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPgClient } from '../../src/durable/pg-client.js';
import type { SqlClient } from '../../src/durable/sql-client.js';

const PG_URL = process.env.ISOCODE_TEST_PG_URL;
if (PG_URL === undefined && process.env.CI)
  throw new Error('CI is set but ISOCODE_TEST_PG_URL is not: the PostgreSQL client must be tested');

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.skipIf(PG_URL === undefined)('PostgreSQL connections ended by the server', () => {
  let client: SqlClient;
  let admin: SqlClient;
  beforeAll(() => {
    client = openPgClient({ url: PG_URL ?? '' });
    admin = openPgClient({ url: PG_URL ?? '' });
  });
  afterAll(async () => {
    await client.close();
    await admin.close();
  });

  const terminate = (pid: number) => admin.query('SELECT pg_terminate_backend($1)', [pid]);

  it('a backend ended between two statements of a transaction fails that transaction, and only it', async () => {
    for (let round = 0; round < 3; round++) {
      const failed = client.transaction(async (q) => {
        const [row] = await q<{ pid: number }>('SELECT pg_backend_pid() AS pid');
        await terminate(row!.pid);
        // The server's FATAL arrives while no statement is active on the connection.
        await sleep(200);
        await q('SELECT 1');
      });
      await expect(failed).rejects.toThrow();
      // The broken connection left the pool: the next transaction gets a working one.
      const ok = await client.transaction(async (q) => q<{ one: number }>('SELECT 1 AS one'));
      expect(ok).toEqual([{ one: 1 }]);
    }
  }, 60_000);

  it('an ended listening connection is re-established and notifications arrive again', async () => {
    const channel = `isocode_test_${process.pid}`;
    const seen: string[] = [];
    await client.listen(channel, (payload) => seen.push(payload));
    const listening = async () =>
      admin.query<{ pid: number }>(
        `SELECT pid FROM pg_stat_activity WHERE query = $1 AND pid <> pg_backend_pid()`,
        [`LISTEN "${channel}"`],
      );
    const [first] = await listening();
    expect(first).toBeDefined();
    await terminate(first!.pid);
    // Re-established: the handler is told `*` (notifications sent meanwhile may be lost).
    await expect.poll(() => seen.includes('*'), { timeout: 30_000 }).toBe(true);
    await expect
      .poll(
        async () => {
          await admin.query(`SELECT pg_notify($1, 'after')`, [channel]);
          return seen.includes('after');
        },
        { timeout: 30_000, interval: 200 },
      )
      .toBe(true);
  }, 60_000);
});
