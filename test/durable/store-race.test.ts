/**
 * The store's compare-and-sets under real concurrency: two replicas (separate connections for
 * PostgreSQL) race for the same run and the same call, over and over. Exactly one wins each race,
 * and a life whose epoch went stale never starts a call body.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Fence } from '../../src/durable/store.js';
import { storeKinds } from './stores.js';

const ROUNDS = 100;

for (const kind of storeKinds()) {
  describe.skipIf(kind.skip !== undefined)(`run store races: ${kind.name}`, () => {
    beforeAll(() => kind.ready(), 180_000);
    afterAll(() => kind.close());

    it('two replicas claiming one run: exactly one wins, every round', async () => {
      const [a, b] = await kind.openPair();
      try {
        for (let i = 0; i < ROUNDS; i++) {
          const id = `c${i}`;
          await a.createRun({ id, scope: 's', program: 'p' });
          const [x, y] = await Promise.all([
            a.claimRun(id, 'A', 1000, 0),
            b.claimRun(id, 'B', 1000, 0),
          ]);
          expect([x, y].filter((r) => r !== undefined)).toHaveLength(1);
          expect((x ?? y)?.epoch).toBe(1);
        }
      } finally {
        await a.close();
        await b.close();
      }
    }, 120_000);

    it('a call body starts once: two lives racing, and a takeover racing the old life', async () => {
      const [a, b] = await kind.openPair();
      try {
        for (let i = 0; i < ROUNDS; i++) {
          const id = `m${i}`;
          await a.createRun({ id, scope: 's', program: 'p' });
          const first = await a.claimRun(id, 'A', 1000, 0);
          const old: Fence = { owner: 'A', epoch: first!.epoch };
          await a.recordArrival({ runId: id, key: 'k', name: 't', args: i }, old);
          // B takes over (A's lease lapsed) while A starts the body: one of them, never both
          const [startedOld, taken] = await Promise.all([
            a.markCallStarted(id, 'k', old),
            b.claimRun(id, 'B', 5000, 2000),
          ]);
          expect(taken?.epoch).toBe(old.epoch + 1);
          const fresh: Fence = { owner: 'B', epoch: taken!.epoch };
          // the stale life and the new one race again: the stale one never wins
          const [again, startedNew] = await Promise.all([
            a.markCallStarted(id, 'k', old),
            b.markCallStarted(id, 'k', fresh),
          ]);
          expect(again).toBe(false);
          expect([startedOld, startedNew].filter(Boolean)).toHaveLength(1);
          const call = await b.getCall(id, 'k');
          expect(call).toMatchObject({
            status: 'started',
            epoch: startedOld ? old.epoch : fresh.epoch,
          });
        }
      } finally {
        await a.close();
        await b.close();
      }
    }, 120_000);

    it('two lives of the same epoch racing to start one call: exactly one true', async () => {
      const [a, b] = await kind.openPair();
      try {
        for (let i = 0; i < ROUNDS; i++) {
          const id = `s${i}`;
          await a.createRun({ id, scope: 's', program: 'p' });
          const run = await a.claimRun(id, 'A', 1000, 0);
          const f: Fence = { owner: 'A', epoch: run!.epoch };
          await a.recordArrival({ runId: id, key: 'k', name: 't', args: null }, f);
          const results = await Promise.all([
            a.markCallStarted(id, 'k', f),
            b.markCallStarted(id, 'k', f),
          ]);
          expect(results.filter(Boolean)).toHaveLength(1);
        }
      } finally {
        await a.close();
        await b.close();
      }
    }, 120_000);
  });
}
