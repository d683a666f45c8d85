/**
 * Bounded and retained: a scope past its stored-bytes quota is refused at start with
 * QUOTA_EXCEEDED (and another scope is not), and settled runs older than the retention period are
 * deleted by the sweeper with everything they hold.
 */
import { afterAll, describe, expect, it } from 'vitest';
import {
  createDurableRuntime,
  type DurableRuntime,
  type DurableRuntimeOptions,
} from '../../src/durable/index.js';
import { openSqliteStore } from '../../src/durable/sqlite-store.js';

const runtimes: DurableRuntime[] = [];
afterAll(async () => {
  for (const rt of runtimes) await rt.close();
});
const open = async (runs: DurableRuntimeOptions['runs']) => {
  const rt = await createDurableRuntime({
    store: openSqliteStore(),
    recovery: { leaseMs: 1000, scanMs: 50 },
    runs,
    scopes: { a: { mode: 'code' }, b: { mode: 'code' } },
    codeMode: { typecheck: 'off' },
  });
  runtimes.push(rt);
  return rt;
};

describe('quotas and retention', () => {
  it('a scope over its stored bytes is refused QUOTA_EXCEEDED; another scope still starts', async () => {
    const rt = await open({ maxStoredBytesPerScope: 2000, retentionMs: false });
    const big = await rt.start({ code: `console.log('x'.repeat(3000)); return 1;`, scope: 'a' });
    expect((await big.wait()).status).toBe('succeeded');
    await expect(rt.start({ code: 'return 2;', scope: 'a' })).rejects.toMatchObject({
      code: 'QUOTA_EXCEEDED',
      details: { retryAfterSeconds: expect.any(Number) as unknown },
    });
    expect((await (await rt.start({ code: 'return 3;', scope: 'b' })).wait()).status).toBe(
      'succeeded',
    );
  }, 60_000);

  it('settled runs past the retention period are swept with their events and calls', async () => {
    const rt = await open({ retentionMs: 1, retentionSweepMs: 0 });
    const handle = await rt.start({ code: 'return 1;', scope: 'a' });
    expect((await handle.wait()).status).toBe('succeeded');
    for (const end = Date.now() + 30_000; (await rt.store.getRun(handle.id)) !== undefined;) {
      if (Date.now() > end) throw new Error('not swept');
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(await rt.store.listEvents(handle.id)).toEqual([]);
    expect((await rt.store.stats()).runs).toBe(0);
  }, 60_000);
});
