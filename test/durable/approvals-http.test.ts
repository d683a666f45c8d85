/**
 * The approval routes a console lives on: `GET /v1/approvals` in bounded pages (status, order,
 * `after`), and `GET /v1/approvals/events`, the scope's pending set pushed each time it changes.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { defineTool } from '../../src/index.js';
import { createDurableRuntime, type DurableRuntime } from '../../src/durable/index.js';
import { buildHttpApp, type HttpApp } from '../../src/server/app.js';
import { SseParser, type SseEvent } from '../../console/src/sse.js';
import { storeKinds } from './stores.js';
import { until } from '../support/until.js';

const KEY_A = 'key-alpha-0123456789abcdef';
const KEY_B = 'key-beta-0123456789abcdef';
const KEY_ALICE = 'key-alice-0123456789abcdef';
const audit: string[] = [];
const sqlite = storeKinds()[0]!;

let runtime: DurableRuntime;
let app: HttpApp;

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
interface Page {
  approvals: { id: string; status: string; args: { key: string } }[];
  next: string | null;
}
const page = async (key: string, query: string): Promise<Page> =>
  (await (await request(key, `/v1/approvals${query}`)).json()) as Page;

/** Reads an SSE response event by event. */
function events(res: Response): { next(): Promise<SseEvent> } {
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  const parser = new SseParser();
  const queue: SseEvent[] = [];
  return {
    async next() {
      while (queue.length === 0) {
        const { done, value } = await reader.read();
        if (done) throw new Error('the stream ended');
        queue.push(...parser.feed(value));
      }
      return queue.shift()!;
    },
  };
}

beforeAll(async () => {
  runtime = await createDurableRuntime({
    store: await sqlite.open({ pollMs: 100 }),
    scopes: { alpha: { mode: 'code' }, beta: { mode: 'code' } },
    audit: { write: (line) => audit.push(line) },
    tools: [
      defineTool({
        name: 'kv.delete',
        description: 'Deletes a key (asks a human first).',
        input: z.object({ key: z.string() }),
        output: z.object({ deleted: z.string() }),
        isConcurrencySafe: true,
        execute: ({ key }: { key: string }) => ({ deleted: key }),
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
      { key: KEY_ALICE, scope: 'alpha', name: 'alice' },
    ],
    runs: runtime.runs,
  }).app;
}, 180_000);
afterAll(async () => {
  await runtime?.close();
  await sqlite.close();
});

describe('approvals over HTTP, bounded and pushed', () => {
  it('pages the pending set, oldest first or newest first, and refuses unbounded or unknown queries', async () => {
    const res = await post(KEY_A, '/v1/runs', {
      code: "await Promise.all(['a', 'b', 'c'].map((key) => tools.kv.delete({ key })));",
      description: 'three deletes',
    });
    expect(res.status).toBe(202);
    const all = await until(async () => {
      const p = await page(KEY_A, '');
      return p.approvals.length === 3 ? p : undefined;
    });
    expect(all.next).toBeNull();
    const ids = all.approvals.map((a) => a.id);
    const first = await page(KEY_A, '?limit=2');
    expect(first.approvals.map((a) => a.id)).toEqual(ids.slice(0, 2));
    expect(first.next).toBe(ids[1]);
    const second = await page(KEY_A, `?limit=2&after=${first.next!}`);
    expect(second).toMatchObject({ next: null });
    expect(second.approvals.map((a) => a.id)).toEqual(ids.slice(2));
    const newest = await page(KEY_A, '?order=newest&limit=2');
    expect(newest.approvals.map((a) => a.id)).toEqual([ids[2], ids[1]]);
    expect(
      (await page(KEY_A, `?order=newest&after=${ids[1]!}`)).approvals.map((a) => a.id),
    ).toEqual([ids[0]]);
    expect((await page(KEY_A, '?status=decided')).approvals).toEqual([]);
    expect((await page(KEY_B, '?status=all')).approvals).toEqual([]);
    for (const bad of [
      '?limit=0',
      '?limit=101',
      '?limit=x',
      '?status=nope',
      '?order=up',
      '?after=',
    ])
      expect((await request(KEY_A, `/v1/approvals${bad}`)).status, bad).toBe(400);
    await post(KEY_A, '/v1/approvals', {
      decisions: ids.map((id) => ({ id, decision: 'allowed-once' })),
    });
    expect((await page(KEY_A, '?status=decided')).approvals.map((a) => a.id)).toEqual(ids);
  }, 60_000);

  it('pushes the pending set at once and after each change; another scope sees only its own', async () => {
    const ac = new AbortController();
    const mine = events(
      await request(KEY_A, '/v1/approvals/events', {
        headers: { accept: 'text/event-stream' },
        signal: ac.signal,
      }),
    );
    const theirs = events(await request(KEY_B, '/v1/approvals/events', { signal: ac.signal }));
    try {
      const data = (e: SseEvent): { count: number; ids: string[] } =>
        JSON.parse(e.data) as { count: number; ids: string[] };
      const initial = await mine.next();
      expect(initial.type).toBe('pending');
      const before = data(initial).count;
      const res = await post(KEY_A, '/v1/runs', {
        code: "await Promise.all(['x', 'y'].map((key) => tools.kv.delete({ key })));",
        description: 'two deletes',
      });
      const runId = ((await res.json()) as { id: string }).id;
      // The asks arrive one event at a time or together: read until both are there.
      let seen = data(await mine.next());
      while (seen.count < before + 2) seen = data(await mine.next());
      expect(seen.count).toBe(before + 2);
      const { approvals } = (await (
        await request(KEY_A, `/v1/runs/${runId}/approvals`)
      ).json()) as Page;
      expect(seen.ids).toEqual(expect.arrayContaining(approvals.map((a) => a.id)));
      await post(KEY_A, `/v1/approvals/${approvals[0]!.id}`, { decision: 'rejected' });
      const after = data(await mine.next());
      expect(after.count).toBe(before + 1);
      expect(after.ids).not.toContain(approvals[0]!.id);
      await post(KEY_A, `/v1/approvals/${approvals[1]!.id}`, { decision: 'rejected' });
      expect(data(await mine.next()).count).toBe(before);
      // Beta's stream said "none" once and had nothing to add.
      expect(data(await theirs.next())).toEqual({ count: 0, ids: [] });
    } finally {
      ac.abort();
    }
  }, 60_000);

  it('HEAD on an event stream answers its headers and starts no stream (no listener, no polling)', async () => {
    const onWake = vi.spyOn(runtime.runs.store, 'onWake');
    const onEvent = vi.spyOn(runtime.runs, 'onEvent');
    try {
      const res = await post(KEY_A, '/v1/runs', { code: 'return 1;', description: 'one' });
      const runId = ((await res.json()) as { id: string }).id;
      for (const path of ['/v1/approvals/events', `/v1/runs/${runId}/events`]) {
        for (let i = 0; i < 5; i++) {
          const head = await request(KEY_A, path, { method: 'HEAD' });
          expect(head.status, path).toBe(200);
          expect(head.headers.get('content-type')).toMatch(/^text\/event-stream/);
          expect(await head.text()).toBe('');
        }
      }
      expect(onWake).not.toHaveBeenCalled();
      expect(onEvent).not.toHaveBeenCalled();
    } finally {
      onWake.mockRestore();
      onEvent.mockRestore();
    }
  });

  it('names a named key as the decider, in the API and in the audit, instead of a request id', async () => {
    const res = await post(KEY_A, '/v1/runs', {
      code: "await tools.kv.delete({ key: 'named' });\nawait tools.kv.delete({ key: 'anon' });",
      description: 'who decides',
    });
    const runId = ((await res.json()) as { id: string }).id;
    const next = (): Promise<{ id: string }> =>
      until(async () => {
        const { approvals } = (await (
          await request(KEY_A, `/v1/runs/${runId}/approvals`)
        ).json()) as Page;
        return approvals.find((a) => a.status === 'pending');
      });
    const first = await next();
    const byAlice = (await (
      await post(KEY_ALICE, `/v1/approvals/${first.id}`, { decision: 'allowed-once' })
    ).json()) as { approval: { decidedBy: string } };
    expect(byAlice.approval.decidedBy).toBe('key:alice');
    const second = await next();
    const byKey = (await (
      await post(KEY_A, `/v1/approvals/${second.id}`, { decision: 'allowed-once' })
    ).json()) as { approval: { decidedBy: string } };
    expect(byKey.approval.decidedBy).toMatch(/^http:alpha:[0-9a-f-]{36}$/);
    const decided = await until(() => {
      const lines = audit
        .map((l) => JSON.parse(l) as { type: string; name: string; decidedBy?: string })
        .filter((e) => e.type === 'approval/decided' && e.name === 'kv.delete');
      return Promise.resolve(lines.length >= 2 ? lines : undefined);
    });
    expect(decided.map((e) => e.decidedBy)).toContain('key:alice');
  }, 60_000);

  it('refuses a bad or duplicate key name when the app is built', () => {
    for (const names of [['http:x'], ['a b'], ['alice', 'alice']])
      expect(() =>
        buildHttpApp({
          runtime,
          defaultScope: 'alpha',
          apiKeys: names.map((name, i) => ({ key: `k-${i}-0123456789`, scope: 'alpha', name })),
        }),
      ).toThrow(/apiKeys\[\d\]\.name/);
  });
});
