/**
 * Parked runs and the queue, through the HTTP service: a run whose every live call waits for a
 * human gives its sandbox worker and run slot back (a benign run of the same scope succeeds while
 * two are parked with `maxConcurrentRunsPerScope: 2`), waits far longer than its CPU limit would
 * allow a live sandbox, and resumes by replay when decided; a burst past the scope's queue is
 * refused at POST (429) and no accepted run fails OVERLOADED; Idempotency-Key; resolving an
 * interrupted run; odd ids are 404.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from '../../src/index.js';
import { createDurableRuntime, type DurableRuntime } from '../../src/durable/index.js';
import { buildHttpApp, type HttpApp } from '../../src/server/app.js';
import { storeKinds, type StoreKind } from './stores.js';
import { expectWholeStory } from './story.js';
import { until } from '../support/until.js';

const KEY = 'key-parking-0123456789abcdef';
const KEY_Q = 'key-queue-0123456789abcdef';

let runtime: DurableRuntime;
let app: HttpApp;
const effects: string[] = [];
for (const kind of storeKinds())
  describe.skipIf(kind.skip !== undefined)(`with the ${kind.name} store`, () => suite(kind));

function suite(kind: StoreKind): void {
  const request = (path: string, init: RequestInit = {}, key = KEY): Promise<Response> =>
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
  const post = (path: string, body: unknown, key = KEY, headers: Record<string, string> = {}) =>
    request(path, { method: 'POST', body: JSON.stringify(body), headers }, key);
  const json = async <T = Record<string, unknown>>(r: Response | Promise<Response>): Promise<T> =>
    (await (await r).json()) as T;

  interface View {
    id: string;
    status: string;
    result?: { ok?: boolean; value?: { result?: unknown; logs?: unknown[] } };
    error?: { code?: string; message?: string };
    finishedAt?: number;
  }
  const viewOf = (id: string, key = KEY): Promise<View> =>
    json<View>(request(`/v1/runs/${id}`, {}, key));
  const settled = async (id: string, key = KEY): Promise<View> => {
    try {
      const view = await until(async () => {
        const v = await viewOf(id, key);
        return v.finishedAt !== undefined || v.status === 'interrupted' ? v : undefined;
      }, 50_000);
      if (view.finishedAt !== undefined) await expectWholeStory(runtime.store, id);
      return view;
    } catch (error) {
      // Say where the run stands, for a failure that cannot be reproduced at will.
      const run = await runtime.store.getRun(id);
      const events = await runtime.store.listEvents(id, 0, 1000);
      const approvals = await runtime.store.listApprovals({ runId: id });
      const state = { run, events: events.map((e) => [e.type, e.data]), approvals };
      throw new Error(`run ${id} did not settle: ${JSON.stringify(state)}`, { cause: error });
    }
  };
  const start = async (code: string, key = KEY): Promise<string> => {
    const r = await post('/v1/runs', { code, description: 'parking test' }, key);
    expect(r.status).toBe(202);
    return (await json<{ id: string }>(r)).id;
  };
  const pendingOf = (runId: string, n: number) =>
    until(async () => {
      const { approvals } = await json<{
        approvals: { id: string; status: string }[];
      }>(request(`/v1/runs/${runId}/approvals`));
      const pending = approvals.filter((a) => a.status === 'pending');
      return pending.length === n ? pending : undefined;
    });
  /** The run is parked: its status event says so (its sandbox was released). */
  const parked = (runId: string) =>
    until(async () => {
      const events = await runtime.store.listEvents(runId, 0, 1000);
      return events.some((e) => e.type === 'status' && (e.data as { parked?: boolean }).parked)
        ? true
        : undefined;
    });
  const busyWorkers = (): number => runtime.stats().runner?.sandbox.workers?.busy ?? 0;

  beforeAll(async () => {
    effects.length = 0; // each store's suite counts its own side effects
    runtime = await createDurableRuntime({
      store: await kind.open({ pollMs: 100 }),
      recovery: { leaseMs: 2_000, scanMs: 100 },
      runs: { parkAfterMs: 200, maxQueuedRunsPerScope: 5 },
      scopes: { park: { mode: 'code' }, queue: { mode: 'code' } },
      codeMode: {
        typecheck: 'off',
        // A live sandbox could not wait seconds on this CPU budget; a parked run holds none.
        limits: { cpuMs: 300, wallMs: 20_000 },
        admission: {
          maxConcurrentRuns: 4,
          maxConcurrentRunsPerScope: 2,
          maxQueueWaitMs: 200,
        },
        workers: { maxWorkers: 4 },
      },
      tools: [
        defineTool({
          name: 'write',
          description: 'A side effect that asks a human first.',
          input: z.object({ v: z.string() }),
          execute: ({ v }: { v: string }) => {
            effects.push(v);
            return v;
          },
        }),
        defineTool({
          name: 'note',
          description: 'A side effect.',
          input: z.object({ v: z.string() }),
          isConcurrencySafe: true,
          execute: ({ v }: { v: string }) => {
            effects.push(v);
            return v;
          },
        }),
        defineTool({
          name: 'gated',
          description: 'A side effect that asks a human first and may overlap other calls.',
          input: z.object({ v: z.string() }),
          isConcurrencySafe: true,
          execute: ({ v }: { v: string }) => {
            effects.push(v);
            return v;
          },
        }),
        defineTool({
          name: 'slow',
          description: 'Takes a while.',
          input: z.object({ ms: z.number() }),
          isConcurrencySafe: true,
          execute: ({ ms }: { ms: number }) => new Promise((r) => setTimeout(() => r(ms), ms)),
        }),
      ],
      hooks: {
        preExecute: (ctx) =>
          ctx.call.name === 'write' || ctx.call.name === 'gated' ? { action: 'ask' } : undefined,
      },
    });
    app = buildHttpApp({
      runtime,
      defaultScope: 'park',
      apiKeys: [
        { key: KEY, scope: 'park' },
        { key: KEY_Q, scope: 'queue' },
      ],
      runs: runtime.runs,
    }).app;
  }, 180_000);
  afterAll(async () => {
    await runtime?.close();
    await kind.close();
  });

  describe('parked runs', () => {
    it('two parked runs hold no worker and no slot; a benign run of the scope succeeds; each resumes by replay when decided', async () => {
      const program = (tag: string) =>
        `await tools.note({ v: '${tag}:before' }); const t = Date.now(); const w = await tools.write({ v: '${tag}:w' }); await tools.note({ v: '${tag}:after' }); return [w, t];`;
      const a = await start(program('a'));
      const b = await start(program('b'));
      const [askA] = await pendingOf(a, 1);
      const [askB] = await pendingOf(b, 1);
      await parked(a);
      await parked(b);
      expect(await until(() => Promise.resolve(busyWorkers() === 0 ? true : undefined))).toBe(true);
      expect((await viewOf(a)).status).toBe('waiting-approval');
      // Both slots of the scope (maxConcurrentRunsPerScope: 2) are free: a third run just runs.
      const c = await start(`return await tools.note({ v: 'c' });`);
      expect((await settled(c)).status).toBe('succeeded');
      // Longer than a live sandbox could idle on a 300 ms CPU budget.
      await new Promise((r) => setTimeout(r, 4_000));
      const decided = await json<{ results: { applied?: boolean }[] }>(
        post('/v1/approvals', {
          decisions: [
            { id: askA!.id, decision: 'allowed-once' },
            { id: askB!.id, decision: 'allowed-once' },
          ],
        }),
      );
      expect(decided.results.every((r) => r.applied === true)).toBe(true);
      const [va, vb] = await Promise.all([settled(a), settled(b)]);
      expect(va.status).toBe('succeeded');
      expect(vb.status).toBe('succeeded');
      const [w, t] = va.result?.value?.result as [string, number];
      expect(w).toBe('a:w');
      // The clock the first life read is the one the program saw after resuming.
      const clock = (await runtime.store.listValues(a)).filter((v) => v.kind === 'date');
      expect(t).toBe(clock[0]?.value);
      for (const tag of ['a', 'b'])
        expect(effects.filter((e) => e.startsWith(`${tag}:`))).toEqual([
          `${tag}:before`,
          `${tag}:w`,
          `${tag}:after`,
        ]);
      // The view lists each call once: the first life's call (replayed by the second) and the rest.
      const calls = (
        await json<{ calls: { name: string; replayed: boolean }[] }>(request(`/v1/runs/${a}`))
      ).calls;
      expect(calls.map((c) => [c.name, c.replayed])).toEqual([
        ['note', true],
        ['write', false],
        ['note', false],
      ]);
      // The parked life's waiting call did not end: no failed call-end among the run's events
      // (the console drew such ends as failed calls beside the replayed ones), and the write ended
      // once, in the life that ran it.
      const ends = (await runtime.store.listEvents(a, 0, 1000))
        .filter((e) => e.type === 'call-end')
        .map((e) => e.data as { name: string; ok: boolean });
      expect(ends.filter((e) => !e.ok)).toEqual([]);
      expect(ends.filter((e) => e.name === 'write')).toHaveLength(1);
      // One ask per call, re-attached on resume, never cancelled and asked anew.
      const all = await runtime.store.listApprovals({ runId: a });
      expect(all.map((x) => x.status)).toEqual(['allowed-once']);
    }, 120_000);

    it('a branch decided by a human reads the clock after the recorded draws of a sibling branch; each keeps its own time', async () => {
      // Branch b draws the clock once after 30 quick calls (recorded); branch a waits for a human.
      // On resume, a's answer is live and quick: it used to reach the program before b's recorded
      // answers were handed back, take b's recorded time, and diverge the replay.
      const id = await start(`
        const a = (async () => { await tools.gated({ v: 'rc:w' }); const t = Date.now(); await tools.note({ v: 'rc:a' + t }); return t; })();
        const b = (async () => { for (let i = 0; i < 30; i++) await tools.note({ v: 'rc:' + i }); const t = Date.now(); await tools.note({ v: 'rc:b' + t }); return t; })();
        return await Promise.all([a, b]);`);
      const [ask] = await pendingOf(id, 1);
      await parked(id);
      await new Promise((r) => setTimeout(r, 50)); // the clock moves on
      await post(`/v1/approvals/${ask!.id}`, { decision: 'allowed-once' });
      const view = await settled(id);
      expect(view.status, JSON.stringify(view.error)).toBe('succeeded');
      const [ta, tb] = view.result?.value?.result as [number, number];
      // b's draw, recorded by the first life, then a's, drawn live by the second.
      const clock = (await runtime.store.listValues(id)).filter((v) => v.kind === 'date');
      expect(clock.map((v) => v.value)).toEqual([tb, ta]);
      expect(ta).toBeGreaterThan(tb);
      expect(effects.filter((e) => e.startsWith('rc:b'))).toEqual([`rc:b${tb}`]);
      expect(effects.filter((e) => e.startsWith('rc:a'))).toEqual([`rc:a${ta}`]);
    }, 120_000);

    for (const order of ['gated first', 'sibling first'] as const)
      it(`Promise.all of a gated call and a sibling that settles first resumes without divergence (${order})`, async () => {
        const tag = order === 'gated first' ? 'pa' : 'pb';
        const calls = [`tools.write({ v: '${tag}:w' })`, `tools.note({ v: '${tag}:n' })`];
        if (order === 'sibling first') calls.reverse();
        const id = await start(`return await Promise.all([${calls.join(', ')}]);`);
        const [ask] = await pendingOf(id, 1);
        await parked(id);
        await post(`/v1/approvals/${ask!.id}`, { decision: 'allowed-once' });
        const view = await settled(id);
        expect(view.status).toBe('succeeded');
        const values = [`${tag}:w`, `${tag}:n`];
        expect(view.result?.value?.result).toEqual(
          order === 'gated first' ? values : values.reverse(),
        );
        expect(effects.filter((e) => e.startsWith(`${tag}:`)).sort()).toEqual([
          `${tag}:n`,
          `${tag}:w`,
        ]);
        expect(await runtime.store.listApprovals({ runId: id, status: ['pending'] })).toEqual([]);
      }, 60_000);

    it('three gated writes of a Promise.all ask at once, park, are decided in one batch and run once each in program order', async () => {
      const id = await start(
        `return await Promise.all(['w1', 'w2', 'w3'].map((v) => tools.write({ v })));`,
      );
      const asks = await pendingOf(id, 3);
      await parked(id);
      const decided = await json<{ results: { applied?: boolean }[] }>(
        post('/v1/approvals', {
          decisions: asks.map((a) => ({ id: a.id, decision: 'allowed-once' })),
        }),
      );
      expect(decided.results.map((r) => r.applied)).toEqual([true, true, true]);
      const view = await settled(id);
      expect(view.status).toBe('succeeded');
      expect(view.result?.value?.result).toEqual(['w1', 'w2', 'w3']);
      expect(effects.filter((e) => /^w\d$/.test(e))).toEqual(['w1', 'w2', 'w3']);
    }, 60_000);

    it('a rejected ask of a parked run resumes it with the denial', async () => {
      const id = await start(
        `try { await tools.write({ v: 'rj' }); return 'wrote'; } catch (e) { return 'denied: ' + (e as Error).message.slice(0, 20); }`,
      );
      const [ask] = await pendingOf(id, 1);
      await parked(id);
      await post(`/v1/approvals/${ask!.id}`, { decision: 'rejected' });
      const view = await settled(id);
      expect(view.status).toBe('succeeded');
      expect(String(view.result?.value?.result)).toMatch(/^denied/);
      expect(effects).not.toContain('rj');
    }, 60_000);

    it('cancelling a parked run settles it and its ask at once', async () => {
      const id = await start(`await tools.write({ v: 'never' }); return 1;`);
      await pendingOf(id, 1);
      await parked(id);
      const view = await json<View>(post(`/v1/runs/${id}/cancel`, {}));
      expect(view.status).toBe('cancelled');
      const [a] = await runtime.store.listApprovals({ runId: id });
      expect(a?.status).toBe('cancelled');
      expect(effects).not.toContain('never');
    }, 60_000);
  });

  describe('the queue', () => {
    it('a burst past the queue is refused at POST with 429; every accepted run succeeds, none OVERLOADED', async () => {
      const accepted: string[] = [];
      let refused = 0;
      const responses = await Promise.all(
        Array.from({ length: 20 }, () =>
          post('/v1/runs', { code: `return await tools.slow({ ms: 300 });` }, KEY_Q),
        ),
      );
      for (const r of responses) {
        if (r.status === 202) accepted.push((await json<{ id: string }>(r)).id);
        else {
          expect(r.status).toBe(429);
          expect(r.headers.get('retry-after')).not.toBeNull();
          expect(await json(r)).toMatchObject({
            error: { code: 'QUOTA_EXCEEDED' },
          });
          refused++;
        }
      }
      expect(refused).toBeGreaterThan(0);
      expect(accepted.length).toBeGreaterThanOrEqual(5);
      const views = await Promise.all(accepted.map((id) => settled(id, KEY_Q)));
      expect(views.map((v) => v.status)).toEqual(accepted.map(() => 'succeeded'));
    }, 120_000);

    it('the same Idempotency-Key returns the same run; another body with it is 422', async () => {
      const headers = { 'idempotency-key': 'order-42' };
      const first = await post('/v1/runs', { code: `return 42;` }, KEY, headers);
      const again = await post('/v1/runs', { code: `return 42;` }, KEY, headers);
      expect(first.status).toBe(202);
      expect(again.status).toBe(202);
      const a = await json<{ id: string; created: boolean }>(first);
      const b = await json<{ id: string; created: boolean }>(again);
      expect(b.id).toBe(a.id);
      expect([a.created, b.created]).toEqual([true, false]);
      const other = await post('/v1/runs', { code: `return 43;` }, KEY, headers);
      expect(other.status).toBe(422);
      expect(await json(other)).toMatchObject({
        error: { code: 'IDEMPOTENCY_MISMATCH' },
      });
      const bad = await post('/v1/runs', { code: `return 1;` }, KEY, {
        'idempotency-key': 'a b',
      });
      expect(bad.status).toBe(400);
    });

    it('ids no run could have are 404, not 500', async () => {
      for (const id of ['x%00', '%E2%80%AE', 'a'.repeat(300), '%0A'])
        expect((await request(`/v1/runs/${id}`)).status).toBe(404);
    });
  });

  describe('values', () => {
    it('NUL, lone surrogates and control characters in logs, results and errors round-trip', async () => {
      const text = 'a\u0000b\uD800c\u001b[2J\u202Ed\uFFFF\u0085';
      const id = await start(
        `const s = ${JSON.stringify(text)}; console.log(s); await tools.note({ v: s }); return s;`,
      );
      const view = await settled(id);
      expect(view.status).toBe('succeeded');
      expect(view.result?.value?.result).toBe(text);
      const events = await runtime.store.listEvents(id, 0, 1000);
      expect(
        events.some((e) => e.type === 'log' && (e.data as { text?: string }).text === text),
      ).toBe(true);
      const failedId = await start(`throw new Error(${JSON.stringify(text)});`);
      const failed = await settled(failedId);
      expect(failed.status).toBe('failed');
      expect(failed.error?.message).toContain(text);
    }, 60_000);
  });
}
