/**
 * Two replicas sharing one PostgreSQL: a run held by one is read, decided and cancelled through the
 * other's HTTP face. (Picking up a dead replica's runs is durable-replay's suite.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from '../../src/index.js';
import { createDurableRuntime, type DurableRuntime } from '../../src/durable/index.js';
import { createSqlStore } from '../../src/durable/sql-store.js';
import { openPgClient } from '../../src/durable/pg-client.js';
import { buildHttpApp, type HttpApp } from '../../src/server/app.js';
import { schemaName, storeKinds } from './stores.js';

const pg = storeKinds()[1]!;
const KEY = 'key-alpha-0123456789abcdef';
const scopes = { alpha: { mode: 'code' as const } };
const ran: string[] = [];
const tools = [
  defineTool({
    name: 'kv.delete',
    description: 'Deletes a key (asks a human first).',
    input: z.object({ key: z.string() }),
    output: z.object({ deleted: z.string() }),
    execute: ({ key }: { key: string }) => {
      ran.push(key);
      return { deleted: key };
    },
  }),
];

describe.skipIf(pg.skip !== undefined)('two replicas on one PostgreSQL', () => {
  let holder: DurableRuntime;
  let other: DurableRuntime;
  let appA: HttpApp;
  let appB: HttpApp;
  const call = (app: HttpApp, path: string, body?: unknown): Promise<Response> =>
    Promise.resolve(
      app.request(path, {
        method: body === undefined ? 'GET' : 'POST',
        headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      }),
    );
  const view = async (app: HttpApp, id: string): Promise<Record<string, unknown>> =>
    (await (await call(app, `/v1/runs/${id}`)).json()) as Record<string, unknown>;
  async function until<T>(probe: () => Promise<T | undefined>): Promise<T> {
    for (const end = Date.now() + 20_000; ;) {
      const v = await probe();
      if (v !== undefined) return v;
      if (Date.now() > end) throw new Error('condition not reached');
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  const pendingVia = (app: HttpApp, runId: string): Promise<string> =>
    until(async () => {
      const { approvals } = (await (await call(app, '/v1/approvals')).json()) as {
        approvals: { id: string; runId: string }[];
      };
      return approvals.find((a) => a.runId === runId)?.id;
    });

  beforeAll(async () => {
    const url = pg.url!;
    const schema = schemaName();
    const common = {
      scopes,
      tools,
      hooks: {
        preExecute: (ctx: { call: { name: string } }) =>
          ctx.call.name === 'kv.delete'
            ? { action: 'ask' as const, message: 'deletes' }
            : undefined,
      },
    };
    holder = await createDurableRuntime({
      ...common,
      replicaId: 'A',
      store: await createSqlStore(openPgClient({ url }), { schema }),
    });
    // The other replica serves reads and decisions only: no sandbox needed there.
    other = await createDurableRuntime({
      ...common,
      replicaId: 'B',
      codeMode: false,
      store: await createSqlStore(openPgClient({ url }), { schema }),
    });
    const keys = [{ key: KEY, scope: 'alpha' }];
    appA = buildHttpApp({
      runtime: holder,
      defaultScope: 'alpha',
      apiKeys: keys,
      runs: holder.runs,
    }).app;
    appB = buildHttpApp({
      runtime: other,
      defaultScope: 'alpha',
      apiKeys: keys,
      runs: other.runs,
    }).app;
  }, 120_000);
  afterAll(async () => {
    await holder?.close();
    await other?.close();
  });

  it('a decision posted to the other replica reaches the run where it lives', async () => {
    const { id } = (await (
      await call(appA, '/v1/runs', {
        code: `return (await tools.kv.delete({ key: 'k1' })).deleted;`,
      })
    ).json()) as { id: string };
    const approval = await pendingVia(appB, id);
    // The approval row is written before the holder records the status: wait for both.
    await until(async () =>
      (await view(appB, id)).status === 'waiting-approval' ? true : undefined,
    );
    expect(await view(appB, id)).toMatchObject({ status: 'waiting-approval', pendingApprovals: 1 });
    const decided = await call(appB, `/v1/approvals/${approval}`, { decision: 'allowed-once' });
    expect(decided.status).toBe(200);
    await until(async () => ((await view(appB, id)).status === 'succeeded' ? true : undefined));
    expect((await view(appA, id)).result).toMatchObject({ value: { result: 'k1' } });
    expect(ran.filter((k) => k === 'k1')).toHaveLength(1);
  });

  it('a cancel posted to the other replica stops the run where it lives', async () => {
    const { id } = (await (
      await call(appA, '/v1/runs', {
        code: `return (await tools.kv.delete({ key: 'k2' })).deleted;`,
      })
    ).json()) as { id: string };
    const approval = await pendingVia(appB, id);
    expect((await call(appB, `/v1/runs/${id}/cancel`, {})).status).toBe(200);
    // The holder notices, aborts the run; its approval becomes cancelled and the result is recorded.
    await until(async () => ((await view(appA, id)).finishedAt !== undefined ? true : undefined));
    expect((await view(appA, id)).status).toBe('cancelled');
    const { approvals } = (await (await call(appA, `/v1/runs/${id}/approvals`)).json()) as {
      approvals: { id: string; status: string }[];
    };
    expect(approvals.find((a) => a.id === approval)?.status).toBe('cancelled');
    expect(ran).not.toContain('k2');
  });
});
