import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isIsocodeError } from '../../src/errors.js';
import type { RunStore } from '../../src/durable/store.js';
import { storeKinds } from './stores.js';

for (const kind of storeKinds()) {
  describe.skipIf(kind.skip !== undefined)(`run store: ${kind.name}`, () => {
    beforeAll(() => kind.ready(), 180_000);
    afterAll(() => kind.close());
    const withStore = async (fn: (store: RunStore) => Promise<void>): Promise<void> => {
      const store = await kind.open({ pollMs: 50 });
      try {
        await fn(store);
      } finally {
        await store.close();
      }
    };

    it('creates, reads, lists and updates runs; scopes hide runs', () =>
      withStore(async (store) => {
        const run = await store.createRun({
          id: 'r1',
          scope: 'a',
          program: 'return 1',
          limits: { wallMs: 2000, tags: ['x'] },
        });
        expect(run).toMatchObject({ id: 'r1', scope: 'a', status: 'queued', owner: undefined });
        expect(run.limits).toEqual({ wallMs: 2000, tags: ['x'] });
        await store.createRun({ id: 'r2', scope: 'b', program: 'return 2', description: 'two' });
        expect(await store.getRun('r1', 'a')).toMatchObject({ id: 'r1' });
        expect(await store.getRun('r1', 'b')).toBeUndefined();
        expect(await store.getRun('nope')).toBeUndefined();
        expect((await store.listRuns({ scope: 'b' })).map((r) => r.id)).toEqual(['r2']);
        expect((await store.listRuns()).map((r) => r.id).sort()).toEqual(['r1', 'r2']);
        expect(await store.listRuns({ status: ['running'] })).toEqual([]);

        const started = await store.updateRun(
          'r1',
          { status: 'running', startedAt: 5 },
          { status: ['queued'] },
        );
        expect(started).toMatchObject({ status: 'running', startedAt: 5 });
        // compare-and-set: a second transition from queued fails and changes nothing
        expect(
          await store.updateRun('r1', { status: 'cancelled' }, { status: ['queued'] }),
        ).toBeUndefined();
        const done = await store.updateRun('r1', {
          status: 'succeeded',
          result: { ok: true, value: [1, { a: null }] },
          finishedAt: 9,
        });
        expect(done?.result).toEqual({ ok: true, value: [1, { a: null }] });
        expect(await store.updateRun('nope', { status: 'failed' })).toBeUndefined();
      }));

    it('claims leases: free, own, lapsed; never a final run', () =>
      withStore(async (store) => {
        await store.createRun({ id: 'r', scope: 's', program: 'p' });
        expect(await store.claimRun('r', 'A', 1000, 0)).toMatchObject({
          owner: 'A',
          leaseExpiresAt: 1000,
        });
        expect(await store.claimRun('r', 'B', 2000, 500)).toBeUndefined();
        expect(await store.claimRun('r', 'A', 1500, 500)).toMatchObject({ leaseExpiresAt: 1500 });
        expect(
          (await store.listRuns({ leaseExpiredBefore: 1600, status: ['queued'] })).map((r) => r.id),
        ).toEqual(['r']);
        expect(await store.claimRun('r', 'B', 3000, 1600)).toMatchObject({ owner: 'B' });
        expect(await store.updateRun('r', { owner: null }, { owner: 'A' })).toBeUndefined();
        await store.updateRun('r', { status: 'failed', owner: null }, { owner: 'B' });
        expect(await store.claimRun('r', 'C', 9000, 9999)).toBeUndefined();
      }));

    it('records calls once per key and settles them', () =>
      withStore(async (store) => {
        await store.createRun({ id: 'r', scope: 's', program: 'p' });
        const first = await store.startCall({
          runId: 'r',
          key: 'k1',
          name: 'kv.put',
          args: { key: 'a', value: [1, 2] },
          idempotent: true,
        });
        expect(first.inserted).toBe(true);
        expect(first.record).toMatchObject({ status: 'started', idempotent: true });
        const again = await store.startCall({ runId: 'r', key: 'k1', name: 'other', args: null });
        expect(again.inserted).toBe(false);
        expect(again.record).toMatchObject({ name: 'kv.put', args: { key: 'a', value: [1, 2] } });
        await store.startCall({ runId: 'r', key: 'k2', name: 'x', args: [] });
        expect(await store.finishCall('r', 'k1', 'ok', { ok: true, value: 'v' })).toBe(true);
        expect(await store.finishCall('r', 'zz', 'ok', null)).toBe(false);
        expect(await store.getCall('r', 'k1')).toMatchObject({
          status: 'ok',
          result: { ok: true, value: 'v' },
        });
        expect((await store.listCalls('r')).map((c) => [c.key, c.status])).toEqual([
          ['k1', 'ok'],
          ['k2', 'started'],
        ]);
        const orphan = await store
          .startCall({ runId: 'missing', key: 'k', name: 'x', args: null })
          .catch((e: unknown) => e);
        expect(isIsocodeError(orphan) && orphan.code).toBe('NOT_FOUND');
      }));

    it('records non-deterministic values in order', () =>
      withStore(async (store) => {
        await store.createRun({ id: 'r', scope: 's', program: 'p' });
        expect(await store.recordValue('r', 'date', 1700000000123)).toBe(1);
        expect(await store.recordValue('r', 'random', 0.25)).toBe(2);
        expect(await store.listValues('r')).toEqual([
          { runId: 'r', seq: 1, kind: 'date', value: 1700000000123 },
          { runId: 'r', seq: 2, kind: 'random', value: 0.25 },
        ]);
        await expect(store.recordValue('missing', 'date', 1)).rejects.toMatchObject({
          code: 'NOT_FOUND',
        });
      }));

    it('numbers events per run, gap-free under concurrent appends', () =>
      withStore(async (store) => {
        await store.createRun({ id: 'r', scope: 's', program: 'p' });
        await store.createRun({ id: 'q', scope: 's', program: 'p' });
        const appended = await Promise.all(
          Array.from({ length: 20 }, (_, i) => store.appendEvent('r', 'log', { i })),
        );
        expect(appended.map((e) => e?.seq).sort((a, b) => (a ?? 0) - (b ?? 0))).toEqual(
          Array.from({ length: 20 }, (_, i) => i + 1),
        );
        expect((await store.appendEvent('q', 'status', 'running'))?.seq).toBe(1);
        expect(await store.appendEvent('missing', 'log', null)).toBeUndefined();
        const after = await store.listEvents('r', 17);
        expect(after.map((e) => e.seq)).toEqual([18, 19, 20]);
        expect((await store.listEvents('r', 0, 2)).map((e) => e.seq)).toEqual([1, 2]);
      }));

    it('lists, decides (first decision wins, scope-checked) and wakes approval waiters', () =>
      withStore(async (store) => {
        await store.createRun({ id: 'r', scope: 's', program: 'p' });
        await store.createRun({ id: 'r2', scope: 't', program: 'p' });
        for (const id of ['a1', 'a2'])
          await store.createApproval({
            id,
            runId: 'r',
            callKey: `k-${id}`,
            tool: 'kv.delete',
            args: { key: id },
            scope: 's',
            reason: 'deletes data',
          });
        await store.createApproval({
          id: 'b1',
          runId: 'r2',
          callKey: 'k',
          tool: 't',
          args: null,
          scope: 't',
          reason: '',
        });
        expect((await store.listApprovals({ scope: 's' })).map((a) => a.id)).toEqual(['a1', 'a2']);
        expect((await store.listApprovals({ runId: 'r2' })).map((a) => a.id)).toEqual(['b1']);
        expect(await store.getApproval('a1', 't')).toBeUndefined();

        const waiting = store.waitForDecision('a1');
        expect(await store.decideApproval('a1', 'allowed-once', 'key:x', 't')).toBeUndefined();
        const decided = await store.decideApproval('a1', 'allowed-once', 'key:x', 's');
        expect(decided).toMatchObject({ status: 'allowed-once', decidedBy: 'key:x' });
        expect(await waiting).toMatchObject({ id: 'a1', status: 'allowed-once' });
        expect(await store.decideApproval('a1', 'rejected', 'key:y')).toBeUndefined();
        expect((await store.listApprovals({ status: ['pending'] })).map((a) => a.id)).toEqual([
          'a2',
          'b1',
        ]);

        const ac = new AbortController();
        const stopped = store.waitForDecision('a2', { signal: ac.signal });
        ac.abort();
        expect(await stopped).toMatchObject({ status: 'pending' });
        expect(await store.waitForDecision('a2', { timeoutMs: 30 })).toMatchObject({
          status: 'pending',
        });
        expect(await store.waitForDecision('unknown')).toBeUndefined();
      }));

    it('a decision posted through another replica wakes the waiter by NOTIFY, without polling', async () => {
      const [here, there] = await kind.openPair({ pollMs: 60_000 });
      try {
        await here.createRun({ id: 'r', scope: 's', program: 'p' });
        await here.createApproval({
          id: 'a',
          runId: 'r',
          callKey: 'k',
          tool: 't',
          args: null,
          scope: 's',
          reason: '',
        });
        const waiting = here.waitForDecision('a', { timeoutMs: 20_000 });
        await new Promise((r) => setTimeout(r, 50)); // the waiter has read 'pending' and sleeps
        expect(await there.decideApproval('a', 'rejected', 'human')).toMatchObject({
          status: 'rejected',
        });
        // A 60 s poll and a 20 s time-out: only the notification can settle this as decided.
        expect(await waiting).toMatchObject({ status: 'rejected', decidedBy: 'human' });
      } finally {
        await here.close();
        await there.close();
      }
    });
  });
}
