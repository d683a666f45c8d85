/**
 * An `interrupted` run (a non-idempotent call's body was running when its replica stopped) is
 * resolved over HTTP — the call took effect with a value, it failed, or run it again — and then
 * continues by replay on whichever replica claims it. Two durable runtimes share one store here, as
 * two replicas would.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from '../../src/index.js';
import { createDurableRuntime, type DurableRuntime } from '../../src/durable/index.js';
import type { RunStore } from '../../src/durable/store.js';
import { buildHttpApp } from '../../src/server/app.js';
import { storeKinds } from './stores.js';
import { until } from '../support/until.js';
import { expectWholeStory } from './story.js';

const KEY = 'key-resolve-0123456789abcdef';
const embedded = storeKinds()[0]!;
const effects: string[] = [];
let shared: RunStore;
let release: () => void = () => undefined;

/** A replica: `charge` is not idempotent; on `blocking` replicas it hangs until the process stops. */
const replica = (blocking: boolean): Promise<DurableRuntime> =>
  createDurableRuntime({
    // The runtimes share the store; neither closes it.
    store: { ...shared, close: () => Promise.resolve() },
    recovery: { leaseMs: 1000, scanMs: 100 },
    scopes: { default: { mode: 'code' } },
    codeMode: { typecheck: 'off' },
    tools: [
      defineTool({
        name: 'charge',
        description: 'Charges a card (not idempotent).',
        input: z.object({ cents: z.number() }),
        execute: ({ cents }: { cents: number }, ctx) =>
          new Promise((resolve, reject) => {
            effects.push(`charge:${cents}`);
            if (!blocking) return resolve(`receipt-${cents}`);
            release = () => resolve(`late-${cents}`);
            ctx.signal.addEventListener('abort', () => reject(new Error('stopped')), {
              once: true,
            });
          }),
      }),
    ],
  });

/** Starts `code` on a blocking replica, stops that replica mid-call: the run is interrupted on another. */
async function interrupted(code: string): Promise<{
  id: string;
  b: DurableRuntime;
  post: (p: string, body: unknown) => Promise<Response>;
}> {
  const a = await replica(true);
  const handle = await a.start({ code });
  await until(() => Promise.resolve(effects.length > 0 ? true : undefined));
  await a.close(); // mid-body: the call's effect is unknown, so the next life must not guess
  const b = await replica(false);
  const app = buildHttpApp({
    runtime: b,
    defaultScope: 'default',
    apiKeys: [{ key: KEY, scope: 'default' }],
    runs: b.runs,
  }).app;
  const post = async (path: string, body: unknown): Promise<Response> =>
    app.request(path, {
      method: 'POST',
      body: JSON.stringify(body),
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
    });
  await until(async () =>
    (await b.store.getRun(handle.id))?.status === 'interrupted' ? true : undefined,
  );
  return { id: handle.id, b, post };
}

beforeAll(async () => {
  shared = await embedded.open({ pollMs: 100 });
}, 120_000);
afterAll(async () => {
  release();
  await shared?.close();
  await embedded.close();
});

describe('resolving an interrupted run', () => {
  it('"succeeded" hands the program the value a human gives; the charge is not run again', async () => {
    effects.length = 0;
    const { id, b, post } = await interrupted(
      `const r = await tools.charge({ cents: 500 }); return 'paid ' + r;`,
    );
    const run = await b.store.getRun(id);
    expect(run?.error).toMatchObject({
      details: { call: { name: 'charge', args: { cents: 500 } } },
    });
    const res = await post(`/v1/runs/${id}/resolve`, { action: 'succeeded', value: 'receipt-x' });
    expect(res.status).toBe(200);
    const done = await until(async () => {
      const r = await b.store.getRun(id);
      return r?.finishedAt === undefined ? undefined : r;
    });
    expect(done.status).toBe('succeeded');
    expect(done.result).toMatchObject({ value: { result: 'paid receipt-x' } });
    expect(effects).toEqual(['charge:500']);
    // Resolving twice is refused: the run is no longer interrupted.
    expect((await post(`/v1/runs/${id}/resolve`, { action: 'retry' })).status).toBe(400);
    await b.close();
  }, 120_000);

  it('"retry" runs the call again in the next life', async () => {
    effects.length = 0;
    const { id, b, post } = await interrupted(`return await tools.charge({ cents: 7 });`);
    expect((await post(`/v1/runs/${id}/resolve`, { action: 'retry' })).status).toBe(200);
    const done = await until(async () => {
      const r = await b.store.getRun(id);
      return r?.finishedAt === undefined ? undefined : r;
    });
    expect(done.status).toBe('succeeded');
    expect(done.result).toMatchObject({ value: { result: 'receipt-7' } });
    expect(effects).toEqual(['charge:7', 'charge:7']);
    await b.close();
  }, 120_000);

  it("a cancel, alone or racing a resolve, ends the story with the settled run's own result", async () => {
    for (const race of [false, true]) {
      effects.length = 0;
      const { id, b, post } = await interrupted(`return await tools.charge({ cents: 3 });`);
      const answers = await Promise.all([
        post(`/v1/runs/${id}/cancel`, {}),
        ...(race ? [post(`/v1/runs/${id}/resolve`, { action: 'succeeded', value: 'r' })] : []),
      ]);
      expect(answers[0]?.status).toBe(200);
      await until(async () =>
        (await b.store.getRun(id))?.finishedAt === undefined ? undefined : true,
      );
      // Whichever won: one result after the interruption's, last, with the run's status.
      await expectWholeStory(b.store, id);
      if (!race) expect((await b.store.getRun(id))?.status).toBe('cancelled');
      await b.close();
    }
  }, 120_000);

  it('"failed" makes the call throw in the program', async () => {
    effects.length = 0;
    const { id, b, post } = await interrupted(
      `try { await tools.charge({ cents: 9 }); return 'paid'; } catch (e) { return 'declined: ' + (e as Error).message; }`,
    );
    await post(`/v1/runs/${id}/resolve`, { action: 'failed', message: 'card declined' });
    const done = await until(async () => {
      const r = await b.store.getRun(id);
      return r?.finishedAt === undefined ? undefined : r;
    });
    expect(done.result).toMatchObject({
      value: { result: expect.stringContaining('card declined') as unknown },
    });
    expect(effects).toEqual(['charge:9']);
    await b.close();
  }, 120_000);
});
