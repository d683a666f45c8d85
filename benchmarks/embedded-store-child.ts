/**
 * One sample of benchmarks/embedded-store.ts in a fresh process: opens the embedded store named by
 * argv[2] (`sqlite-memory`, `sqlite-file`, `pglite-memory`, `pglite-file`, `none`), writes one run
 * and reads it back; prints `{ startMs, rssAddedMb }` (module load, open, migrate, first write).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const engine = process.argv[2] ?? 'none';
const dir = mkdtempSync(join(tmpdir(), 'isocode-embedded-bench-'));
const rss0 = process.memoryUsage().rss;
const t0 = performance.now();
if (engine.startsWith('sqlite')) {
  const { openSqliteStore } = await import('../src/durable/sqlite-store.js');
  const store = openSqliteStore(engine === 'sqlite-file' ? { path: join(dir, 'runs.db') } : {});
  await store.createRun({ id: 'r', scope: 's', program: 'return 1' });
  await store.getRun('r');
  await store.close();
} else if (engine.startsWith('pglite')) {
  // Only where PGlite is installed (it is no longer a dependency): the comparison of decision 020.
  const name: string = '@electric-sql/pglite';
  const { PGlite } = (await import(name)) as {
    PGlite: {
      create(o: object): Promise<{ query(sql: string): Promise<unknown>; close(): Promise<void> }>;
    };
  };
  const db = await PGlite.create(engine === 'pglite-file' ? { dataDir: join(dir, 'pg') } : {});
  await db.query('CREATE TABLE runs (id text primary key, program text)');
  await db.query(`INSERT INTO runs VALUES ('r', 'return 1')`);
  await db.query('SELECT * FROM runs');
  await db.close();
}
const startMs = performance.now() - t0;
const rssAddedMb = (process.memoryUsage().rss - rss0) / 2 ** 20;
rmSync(dir, { recursive: true, force: true });
process.stdout.write(`${JSON.stringify({ startMs, rssAddedMb })}\n`);
