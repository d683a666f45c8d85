/** The `store` section of the config: parsed, paths resolved, one engine at a time. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/sources/config.js';
import { openRuntime } from '../../src/sources/open.js';
import { createDurableRuntime, type DurableRuntime } from '../../src/durable/index.js';
import { openPgClient } from '../../src/durable/pg-client.js';
import { schemaName, storeKinds } from './stores.js';

const pg = storeKinds()[1]!;

const write = (config: unknown): string => {
  const dir = mkdtempSync(join(tmpdir(), 'isocode-store-config-'));
  const path = join(dir, 'isocode.config.json');
  writeFileSync(path, JSON.stringify(config));
  return path;
};

describe('config: store', () => {
  it('is off without a section; an embedded path resolves against the config file', async () => {
    expect((await loadConfig(write({ sources: [{ builtin: 'demo' }] }))).store).toBeUndefined();
    const path = write({
      sources: [{ builtin: 'demo' }],
      store: { path: './runs', approvalTimeoutMs: 60000 },
    });
    const config = await loadConfig(path);
    expect(config.store).toMatchObject({
      path: join(path, '..', 'runs'),
      approvalTimeoutMs: 60000,
    });
  });

  it('accepts a PostgreSQL url or urlEnv; refuses two engines and other schemes', async () => {
    const ok = await loadConfig(
      write({ store: { url: 'postgres://u@h:5432/db', schema: 'runs_a' } }),
    );
    expect(ok.store).toMatchObject({ url: 'postgres://u@h:5432/db', schema: 'runs_a' });
    for (const store of [
      { url: 'postgres://h/db', path: './x' },
      { url: 'mysql://h/db' },
      { schema: 'bad-name; drop' },
      { unknown: 1 },
    ])
      await expect(loadConfig(write({ store }))).rejects.toMatchObject({ code: 'INVALID_CONFIG' });
  });
});

describe('config: store.replicaId and store.leaseMs', () => {
  it('accepts a replica id and a lease within bounds', async () => {
    const config = await loadConfig(
      write({ store: { url: 'postgres://h/db', replicaId: 'eu-1.a:b_c', leaseMs: 100 } }),
    );
    expect(config.store).toMatchObject({ replicaId: 'eu-1.a:b_c', leaseMs: 100 });
    const max = await loadConfig(
      write({ store: { replicaId: 'x'.repeat(64), leaseMs: 3_600_000 } }),
    );
    expect(max.store).toMatchObject({ leaseMs: 3_600_000 });
  });

  it('refuses a bad replica id or lease with INVALID_CONFIG naming the key path', async () => {
    const cases: [unknown, string][] = [
      [{ replicaId: '' }, 'store.replicaId'],
      [{ replicaId: 'a b' }, 'store.replicaId'],
      [{ replicaId: '-a' }, 'store.replicaId'],
      [{ replicaId: 'x'.repeat(65) }, 'store.replicaId'],
      [{ replicaId: 7 }, 'store.replicaId'],
      [{ leaseMs: 99 }, 'store.leaseMs'],
      [{ leaseMs: 3_600_001 }, 'store.leaseMs'],
      [{ leaseMs: 1000.5 }, 'store.leaseMs'],
      [{ leaseMs: '1000' }, 'store.leaseMs'],
    ];
    for (const [store, path] of cases) {
      const file = write({ store });
      const error = await loadConfig(file).then(
        () => undefined,
        (e: unknown) => e as { code: string; message: string; details: unknown },
      );
      expect(error, JSON.stringify(store)).toMatchObject({
        code: 'INVALID_CONFIG',
        details: { configPath: file, issues: [expect.objectContaining({ path })] },
      });
      expect(error?.message).toContain(path);
    }
  });

  it('the library: a fractional lease or approval time-out is whole milliseconds; an endless one is INVALID_CONFIG', async () => {
    for (const humanApprovalTimeoutMs of [Infinity, NaN, 0])
      await expect(createDurableRuntime({ humanApprovalTimeoutMs })).rejects.toMatchObject({
        code: 'INVALID_CONFIG',
      });
    const runtime = await createDurableRuntime({
      scopes: { default: { mode: 'code' } },
      codeMode: { typecheck: 'off' },
      recovery: { leaseMs: 1000.5 },
      humanApprovalTimeoutMs: 60_000.25,
    });
    try {
      const run = await runtime.start({ code: 'return 1;' });
      expect((await run.wait()).status).toBe('succeeded');
      // Every stored time reads back whole (the store names a fractional one damaged).
      expect((await runtime.store.getRun(run.id))?.damaged).toBeUndefined();
    } finally {
      await runtime.close();
    }
  });

  it.skipIf(pg.skip !== undefined)(
    'reach the durable runtime: the runs are owned by the replica id, leased for leaseMs',
    async () => {
      const schema = schemaName();
      const file = write({
        sources: [{ builtin: 'demo' }],
        scopes: { default: { mode: 'code', ask: ['kv.delete'] } },
        typecheck: 'off',
        store: { url: pg.url, schema, replicaId: 'config-A', leaseMs: 600_000 },
      });
      const opened = await openRuntime({ configPath: file });
      try {
        expect(opened.runs?.replicaId).toBe('config-A');
        const runtime = opened.runtime as DurableRuntime;
        const handle = await runtime.start({ code: `await tools.kv.delete({ key: 'k' });` });
        let row = await runtime.store.getRun(handle.id);
        for (let i = 0; i < 400 && row?.status !== 'waiting-approval'; i++) {
          await new Promise((r) => setTimeout(r, 25));
          row = await runtime.store.getRun(handle.id);
        }
        expect(row).toMatchObject({ status: 'waiting-approval', owner: 'config-A' });
        // The default lease is 15 s: a lease far beyond it can only come from `leaseMs`.
        expect(row!.leaseExpiresAt! - Date.now()).toBeGreaterThan(300_000);
        await handle.cancel();
      } finally {
        await opened.close();
        const client = openPgClient({ url: pg.url! });
        await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
        await client.close();
      }
    },
    60_000,
  );
});
