/**
 * Replicas of one store configured apart (a rolling deploy adds or removes a scope): a replica that
 * does not serve a run's scope leaves the run to one that does. Before, it claimed the run and failed
 * it (`REPLAY_DIVERGED`: the program "failed (INVALID_SCOPE)") and cancelled its pending approval.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from '../../src/index.js';
import { createDurableRuntime, type DurableRuntime } from '../../src/durable/index.js';
import type { RunStore } from '../../src/durable/store.js';
import { storeKinds } from './stores.js';
import { until } from '../support/until.js';

const kinds = storeKinds();
afterAll(async () => {
  for (const k of kinds) await k.close();
});

const tools = [
  defineTool({
    name: 'kv.delete',
    description: 'Deletes a key (asks a human first).',
    input: z.object({ key: z.string() }),
    execute: ({ key }: { key: string }) => ({ deleted: key }),
  }),
];
/** A runtime of `scopes` on `store` (whose connection outlives it). */
const replica = (store: RunStore, scopes: string[]): Promise<DurableRuntime> =>
  createDurableRuntime({
    tools,
    store: { ...store, close: () => Promise.resolve() },
    scopes: Object.fromEntries(scopes.map((s) => [s, { mode: 'code' as const }])),
    codeMode: { typecheck: 'off' },
    recovery: { leaseMs: 500, scanMs: 50 },
    hooks: {
      preExecute: (ctx) =>
        ctx.call.name === 'kv.delete' ? { action: 'ask', message: 'deletes data' } : undefined,
    },
  });

for (const kind of kinds) {
  describe.skipIf(kind.skip !== undefined)(`replicas serving other scopes: ${kind.name}`, () => {
    it('a replica without the scope leaves the run (and its approval) to one with it', async () => {
      const [one, two] = await kind.openPair({ pollMs: 100 });
      try {
        const alpha = await replica(one, ['alpha']);
        const asking = await alpha.start({
          scope: 'alpha',
          code: 'return await tools.kv.delete({ key: "k" });',
        });
        const pending = async () =>
          (await one.listApprovals({ runId: asking.id, status: ['pending'] })).length === 1
            ? true
            : undefined;
        await until(pending);
        await alpha.close(); // the run is released, claimable; its approval stays pending
        const before = await one.getRun(asking.id);

        const beta = await replica(two, ['beta']);
        try {
          // A run of beta queued after it: once beta's scans have claimed and finished it, they
          // have passed over the alpha run (older, first in the claim order) too.
          const id = `run_${randomUUID()}`;
          await two.createRun({ id, scope: 'beta', program: 'return 7;' });
          const done = await until(async () => {
            const r = await two.getRun(id);
            return r?.status === 'succeeded' ? r : undefined;
          });
          expect(done.result).toMatchObject({ ok: true });
          const after = await one.getRun(asking.id);
          expect(after?.status).toBe(before?.status);
          expect(after?.epoch).toBe(before?.epoch);
          expect(after?.owner).toBeUndefined();
          expect(await pending()).toBe(true);

          // A replica with the scope takes it up; the human's decision completes it.
          const back = await replica(one, ['alpha']);
          try {
            const [approval] = await one.listApprovals({ runId: asking.id, status: ['pending'] });
            await back.store.decideApproval(approval!.id, 'allowed-once', 'a human');
            const settled = await until(async () => {
              const r = await back.runs.get(asking.id);
              return r?.status === 'succeeded' ? r : undefined;
            });
            expect(settled.result).toMatchObject({ ok: true, value: { result: { deleted: 'k' } } });
          } finally {
            await back.close();
          }
        } finally {
          await beta.close();
        }
      } finally {
        await one.close();
        await two.close();
      }
    }, 120_000);

    it('any number of queued runs of scopes it does not serve never hides one it does', async () => {
      const store = await kind.open({ pollMs: 100 });
      try {
        // Sixty scopes no replica serves, each with a queued run, all older than beta's run: one
        // page of the claim order (50 runs, scopes taking turns) holds none of beta's.
        const gone: string[] = [];
        for (let i = 0; i < 60; i++) {
          const id = `run_${randomUUID()}`;
          gone.push(id);
          await store.createRun({ id, scope: `gone-${i}`, program: 'return 1;' });
        }
        const beta = await replica(store, ['beta']);
        try {
          const id = `run_${randomUUID()}`;
          await store.createRun({ id, scope: 'beta', program: 'return 7;' });
          const done = await until(async () => {
            const r = await store.getRun(id);
            return r?.status === 'succeeded' ? r : undefined;
          });
          expect(done.result).toMatchObject({ ok: true, value: { result: 7 } });
          for (const left of gone)
            expect(await store.getRun(left)).toMatchObject({ status: 'queued', epoch: 0 });
        } finally {
          await beta.close();
        }
      } finally {
        await store.close();
      }
    }, 120_000);
  });
}
