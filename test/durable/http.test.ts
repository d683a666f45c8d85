/** Durable runs through the HTTP service: background runs, events, cancel, scopes, approvals that wait. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from '../../src/index.js';
import { createDurableRuntime, type DurableRuntime } from '../../src/durable/index.js';
import { buildHttpApp, type HttpApp } from '../../src/server/app.js';
import { storeKinds } from './stores.js';
import { until } from '../support/until.js';

const KEY_A = 'key-alpha-0123456789abcdef';
const KEY_B = 'key-beta-0123456789abcdef';
const KEY_C = 'key-gamma-0123456789abcdef';
const pglite = storeKinds()[0]!;

let runtime: DurableRuntime;
let app: HttpApp;
const ran: string[] = [];

const request = (key: string, path: string, init: RequestInit = {}): Promise<Response> =>
  Promise.resolve(
    app.request(path, {
      ...init,
      headers: {
        authorization: `Bearer ${key}`,
        'content-type': 'application/json',
        ...init.headers,
      },
    }),
  );
const post = (key: string, path: string, body: unknown): Promise<Response> =>
  request(key, path, { method: 'POST', body: JSON.stringify(body) });
const json = async <T = Record<string, unknown>>(r: Response | Promise<Response>): Promise<T> =>
  (await (await r).json()) as T;

/** The run once it has `status`. */
const runIn = async (id: string, status: string, key = KEY_A): Promise<Record<string, unknown>> =>
  until(async () => {
    const view = await json(request(key, `/v1/runs/${id}`));
    return view.status === status ? view : undefined;
  });
const start = async (code: string): Promise<string> => {
  const r = await post(KEY_A, '/v1/runs', { code, description: 'test run' });
  expect(r.status).toBe(202);
  const body = await json<{ id: string; status: string }>(r);
  expect(body.status).toBe('running');
  return body.id;
};
interface Approval {
  id: string;
  runId: string;
  tool: string;
  args: unknown;
  status: string;
  reason: string;
}
const pendingOf = (runId: string, n: number): Promise<Approval[]> =>
  until(async () => {
    const { approvals } = await json<{ approvals: Approval[] }>(
      request(KEY_A, `/v1/runs/${runId}/approvals`),
    );
    const pending = approvals.filter((a) => a.status === 'pending');
    return pending.length === n ? pending : undefined;
  });

/** The SSE events of a response body: id, event and parsed data. */
function parseSse(text: string): { id: number; event: string; data: unknown }[] {
  return text
    .split('\n\n')
    .filter((block) => block.includes('data:'))
    .map((block) => {
      const field = (name: string): string =>
        block
          .split('\n')
          .find((l) => l.startsWith(`${name}:`))
          ?.slice(name.length + 1)
          .trim() ?? '';
      return {
        id: Number(field('id')),
        event: field('event'),
        data: JSON.parse(field('data')) as unknown,
      };
    });
}

beforeAll(async () => {
  runtime = await createDurableRuntime({
    store: await pglite.open({ pollMs: 100 }),
    scopes: { alpha: { mode: 'code' }, beta: { mode: 'code' }, gamma: { mode: 'native' } },
    codeMode: { limits: { wallMs: 2_000 }, maxCodeChars: 300 },
    tools: [
      defineTool({
        name: 'kv.put',
        description: 'Stores a value.',
        input: z.object({ key: z.string(), value: z.string() }),
        output: z.object({ ok: z.boolean() }),
        execute: ({ key }: { key: string }) => {
          ran.push(`put:${key}`);
          return { ok: true };
        },
      }),
      defineTool({
        name: 'kv.delete',
        description: 'Deletes a key (asks a human first).',
        input: z.object({ key: z.string() }),
        output: z.object({ deleted: z.string() }),
        isConcurrencySafe: true,
        execute: ({ key }: { key: string }) => {
          ran.push(`delete:${key}`);
          return { deleted: key };
        },
      }),
    ],
    hooks: {
      preExecute: (ctx) =>
        ctx.call.name === 'kv.delete' ? { action: 'ask', message: 'deletes data' } : undefined,
    },
  });
  app = buildHttpApp({
    runtime,
    defaultScope: 'alpha',
    apiKeys: [
      { key: KEY_A, scope: 'alpha' },
      { key: KEY_B, scope: 'beta' },
      { key: KEY_C, scope: 'gamma' },
    ],
    runs: runtime.runs,
  }).app;
}, 180_000);
afterAll(async () => {
  await runtime?.close();
  await pglite.close();
});

describe('durable runs over HTTP', () => {
  it('runs a program in the background; the run shows its calls and result', async () => {
    const id = await start(`await tools.kv.put({ key: 'bg', value: 'v' }); return 42;`);
    const code = `await tools.kv.put({ key: 'bg', value: 'v' }); return 42;`;
    const view = await runIn(id, 'succeeded');
    expect(view.calls).toEqual([
      { name: 'kv.put', ok: true, durationMs: expect.any(Number) as number, replayed: false },
    ]);
    expect(view).toMatchObject({ program: code, callCount: 1, pendingApprovals: 0 });
    expect(view.startedAt).toEqual(expect.any(Number));
    expect(view.finishedAt).toBeGreaterThanOrEqual(view.startedAt as number);
    expect(view.result).toMatchObject({ ok: true, value: { result: 42 } });
    expect(ran).toContain('put:bg');
  });

  it('the library handle: start, wait, view; an unknown scope is refused', async () => {
    const handle = await runtime.start({ code: 'return 7;', scope: 'beta' });
    expect((await handle.wait()).status).toBe('succeeded');
    expect(await handle.view()).toMatchObject({ scope: 'beta', result: { value: { result: 7 } } });
    expect((await request(KEY_A, `/v1/runs/${handle.id}`)).status).toBe(404);
    await expect(runtime.start({ code: 'return 1', scope: 'nope' })).rejects.toMatchObject({
      code: 'INVALID_SCOPE',
    });
  });

  it('arguments run_code refuses are INVALID_ARGS before a run is stored (library and HTTP)', async () => {
    const before = (await runtime.store.listRuns({})).length;
    await expect(
      runtime.start({ code: 'return 1;', description: '  ', scope: 'alpha' }),
    ).rejects.toMatchObject({
      code: 'INVALID_ARGS',
      message: expect.stringContaining('description must not be blank') as unknown,
    });
    const res = await post(KEY_A, '/v1/runs', { code: 'return 1;', description: ' ' });
    expect(res.status).toBe(400);
    expect(await json(res)).toMatchObject({ error: { code: 'INVALID_ARGS' } });
    // run_code's own bound (codeMode.maxCodeChars: 300 here) decides, not a copy in the route.
    const long = await post(KEY_A, '/v1/runs', { code: `return 1;${' '.repeat(300)}` });
    expect(long.status).toBe(400);
    expect(await json(long)).toMatchObject({
      error: { code: 'INVALID_ARGS', message: expect.stringContaining('at most 300') as unknown },
    });
    const empty = await post(KEY_A, '/v1/runs', { code: '' });
    expect(await json(empty)).toMatchObject({
      error: {
        code: 'INVALID_ARGS',
        message: expect.stringContaining('must not be empty') as unknown,
      },
    });
    expect((await runtime.store.listRuns({})).length).toBe(before);
  });

  it('a scope that shows no run_code refuses a run with UNKNOWN_TOOL before it is stored', async () => {
    const before = (await runtime.store.listRuns({})).length;
    await expect(runtime.start({ code: 'return 1;', scope: 'gamma' })).rejects.toMatchObject({
      code: 'UNKNOWN_TOOL',
      message: 'unknown tool "run_code" in scope "gamma"',
    });
    const res = await post(KEY_C, '/v1/runs', { code: 'return 1;', description: 'x' });
    expect(res.status).toBe(404);
    expect(await json(res)).toMatchObject({ error: { code: 'UNKNOWN_TOOL' } });
    expect((await runtime.store.listRuns({})).length).toBe(before);
  });

  it('streams events with ids, resumable with Last-Event-ID', async () => {
    const id = await start(
      `console.log('hello'); await tools.kv.put({ key: 'ev', value: 'v' }); return 1;`,
    );
    const all = parseSse(await (await request(KEY_A, `/v1/runs/${id}/events`)).text());
    expect(all.map((e) => e.id)).toEqual(all.map((_, i) => i + 1));
    expect(all.map((e) => e.event)).toEqual(
      expect.arrayContaining(['status', 'log', 'call-start', 'call-end', 'result']),
    );
    expect(all.at(-1)?.event).toBe('result');
    const cut = 2;
    const rest = parseSse(
      await (
        await request(KEY_A, `/v1/runs/${id}/events`, { headers: { 'last-event-id': String(cut) } })
      ).text(),
    );
    expect(rest).toEqual(all.slice(cut));
  });

  it("lists the scope's runs newest first, filtered by status; other scopes see none of them", async () => {
    const first = await start('return 1;');
    await runIn(first, 'succeeded');
    const second = await start(`return await tools.kv.delete({ key: 'listed' });`);
    const [approval] = await pendingOf(second, 1);
    const listed = await json<{ runs: Record<string, unknown>[] }>(request(KEY_A, '/v1/runs'));
    const ids = listed.runs.map((r) => r.id);
    expect(ids.indexOf(second)).toBeLessThan(ids.indexOf(first));
    expect(listed.runs.find((r) => r.id === second)).toMatchObject({
      scope: 'alpha',
      status: 'waiting-approval',
      pendingApprovals: 1,
      // Its one call waits for a human: no call has started yet.
      callCount: 0,
    });
    expect(listed.runs.every((r) => r.scope === 'alpha' && !('program' in r))).toBe(true);
    const waiting = await json<{ runs: { id: string; status: string }[] }>(
      request(KEY_A, '/v1/runs?status=waiting-approval,queued'),
    );
    expect(waiting.runs.map((r) => r.id)).toContain(second);
    expect(waiting.runs.every((r) => r.status === 'waiting-approval')).toBe(true);
    expect((await json<{ runs: unknown[] }>(request(KEY_A, '/v1/runs?limit=1'))).runs).toHaveLength(
      1,
    );
    const other = await json<{ runs: { id: string }[] }>(request(KEY_B, '/v1/runs'));
    expect(other.runs.map((r) => r.id)).not.toContain(second);
    expect(other.runs.map((r) => r.id)).not.toContain(first);
    for (const bad of ['?status=done', '?limit=0', '?limit=101', '?limit=x']) {
      const res = await request(KEY_A, `/v1/runs${bad}`);
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ error: { code: 'BAD_REQUEST' } });
    }
    await post(KEY_A, `/v1/approvals/${approval!.id}`, { decision: 'allowed-once' });
    await runIn(second, 'succeeded');
    const after = await json<{ runs: Record<string, unknown>[] }>(
      request(KEY_A, '/v1/runs?status=succeeded'),
    );
    expect(after.runs.find((r) => r.id === second)).toMatchObject({
      callCount: 1,
      pendingApprovals: 0,
    });
  });

  it("hides a scope's runs and approvals from other scopes' keys (404, not 403)", async () => {
    const id = await start(`return await tools.kv.delete({ key: 'hidden' });`);
    const [approval] = await pendingOf(id, 1);
    expect((await request(KEY_B, `/v1/runs/${id}`)).status).toBe(404);
    expect((await request(KEY_B, `/v1/runs/${id}/events`)).status).toBe(404);
    expect((await request(KEY_B, `/v1/runs/${id}/approvals`)).status).toBe(404);
    expect((await post(KEY_B, `/v1/runs/${id}/cancel`, {})).status).toBe(404);
    expect(await json(request(KEY_B, '/v1/approvals'))).toEqual({ approvals: [], next: null });
    expect(
      (await post(KEY_B, `/v1/approvals/${approval!.id}`, { decision: 'allowed-once' })).status,
    ).toBe(404);
    expect((await request(KEY_A, '/v1/runs/run_nope')).status).toBe(404);
    // still pending for its own scope
    expect((await runIn(id, 'waiting-approval')).pendingApprovals).toBe(1);
    await post(KEY_A, `/v1/approvals/${approval!.id}`, { decision: 'rejected' });
    await runIn(id, 'failed');
    expect(ran).not.toContain('delete:hidden');
  });

  it('parks an ask as a pending approval; a decision lets the run finish', async () => {
    const id = await start(`return await tools.kv.delete({ key: 'one' });`);
    const [approval] = await pendingOf(id, 1);
    expect(approval).toMatchObject({
      runId: id,
      tool: 'kv.delete',
      args: { key: 'one' },
      reason: 'deletes data',
    });
    const listed = await json<{ approvals: Approval[] }>(request(KEY_A, '/v1/approvals'));
    expect(listed.approvals.map((a) => a.id)).toContain(approval!.id);
    await runIn(id, 'waiting-approval');
    const decided = await json(
      post(KEY_A, `/v1/approvals/${approval!.id}`, { decision: 'allowed-once' }),
    );
    expect(decided).toMatchObject({ applied: true, approval: { status: 'allowed-once' } });
    const view = await runIn(id, 'succeeded');
    expect(view.result).toMatchObject({ value: { result: { deleted: 'one' } } });
    expect(ran.filter((r) => r === 'delete:one')).toHaveLength(1);
    // a second decision changes nothing
    expect(
      await json(post(KEY_A, `/v1/approvals/${approval!.id}`, { decision: 'rejected' })),
    ).toMatchObject({
      applied: false,
      approval: { status: 'allowed-once' },
    });
    const events = parseSse(await (await request(KEY_A, `/v1/runs/${id}/events`)).text());
    expect(
      events
        .filter((e) => e.event === 'approval')
        .map((e) => (e.data as { status: string }).status),
    ).toEqual(['pending', 'allowed-once']);
    expect(
      events.filter((e) => e.event === 'status').map((e) => (e.data as { status: string }).status),
    ).toEqual(['running', 'waiting-approval', 'running']);
  });

  it('Promise.all of three asks: all three pending together, decided in one batch', async () => {
    const id = await start(`
      const r = await Promise.allSettled(['x', 'y', 'z'].map((key) => tools.kv.delete({ key })));
      return r.map((s) => s.status);`);
    const pending = await pendingOf(id, 3);
    expect(pending.map((a) => (a.args as { key: string }).key).sort()).toEqual(['x', 'y', 'z']);
    const byKey = new Map(pending.map((a) => [(a.args as { key: string }).key, a.id]));
    const batch = await json<{ results: { id: string; applied?: boolean }[] }>(
      post(KEY_A, '/v1/approvals', {
        decisions: [
          { id: byKey.get('x'), decision: 'allowed-once' },
          { id: byKey.get('y'), decision: 'rejected' },
          { id: byKey.get('z'), decision: 'allowed-once' },
        ],
      }),
    );
    expect(batch.results.map((r) => r.applied)).toEqual([true, true, true]);
    const view = await runIn(id, 'succeeded');
    expect(view.result).toMatchObject({
      value: { result: ['fulfilled', 'rejected', 'fulfilled'] },
    });
    expect(ran.filter((r) => /^delete:[xyz]$/.test(r)).sort()).toEqual(['delete:x', 'delete:z']);
  });

  it('cancels a run waiting for approval; its approval is cancelled', async () => {
    const id = await start(`return await tools.kv.delete({ key: 'never' });`);
    const [approval] = await pendingOf(id, 1);
    // Three cancels at once: one cancels, the others find it cancelled; one `cancelled` event.
    const views = await Promise.all(
      [1, 2, 3].map(() => json(post(KEY_A, `/v1/runs/${id}/cancel`, {}))),
    );
    for (const view of views) expect(view.status).toBe('cancelled');
    const statuses = (await runtime.store.listEvents(id, 0, 1000))
      .filter((e) => e.type === 'status')
      .map((e) => (e.data as { status: string }).status);
    expect(statuses.filter((s) => s === 'cancelled')).toHaveLength(1);
    const after = await json<{ approvals: Approval[] }>(request(KEY_A, `/v1/runs/${id}/approvals`));
    expect(after.approvals.find((a) => a.id === approval!.id)?.status).toBe('cancelled');
    expect(ran).not.toContain('delete:never');
    expect((await json(request(KEY_A, `/v1/runs/${id}`))).status).toBe('cancelled');
  });

  it('a run with a 2 s wall limit waits 5 s for an approval, then succeeds', async () => {
    const id = await start(`
      await tools.kv.put({ key: 'before', value: 'v' });
      const r = await tools.kv.delete({ key: 'slow' });
      return r.deleted;`);
    const [approval] = await pendingOf(id, 1);
    await new Promise((r) => setTimeout(r, 5_000));
    expect((await json(request(KEY_A, `/v1/runs/${id}`))).status).toBe('waiting-approval');
    await post(KEY_A, `/v1/approvals/${approval!.id}`, { decision: 'allowed-once' });
    const view = await runIn(id, 'succeeded');
    expect(view.result).toMatchObject({ ok: true, value: { result: 'slow' } });
  }, 30_000);

  it('a program that overruns its wall limit without a human wait still fails', async () => {
    const id = await start(`await new Promise(() => {}); return 1;`);
    const view = await runIn(id, 'failed');
    expect(JSON.stringify(view.error)).toMatch(/wall-clock limit/);
  }, 30_000);
});
