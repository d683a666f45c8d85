import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunEvent, RunStore } from '../../src/durable/store.js';
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
        const { run } = await store.createRun({
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

    it('claims bump the epoch; only a lapsed or free run is claimable; fences refuse a stale life', () =>
      withStore(async (store) => {
        const now = Date.now();
        const { run: leased } = await store.createRun({
          id: 'held',
          scope: 's',
          program: 'p',
          lease: { owner: 'A', expiresAt: now + 60_000 },
        });
        expect(leased).toMatchObject({ status: 'running', owner: 'A', epoch: 1 });
        expect(leased.startedAt).toEqual(expect.any(Number));
        expect(await store.claimRun('held', 'B', now + 1000, now)).toBeUndefined();
        await store.createRun({ id: 'r', scope: 's', program: 'p' });
        expect((await store.listClaimable(now)).map((r) => r.id)).toEqual(['r']);
        const a = await store.claimRun('r', 'A', now + 1000, now);
        expect(a).toMatchObject({ owner: 'A', epoch: 1, status: 'running' });
        const fenceA = { owner: 'A', epoch: 1 };
        expect(await store.renewLease('r', fenceA, now + 2000)).toBe(true);
        expect(
          await store.recordArrival({ runId: 'r', key: 'k1', name: 't', args: { v: 1 } }, fenceA),
        ).toMatchObject({ inserted: true, record: { status: 'pending' } });
        // A's lease lapses; B claims: the epoch moves on and A's writes are refused.
        const b = await store.claimRun('r', 'B', now + 10_000, now + 3000);
        expect(b).toMatchObject({ owner: 'B', epoch: 2 });
        // Each claim writes its life's start event with it (a crash cannot split them).
        expect((await store.listEvents('r')).map((e) => e.data)).toEqual([
          { status: 'queued' },
          { status: 'running', replica: 'A' },
          { status: 'running', replica: 'B', replay: true },
        ]);
        const fenceB = { owner: 'B', epoch: 2 };
        expect(await store.markCallStarted('r', 'k1', fenceA)).toBe(false);
        expect(
          await store.recordArrival({ runId: 'r', key: 'k2', name: 't', args: null }, fenceA),
        ).toBeUndefined();
        expect(await store.recordValue('r', 'date', 1, fenceA)).toBeUndefined();
        expect(await store.renewLease('r', fenceA, now + 99_000)).toBe(false);
        expect(await store.releaseRun('r', fenceA)).toBe(false);
        expect(await store.settleRun('r', fenceA, { status: 'succeeded' })).toBeUndefined();
        expect(await store.markCallStarted('r', 'k1', fenceB)).toBe(true);
        expect(await store.markCallStarted('r', 'k1', fenceB)).toBe(false); // once only
        expect((await store.getCall('r', 'k1'))?.epoch).toBe(2);
        // Parked: not claimable while an approval is pending, claimable once it is decided.
        await store.createApproval({
          id: 'ap',
          runId: 'r',
          callKey: 'k1',
          tool: 't',
          args: null,
          scope: 's',
          reason: '',
        });
        expect(await store.releaseRun('r', fenceB, { parked: true })).toBe(true);
        expect(await store.claimRun('r', 'C', now + 1000, now + 4000)).toBeUndefined();
        await store.decideApproval('ap', 'allowed-once', 'human');
        expect(await store.claimRun('r', 'C', now + 1000, now + 4000)).toMatchObject({
          epoch: 3,
          parked: false,
        });
        // Interrupted and final runs are never claimable.
        await store.updateRun('r', { status: 'interrupted', owner: null });
        expect(await store.claimRun('r', 'D', now + 1000, now + 9_999_999)).toBeUndefined();
      }));

    it('exactly one life starts a body when a claim races a stale life, every time', () =>
      withStore(async (store) => {
        for (let i = 0; i < 50; i++) {
          const id = `race${i}`;
          const now = Date.now();
          await store.createRun({
            id,
            scope: 's',
            program: 'p',
            lease: { owner: 'A', expiresAt: now - 1 },
          });
          const fenceA = { owner: 'A', epoch: 1 };
          await store.recordArrival({ runId: id, key: 'k', name: 't', args: null }, fenceA);
          const [started, claimed] = await Promise.all([
            store.markCallStarted(id, 'k', fenceA),
            store.claimRun(id, 'B', now + 60_000, now),
          ]);
          const byB =
            claimed !== undefined &&
            (await store.markCallStarted(id, 'k', { owner: 'B', epoch: 2 }));
          expect([started, byB].filter(Boolean).length).toBeLessThanOrEqual(1);
          const call = await store.getCall(id, 'k');
          expect(call?.status).toBe(started || byB ? 'started' : 'pending');
        }
      }));

    it("claimable runs take turns by scope: one tenant's backlog never hides another's queued run", () =>
      withStore(async (store) => {
        for (let i = 0; i < 5; i++)
          await store.createRun({ id: `a${i}`, scope: 'a', program: 'p' });
        await store.createRun({ id: 'b0', scope: 'b', program: 'p' });
        const first = await store.listClaimable(Date.now(), 2);
        expect(first.map((r) => r.id).sort()).toEqual(['a0', 'b0']);
        // Scopes the asking replica cannot take are left out; names are data, never SQL.
        await store.createRun({ id: 'q0', scope: "q'); DROP TABLE runs; --", program: 'p' });
        const skipped = await store.listClaimable(Date.now(), 10, [
          'a',
          "q'); DROP TABLE runs; --",
        ]);
        expect(skipped.map((r) => r.id)).toEqual(['b0']);
        expect((await store.listClaimable(Date.now(), 10, [])).length).toBe(7);
      }));

    it('settles in one transaction: state, leftover approvals and events; never twice', () =>
      withStore(async (store) => {
        const now = Date.now();
        await store.createRun({
          id: 'r',
          scope: 's',
          program: 'p',
          lease: { owner: 'A', expiresAt: now + 60_000 },
        });
        for (const id of ['x', 'y'])
          await store.createApproval({
            id,
            runId: 'r',
            callKey: id,
            tool: 't',
            args: null,
            scope: 's',
            reason: 'why',
          });
        const settled = await store.settleRun(
          'r',
          { owner: 'A', epoch: 1 },
          {
            status: 'succeeded',
            result: { ok: true },
            cancelPendingApprovalsAs: 'isocode',
          },
        );
        expect(settled?.run).toMatchObject({
          status: 'succeeded',
          owner: undefined,
          result: { ok: true },
        });
        // 1: the life's start, written with the leased insert; 2 and 3: the two asks' own
        // `approval` events, written when they were created.
        expect(settled?.events.map((e) => [e.seq, e.type])).toEqual([
          [4, 'approval'],
          [5, 'approval'],
          [6, 'result'],
        ]);
        expect(settled?.approvals.map((a) => [a.id, a.status, a.decidedBy])).toEqual([
          ['x', 'cancelled', 'isocode'],
          ['y', 'cancelled', 'isocode'],
        ]);
        expect(await store.settleRun('r', null, { status: 'cancelled' })).toBeUndefined();
        // An orphan (no owner) settles with no fence; an owned run with a live lease does not.
        await store.createRun({ id: 'q', scope: 's', program: 'p' });
        expect(await store.settleRun('q', null, { status: 'cancelled' })).toMatchObject({
          run: { status: 'cancelled' },
        });
        await store.createRun({
          id: 'live',
          scope: 's',
          program: 'p',
          lease: { owner: 'A', expiresAt: now + 60_000 },
        });
        expect(await store.settleRun('live', null, { status: 'cancelled' })).toBeUndefined();
        // Interrupted: not settled (finishedAt stays unset), so it can be resolved later.
        const i = await store.settleRun(
          'live',
          { owner: 'A', epoch: 1 },
          { status: 'interrupted' },
        );
        expect(i?.run).toMatchObject({ status: 'interrupted', finishedAt: undefined });
      }));

    it('a cancel committed before the settlement wins; every settlement ends with its result; a settled run takes no ask', () =>
      withStore(async (store) => {
        const f = { owner: 'A', epoch: 1 };
        const held = (id: string) =>
          store.createRun({
            id,
            scope: 's',
            program: 'p',
            lease: { ...f, expiresAt: Date.now() + 60_000 },
          });
        const story = async (id: string) =>
          (await store.listEvents(id)).map((e) => [e.type, (e.data as { status?: string }).status]);
        // The program succeeded, but a cancel was committed first: the run settles cancelled.
        await held('won');
        await store.changeStatus('won', 'cancelled', ['running']);
        const won = await store.settleRun('won', f, { status: 'succeeded', result: 7 });
        expect(won?.run).toMatchObject({ status: 'cancelled', result: 7 });
        expect(won?.run.finishedAt).toEqual(expect.any(Number));
        expect(await story('won')).toEqual([
          ['status', 'running'],
          ['status', 'cancelled'],
          ['result', 'cancelled'],
        ]);
        // An interruption after a cancel: settled cancelled, not left to be resolved.
        await held('cut');
        await store.changeStatus('cut', 'cancelled', ['running']);
        const cut = await store.settleRun('cut', f, { status: 'interrupted' });
        expect(cut?.run.status).toBe('cancelled');
        expect(cut?.run.finishedAt).toEqual(expect.any(Number));
        // Cancelling an interrupted run: its cancel's status event, then its (second) result.
        await held('int');
        await store.settleRun('int', f, { status: 'interrupted', error: { code: 'X' } });
        const cancelled = await store.settleRun('int', null, { status: 'cancelled' });
        expect(cancelled?.run).toMatchObject({ status: 'cancelled' });
        expect(await story('int')).toEqual([
          ['status', 'running'],
          ['result', 'interrupted'],
          ['status', 'cancelled'],
          ['result', 'cancelled'],
        ]);
        // A settled run takes no new ask (it would wait for a human after the result).
        await expect(
          store.createApproval({
            id: 'late',
            runId: 'won',
            callKey: 'k',
            tool: 't',
            args: null,
            scope: 's',
            reason: '',
          }),
        ).rejects.toMatchObject({ code: 'NOT_FOUND' });
        expect(await store.listApprovals({ runId: 'won' })).toEqual([]);
        expect(await story('won')).toHaveLength(3);
      }));

    it('idempotency keys, usage, bytes, stats and retention', () =>
      withStore(async (store) => {
        const first = await store.createRun({
          id: 'a',
          scope: 's',
          program: 'p',
          idempotencyKey: 'k',
          requestHash: 'h',
        });
        const again = await store.createRun({
          id: 'b',
          scope: 's',
          program: 'p',
          idempotencyKey: 'k',
          requestHash: 'h2',
        });
        expect([first.created, again.created, again.run.id, again.run.requestHash]).toEqual([
          true,
          false,
          'a',
          'h',
        ]);
        const other = await store.createRun({
          id: 'c',
          scope: 't',
          program: 'p',
          idempotencyKey: 'k',
        });
        expect(other.created).toBe(true);
        await store.appendEvent('a', 'log', { text: 'x'.repeat(1000) });
        const usage = await store.usage('s');
        expect(usage.queued).toBe(1);
        expect(usage.bytes).toBeGreaterThan(1000);
        expect((await store.stats()).runs).toBe(2);
        await store.settleRun('a', null, { status: 'succeeded', finishedAt: 5 });
        expect(await store.deleteSettled(10)).toBe(1);
        expect(await store.getRun('a')).toBeUndefined();
        expect(await store.listEvents('a')).toEqual([]);
        await store.ping();
      }));

    it('calls: arrival once per key, settled in completion order; resolved by hand from started', () =>
      withStore(async (store) => {
        const f = { owner: 'A', epoch: 1 };
        await store.createRun({
          id: 'r',
          scope: 's',
          program: 'p',
          lease: { owner: 'A', expiresAt: Date.now() + 60_000 },
        });
        const args = (v: number) => ({ runId: 'r', key: 'a', name: 'x', args: [v] });
        expect((await store.recordArrival(args(1), f))?.inserted).toBe(true);
        expect((await store.recordArrival(args(2), f))?.record.args).toEqual([1]);
        await store.recordArrival(
          { runId: 'r', key: 'b', name: 'y', args: null, idempotent: true },
          f,
        );
        await store.markCallStarted('r', 'b', f);
        expect(await store.finishCall('r', 'b', 'ok', { v: 'b' })).toBe(true);
        expect(await store.finishCall('r', 'a', 'error', { v: 'a' })).toBe(true);
        expect(await store.finishCall('r', 'a', 'ok', {})).toBe(false);
        const calls = await store.listCalls('r');
        expect(calls.map((c) => [c.key, c.status, c.finishSeq, c.idempotent])).toEqual([
          ['a', 'error', 2, false],
          ['b', 'ok', 1, true],
        ]);
        expect((await store.countCalls(['r', 'none'])).get('r')).toBe(2);
        await store.recordArrival({ runId: 'r', key: 'c', name: 'z', args: null }, f);
        await store.markCallStarted('r', 'c', f);
        expect(await store.resolveCall('r', 'c', { status: 'pending' })).toBe(true);
        expect((await store.getCall('r', 'c'))?.status).toBe('pending');
        expect(await store.resolveCall('r', 'c', { status: 'ok', result: 1 })).toBe(false);
        expect(await store.recordValue('r', 'date', 1700000000123, f)).toBe(1);
        expect(await store.recordValue('r', 'random', 0.25, f)).toBe(2);
        expect((await store.listValues('r')).map((v) => [v.seq, v.kind, v.value])).toEqual([
          [1, 'date', 1700000000123],
          [2, 'random', 0.25],
        ]);
      }));

    it('resolves an interrupted run in one step: its call settled, the run queued, its event; once', () =>
      withStore(async (store) => {
        const f = { owner: 'A', epoch: 1 };
        const lease = { owner: 'A', expiresAt: Date.now() + 60_000 };
        for (const id of ['r', 'live'])
          await store.createRun({ id, scope: 's', program: 'p', lease });
        for (const id of ['r', 'live']) {
          await store.recordArrival({ runId: id, key: 'c', name: 'charge', args: null }, f);
          await store.markCallStarted(id, 'c', f);
        }
        const queued = { status: 'queued', resolved: 'succeeded' };
        // A running run is not resolved, and its call is left alone.
        expect(
          await store.resolveInterrupted('live', 'c', { status: 'ok', result: 1 }, queued),
        ).toBe('not-interrupted');
        expect((await store.getCall('live', 'c'))?.status).toBe('started');
        await store.settleRun('r', f, {
          status: 'interrupted',
          error: { code: 'INTERRUPTED' },
        });
        expect(await store.resolveInterrupted('r', 'nope', { status: 'pending' }, queued)).toBe(
          'not-started',
        );
        expect((await store.getRun('r'))?.status).toBe('interrupted');
        expect(
          await store.resolveInterrupted('none', 'c', { status: 'pending' }, queued),
        ).toBeUndefined();
        expect(
          await store.resolveInterrupted('\u0000', 'c', { status: 'pending' }, queued),
        ).toBeUndefined();
        const result = { ok: true, value: 'receipt \u0000 \ud800' };
        const done = await store.resolveInterrupted('r', 'c', { status: 'ok', result }, queued);
        expect(done).toMatchObject({
          run: { status: 'queued', owner: undefined, error: undefined, finishedAt: undefined },
          event: { type: 'status', data: queued },
        });
        expect(await store.getCall('r', 'c')).toMatchObject({ status: 'ok', result, finishSeq: 1 });
        // The interruption's result (written by its settlement), then the resolution's event.
        expect((await store.listEvents('r')).map((e) => e.data)).toEqual([
          { status: 'running', replica: 'A' },
          { status: 'interrupted', result: null, error: { code: 'INTERRUPTED' } },
          queued,
        ]);
        expect((await store.listClaimable(Date.now())).map((r) => r.id)).toEqual(['r']);
        // A second resolution finds the run queued.
        expect(await store.resolveInterrupted('r', 'c', { status: 'pending' }, queued)).toBe(
          'not-interrupted',
        );
        expect((await store.getCall('r', 'c'))?.status).toBe('ok');
      }));

    it('expires approvals past their deadline and wakes the dispatcher', () =>
      withStore(async (store) => {
        await store.createRun({ id: 'r', scope: 's', program: 'p' });
        const ask = (id: string, expiresAt: number) =>
          store.createApproval({
            id,
            runId: 'r',
            callKey: id,
            tool: 't',
            args: null,
            scope: 's',
            reason: '',
            expiresAt,
          });
        await ask('old', 10);
        await ask('new', Date.now() + 60_000);
        let woken = 0;
        const off = store.onWake(() => woken++);
        await new Promise((r) => setTimeout(r, 200)); // LISTEN is set up
        const expired = await store.expireApprovals(100, 'isocode');
        expect(expired.map((a) => [a.id, a.status])).toEqual([['old', 'unavailable']]);
        await new Promise((r) => setTimeout(r, 500));
        expect(woken).toBeGreaterThan(0);
        off();
      }));

    it("writes each change of an approval or a status with its run's event, and tells this store's listeners once", () =>
      withStore(async (store) => {
        const now = Date.now();
        await store.createRun({
          id: 'r',
          scope: 's',
          program: 'p',
          lease: { owner: 'A', expiresAt: now + 60_000 },
        });
        const told: RunEvent[] = [];
        const off = store.onEvent((e) => told.push(e));
        const ask = (id: string, expiresAt?: number) =>
          store.createApproval({
            id,
            runId: 'r',
            callKey: id,
            tool: 't',
            args: null,
            scope: 's',
            reason: `why ${id}`,
            ...(expiresAt === undefined ? {} : { expiresAt }),
          });
        await ask('a');
        await ask('b', 10);
        await ask('c');
        // Two decisions race: only the first changes the approval, so only it writes an event.
        await Promise.all([
          store.decideApproval('a', 'allowed-once', 'human'),
          store.decideApproval('a', 'rejected', 'another human'),
        ]);
        await store.expireApprovals(100, 'isocode');
        // A status change writes its event only when it applies.
        expect(await store.changeStatus('r', 'running', ['waiting-approval'])).toBeUndefined();
        expect(await store.changeStatus('r', 'waiting-approval', ['running'])).toMatchObject({
          status: 'waiting-approval',
        });
        expect(await store.releaseRun('r', { owner: 'A', epoch: 1 }, { parked: true })).toBe(true);
        await store.settleRun('r', null, {
          status: 'failed',
          cancelPendingApprovalsAs: 'isocode',
        });
        // Settled: no status change applies any more, so none writes an event after the result.
        expect(await store.changeStatus('r', 'cancelled', ['running', 'waiting-approval'])).toBe(
          undefined,
        );
        const events = await store.listEvents('r');
        const shown = events.map((e) => {
          const d = e.data as { id?: string; status?: string; decidedBy?: string | null };
          return [e.type, d.id, d.status, d.decidedBy];
        });
        const first = shown[4]!;
        expect(['allowed-once', 'rejected']).toContain(first[2]);
        expect(shown).toEqual([
          ['status', undefined, 'running', undefined], // the life's start, with the leased insert
          ['approval', 'a', 'pending', null],
          ['approval', 'b', 'pending', null],
          ['approval', 'c', 'pending', null],
          ['approval', 'a', first[2], first[3]],
          ['approval', 'b', 'unavailable', 'isocode'],
          ['status', undefined, 'waiting-approval', undefined],
          ['status', undefined, 'waiting-approval', undefined],
          ['approval', 'c', 'cancelled', 'isocode'],
          ['result', undefined, 'failed', undefined],
        ]);
        expect(events[1]?.data).toMatchObject({ tool: 't', reason: 'why a' });
        expect(events[7]?.data).toEqual({ status: 'waiting-approval', parked: true });
        // Nothing is appended after the result: followers stop there.
        expect(await store.appendEvent('r', 'log', 'late')).toBeUndefined();
        expect(await store.listEvents('r')).toHaveLength(events.length);
        // Told once each, in order, after the write.
        expect(told).toEqual(events.slice(1)); // told from when it subscribed
        await store.createRun({ id: 'r2', scope: 's', program: 'p' });
        expect(await store.appendEvent('r2', 'log', 1)).toMatchObject({ seq: 2 });
        expect(told.slice(events.length - 1).map((e) => [e.runId, e.seq, e.type])).toEqual([
          ['r2', 1, 'status'],
          ['r2', 2, 'log'],
        ]);
        off();
        await store.appendEvent('r2', 'log', 2);
        expect(told).toHaveLength(events.length + 1);
      }));

    it("a settlement racing its approvals' decisions, an expiry and a new ask: no error, no deadlock, one story", () =>
      withStore(async (store) => {
        for (let round = 0; round < 25; round++) {
          const id = `race${round}`;
          const now = Date.now();
          await store.createRun({
            id,
            scope: 's',
            program: 'p',
            lease: { owner: 'A', expiresAt: now + 60_000 },
          });
          const ask = (key: string, expiresAt?: number) =>
            store.createApproval({
              id: `${id}-${key}`,
              runId: id,
              callKey: key,
              tool: 't',
              args: null,
              scope: 's',
              reason: 'why',
              ...(expiresAt === undefined ? {} : { expiresAt }),
            });
          await ask('a');
          await ask('b');
          await ask('c', now - 1);
          const outcomes = await Promise.allSettled([
            store.decideApproval(`${id}-a`, 'cancelled', 'isocode'),
            store.settleRun(
              id,
              { owner: 'A', epoch: 1 },
              {
                status: 'failed',
                error: { code: 'TOOL_ERROR' },
                cancelPendingApprovalsAs: 'isocode',
              },
            ),
            store.decideApproval(`${id}-b`, 'rejected', 'human'),
            store.expireApprovals(Date.now(), 'isocode'),
            ask('d'),
            store.changeStatus(id, 'waiting-approval', ['running']),
          ]);
          // Only the late ask may fail (its run settled first): NOT_FOUND, never a store failure.
          outcomes.forEach((o, i) => {
            if (o.status === 'rejected') {
              expect(i, String(o.reason)).toBe(4);
              expect(o.reason).toMatchObject({ code: 'NOT_FOUND' });
            }
          });
          expect(outcomes[1]).toMatchObject({
            status: 'fulfilled',
            value: { run: { status: 'failed' } },
          });
          expect(await store.listApprovals({ runId: id, status: ['pending'] })).toEqual([]);
          const events = await store.listEvents(id);
          expect(events.at(-1)).toMatchObject({ type: 'result', data: { status: 'failed' } });
          expect(events.filter((e) => e.type === 'result')).toHaveLength(1);
          const byApproval = new Map<string, string[]>();
          for (const e of events.filter((x) => x.type === 'approval')) {
            const d = e.data as { id: string; status: string };
            byApproval.set(d.id, [...(byApproval.get(d.id) ?? []), d.status]);
          }
          for (const [approval, seen] of byApproval) {
            expect(seen, approval).toHaveLength(2);
            expect(seen[0], approval).toBe('pending');
          }
          expect(byApproval.size).toBe((await store.listApprovals({ runId: id })).length);
        }
      }));

    it('numbers events per run, gap-free under concurrent appends', () =>
      withStore(async (store) => {
        await store.createRun({ id: 'r', scope: 's', program: 'p' });
        await store.createRun({ id: 'q', scope: 's', program: 'p' });
        // 1: the `queued` status event each run was created with.
        expect((await store.listEvents('q')).map((e) => [e.seq, e.type, e.data])).toEqual([
          [1, 'status', { status: 'queued' }],
        ]);
        const appended = await Promise.all(
          Array.from({ length: 20 }, (_, i) => store.appendEvent('r', 'log', { i })),
        );
        expect(appended.map((e) => e?.seq).sort((a, b) => (a ?? 0) - (b ?? 0))).toEqual(
          Array.from({ length: 20 }, (_, i) => i + 2),
        );
        expect((await store.appendEvent('q', 'status', 'running'))?.seq).toBe(2);
        expect(await store.appendEvent('missing', 'log', null)).toBeUndefined();
        const after = await store.listEvents('r', 18);
        expect(after.map((e) => e.seq)).toEqual([19, 20, 21]);
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
        // Newest first, and paging to older ones from an id (the console's decided list).
        const newest = await store.listApprovals({ scope: 's', newestFirst: true });
        expect(newest.map((a) => a.id)).toEqual(['a2', 'a1']);
        expect(
          (await store.listApprovals({ scope: 's', newestFirst: true, after: 'a2' })).map(
            (a) => a.id,
          ),
        ).toEqual(['a1']);
        expect(
          (await store.listApprovals({ scope: 's', newestFirst: true, limit: 1 })).map((a) => a.id),
        ).toEqual(['a2']);
        expect((await store.listApprovals({ runId: 'r2' })).map((a) => a.id)).toEqual(['b1']);
        // A cursor from another scope, or one that names nothing, is past the end: an empty page
        // (not a restart, and not a page placed by another tenant's approval).
        for (const after of ['b1', 'nothing'])
          for (const newestFirst of [false, true])
            expect(await store.listApprovals({ scope: 's', after, newestFirst }), after).toEqual(
              [],
            );
        expect((await store.listApprovals({ scope: 's', after: 'a1' })).map((a) => a.id)).toEqual([
          'a2',
        ]);
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

describe.skipIf(process.env.ISOCODE_TEST_PG_URL === undefined)(
  'PostgreSQL settlement is all or nothing',
  () => {
    /** A store whose connection dies on an event insert while `fail.events`, as a SIGKILL mid-transaction would. */
    async function flakyStore(): Promise<{
      store: RunStore;
      fail: { events: boolean; deadlocks: number };
      drop: () => Promise<void>;
    }> {
      const { openPgClient } = await import('../../src/durable/pg-client.js');
      const { createSqlStore } = await import('../../src/durable/sql-store.js');
      const { schemaName } = await import('./stores.js');
      const client = openPgClient({ url: process.env.ISOCODE_TEST_PG_URL ?? '' });
      const fail = { events: false, deadlocks: 0 };
      const eventInsert = (sql: string): boolean =>
        sql.includes('INSERT INTO') && sql.includes('.events');
      const flaky = {
        ...client,
        transaction: <T>(fn: Parameters<typeof client.transaction<T>>[0]) =>
          client.transaction<T>((q) =>
            fn((sql, params) => {
              if (fail.events && eventInsert(sql))
                return Promise.reject(new Error('connection lost'));
              if (fail.deadlocks > 0 && eventInsert(sql)) {
                fail.deadlocks--; // as PostgreSQL breaks a deadlock: this transaction rolls back
                return Promise.reject(
                  Object.assign(new Error('deadlock detected'), { code: '40P01' }),
                );
              }
              return q(sql, params);
            }),
          ),
      };
      const schema = schemaName();
      const store = await createSqlStore(flaky, { schema });
      const drop = async (): Promise<void> => {
        await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
        await store.close();
      };
      return { store, fail, drop };
    }

    /** Runs `ids` held by A (epoch 1), the first with one pending ask `x`. */
    async function heldWithAsk(store: RunStore, ids: readonly string[]): Promise<void> {
      for (const id of ids)
        await store.createRun({
          id,
          scope: 's',
          program: 'p',
          lease: { owner: 'A', expiresAt: Date.now() + 60_000 },
        });
      await store.createApproval({
        id: 'x',
        runId: ids[0]!,
        callKey: 'x',
        tool: 't',
        args: null,
        scope: 's',
        reason: '',
      });
    }

    it('a settlement whose last statement fails leaves the run, its approvals and events as they were', async () => {
      const { store, fail, drop } = await flakyStore();
      try {
        await heldWithAsk(store, ['r']);
        const told: RunEvent[] = [];
        store.onEvent((e) => told.push(e));
        fail.events = true;
        await expect(
          store.settleRun(
            'r',
            { owner: 'A', epoch: 1 },
            {
              status: 'succeeded',
              result: { ok: true },
              cancelPendingApprovalsAs: 'isocode',
            },
          ),
        ).rejects.toBeTruthy();
        fail.events = false;
        expect(await store.getRun('r')).toMatchObject({
          status: 'running',
          owner: 'A',
          finishedAt: undefined,
        });
        expect((await store.getApproval('x'))?.status).toBe('pending');
        // The life's start and the ask's own event, each written with its change; nobody was told
        // of the rolled-back ones.
        expect((await store.listEvents('r')).map((e) => e.data)).toEqual([
          { status: 'running', replica: 'A' },
          { id: 'x', tool: 't', status: 'pending', reason: '', decidedBy: null },
        ]);
        expect(told).toEqual([]);
      } finally {
        await drop();
      }
    });

    it('a transaction PostgreSQL rolls back to break a deadlock runs again, whole, a few times at most', async () => {
      const { store, fail, drop } = await flakyStore();
      try {
        const f = { owner: 'A', epoch: 1 };
        await heldWithAsk(store, ['r', 'q']);
        const told: RunEvent[] = [];
        store.onEvent((e) => told.push(e));
        fail.deadlocks = 2;
        const settled = await store.settleRun('r', f, {
          status: 'failed',
          cancelPendingApprovalsAs: 'isocode',
        });
        expect(fail.deadlocks).toBe(0);
        expect(settled?.run.status).toBe('failed');
        // Written once and told once, though the transaction ran three times.
        const events = await store.listEvents('r');
        expect(events.map((e) => [e.seq, e.type])).toEqual([
          [1, 'status'],
          [2, 'approval'],
          [3, 'approval'],
          [4, 'result'],
        ]);
        expect(told).toEqual(events.slice(2));
        // One that keeps losing gives up with the store's error and changes nothing.
        fail.deadlocks = 100;
        await expect(store.settleRun('q', f, { status: 'failed' })).rejects.toMatchObject({
          code: 'INTERNAL_ERROR',
        });
        expect(fail.deadlocks).toBe(95);
        expect(await store.getRun('q')).toMatchObject({ status: 'running', finishedAt: undefined });
        expect((await store.listEvents('q')).map((e) => e.type)).toEqual(['status']);
      } finally {
        await drop();
      }
    });

    it('a resolution whose last statement fails leaves the call started and the run interrupted; it can be resolved again', async () => {
      const { store, fail, drop } = await flakyStore();
      try {
        const f = { owner: 'A', epoch: 1 };
        await store.createRun({
          id: 'r',
          scope: 's',
          program: 'p',
          lease: { ...f, expiresAt: Date.now() + 60_000 },
        });
        await store.recordArrival({ runId: 'r', key: 'c', name: 'charge', args: null }, f);
        await store.markCallStarted('r', 'c', f);
        await store.settleRun('r', f, { status: 'interrupted' });
        const resolution = { status: 'ok', result: 'receipt' } as const;
        const data = { status: 'queued' };
        fail.events = true;
        await expect(store.resolveInterrupted('r', 'c', resolution, data)).rejects.toBeTruthy();
        fail.events = false;
        expect((await store.getCall('r', 'c'))?.status).toBe('started');
        expect((await store.getRun('r'))?.status).toBe('interrupted');
        expect(await store.resolveInterrupted('r', 'c', resolution, data)).toMatchObject({
          run: { status: 'queued' },
        });
        expect((await store.getCall('r', 'c'))?.status).toBe('ok');
      } finally {
        await drop();
      }
    });
  },
);
