/**
 * A run that ends while some of its approvals are still pending (a rejected ask of a `Promise.all`
 * makes the program throw, a cancel, a limit, a program that returns without awaiting an ask)
 * leaves none of them pending: isocode decides each `cancelled` when the run settles.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from '../../src/index.js';
import { createDurableRuntime, type DurableRuntime } from '../../src/durable/index.js';
import type { ApprovalRecord } from '../../src/durable/store.js';
import { storeKinds } from './stores.js';
import { expectWholeStory } from './story.js';

const kinds = storeKinds();
// PostgreSQL when it is there (it starts in milliseconds), else the embedded store.
const kind = kinds[1]!.skip === undefined ? kinds[1]! : kinds[0]!;
const ran: string[] = [];
const tools = [
  defineTool({
    name: 'guarded',
    description: 'A side effect that needs an approval.',
    input: z.object({ v: z.string() }),
    isConcurrencySafe: true,
    execute: ({ v }: { v: string }) => {
      ran.push(v);
      return v;
    },
  }),
  defineTool({
    name: 'parked',
    description: 'Resolves once an ask of `guarded` with this value is pending (no approval).',
    input: z.object({ v: z.string() }),
    isConcurrencySafe: true,
    execute: async ({ v }: { v: string }) => {
      await until(async () => {
        const pending = await rt.store.listApprovals({ status: ['pending'] });
        return pending.some((a) => (a.args as { v: string }).v === v) || undefined;
      }, `the ask of ${v}`);
      return 'parked';
    },
  }),
];

let rt: DurableRuntime;

async function until<T>(probe: () => Promise<T | undefined>, what: string): Promise<T> {
  for (const end = Date.now() + 30_000; ;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
const approvalsOf = (runId: string): Promise<ApprovalRecord[]> => rt.store.listApprovals({ runId });
const pendingOf = async (runId: string, n: number): Promise<ApprovalRecord[]> =>
  until(async () => {
    const list = (await approvalsOf(runId)).filter((a) => a.status === 'pending');
    return list.length === n ? list : undefined;
  }, `${n} pending approvals`);

beforeAll(async () => {
  await kind.ready();
  rt = await createDurableRuntime({
    store: await kind.open(),
    replicaId: 'leftover',
    recovery: { leaseMs: 1000 },
    tools,
    scopes: { default: { mode: 'code', ask: ['guarded'] } },
    codeMode: { typecheck: 'off', limits: { cpuMs: 2000 } },
  });
}, 120_000);
afterAll(async () => {
  await rt?.close();
  await kind.close();
});

describe('approvals left pending when a run ends', () => {
  // Several rounds: how the aborted calls' own cancels and the run's settlement interleave differs
  // from one run to the next, and every interleaving must tell the same story.
  it.each([1, 2, 3, 4, 5, 6])(
    'a rejected ask of a Promise.all fails the run; its two sibling asks are cancelled by isocode (round %i)',
    async () => {
      const handle = await rt.start({
        code: `await Promise.all(['a', 'b', 'c'].map((v) => tools.guarded({ v })));`,
      });
      const pending = await pendingOf(handle.id, 3);
      const first = pending.find((a) => (a.args as { v: string }).v === 'a')!;
      await rt.store.decideApproval(first.id, 'rejected', 'human');
      const done = await handle.wait();
      expect(done.status).toBe('failed');
      const after = await approvalsOf(handle.id);
      expect(after.filter((a) => a.status === 'pending')).toEqual([]);
      expect(after.map((a) => [(a.args as { v: string }).v, a.status, a.decidedBy]).sort()).toEqual(
        [
          ['a', 'rejected', 'human'],
          ['b', 'cancelled', 'isocode'],
          ['c', 'cancelled', 'isocode'],
        ],
      );
      expect(ran).toEqual([]);
      // The run's events tell it too: each ask once asked and once decided, all before the result
      // (however the cancel by the aborted call and the run's settlement interleave).
      const events = await rt.store.listEvents(handle.id, 0, 500);
      const told = events.flatMap((e) => {
        if (e.type !== 'approval') return [];
        const d = e.data as { id: string; status: string };
        const v = (after.find((a) => a.id === d.id)?.args as { v: string } | undefined)?.v;
        return [`${v} ${d.status}`];
      });
      expect(told.sort()).toEqual([
        'a pending',
        'a rejected',
        'b cancelled',
        'b pending',
        'c cancelled',
        'c pending',
      ]);
      expect(events.at(-1)?.type).toBe('result');
      await expectWholeStory(rt.store, handle.id);
    },
  );

  it('a program that returns without awaiting its ask succeeds; the ask is cancelled', async () => {
    const handle = await rt.start({
      code: `void tools.guarded({ v: 'stray' }).catch(() => 0);
        await tools.parked({ v: 'stray' });
        return 'early';`,
    });
    const done = await handle.wait();
    expect(done.status, JSON.stringify(done.error)).toBe('succeeded');
    const after = await approvalsOf(handle.id);
    expect(after.map((a) => [a.status, a.decidedBy])).toEqual([['cancelled', 'isocode']]);
    expect(ran).not.toContain('stray');
    await expectWholeStory(rt.store, handle.id);
  });

  it('a run killed by its CPU limit while an ask waits leaves no pending approval', async () => {
    const handle = await rt.start({
      code: `void tools.guarded({ v: 'spin' }).catch(() => 0);
        await tools.parked({ v: 'spin' });
        for (;;) {}`,
    });
    const done = await handle.wait();
    expect(done.status, JSON.stringify(done.error)).toBe('failed');
    const after = await approvalsOf(handle.id);
    expect(
      after.map((a) => [a.status, a.decidedBy]),
      JSON.stringify(done.error),
    ).toEqual([['cancelled', 'isocode']]);
    await expectWholeStory(rt.store, handle.id);
  });

  it('a cancel while three asks wait cancels all three', async () => {
    const handle = await rt.start({
      code: `await Promise.all(['x', 'y', 'z'].map((v) => tools.guarded({ v })));`,
    });
    await pendingOf(handle.id, 3);
    expect((await handle.cancel())?.status).toBe('cancelled');
    const after = await approvalsOf(handle.id);
    expect(after.map((a) => [a.status, a.decidedBy])).toEqual([
      ['cancelled', 'isocode'],
      ['cancelled', 'isocode'],
      ['cancelled', 'isocode'],
    ]);
    const { approvals } = { approvals: await rt.store.listApprovals({ status: ['pending'] }) };
    expect(approvals).toEqual([]);
    await expectWholeStory(rt.store, handle.id);
  });

  /** A run a dead replica left waiting on an approval, as the store has it. */
  async function orphan(program: string, status: 'waiting-approval' | 'interrupted' | 'cancelled') {
    const id = `run_orphan_${Math.random().toString(36).slice(2)}`;
    const dead = { owner: 'dead-replica', epoch: 1 };
    await rt.store.createRun({
      id,
      scope: 'default',
      program,
      // Held until its state is written: an expired `running` run would be claimed and replayed by
      // this runtime's recovery loop before the test made it what it is meant to be.
      lease: { owner: dead.owner, expiresAt: Date.now() + 600_000 },
    });
    // The dead life's call waited for an approval: journaled `pending`, its approval pending.
    await rt.store.recordArrival(
      { runId: id, key: 'site-of-the-old-call#0', name: 'guarded', args: { v: 'old' } },
      dead,
    );
    await rt.store.updateRun(id, { status });
    const approval = await rt.store.createApproval({
      id: `apr_${id}`,
      runId: id,
      callKey: `${id}/site-of-the-old-call#0`,
      tool: 'guarded',
      args: { v: 'old' },
      scope: 'default',
      reason: '',
    });
    // Only now the dead replica's lease lapses: recovery and cancel see the whole state at once.
    await rt.store.updateRun(id, { leaseExpiresAt: Date.now() - 1 });
    return { id, approval };
  }

  it("a replay that diverges fails the run; the dead life's approval is cancelled", async () => {
    // The program now takes another path: the recorded call never arrives again.
    const { id, approval } = await orphan(`return 'another path';`, 'waiting-approval');
    const run = await until(async () => {
      const r = await rt.runs.get(id);
      return r?.finishedAt === undefined ? undefined : r;
    }, 'the recovered run to settle');
    expect(run.status).toBe('failed');
    expect(run.error).toMatchObject({ code: 'REPLAY_DIVERGED' });
    // The run's settle writes the outcome, then settles what it left pending.
    const settled = await until(async () => {
      const a = await rt.store.getApproval(approval.id);
      return a?.status === 'pending' ? undefined : a;
    }, 'the approval to settle');
    expect(settled).toMatchObject({ status: 'cancelled', decidedBy: 'isocode' });
    expect(ran).not.toContain('old');
  });

  it('a cancel of a run whose replica died settles it and its approval', async () => {
    // `interrupted` runs are not picked up by recovery: only the cancel touches this one.
    const { id, approval } = await orphan(`return 1;`, 'interrupted');
    const view = await rt.runs.cancel(id);
    expect(view).toMatchObject({ status: 'cancelled' });
    expect(view?.finishedAt).toBeTypeOf('number');
    expect(await rt.store.getApproval(approval.id)).toMatchObject({
      status: 'cancelled',
      decidedBy: 'isocode',
    });
  });

  it('a run cancelled while its replica was gone is settled by the recovery loop, its approval too', async () => {
    // Another replica marked it cancelled, but its holder died before it could stop and settle it.
    const { id, approval } = await orphan(`return 1;`, 'cancelled');
    const run = await until(async () => {
      const r = await rt.runs.get(id);
      return r?.finishedAt === undefined ? undefined : r;
    }, 'the recovery loop to settle the cancelled run');
    expect(run.status).toBe('cancelled');
    const settled = await until(async () => {
      const a = await rt.store.getApproval(approval.id);
      return a?.status === 'pending' ? undefined : a;
    }, 'the approval to settle');
    expect(settled).toMatchObject({ status: 'cancelled', decidedBy: 'isocode' });
    const events = await rt.store.listEvents(id, 0, 100);
    // The dead life's start and ask, then the cancel, then the result: each change once.
    expect(events.map((e) => [e.type, (e.data as { status?: string } | null)?.status])).toEqual([
      ['status', 'running'],
      ['approval', 'pending'],
      ['approval', 'cancelled'],
      ['result', 'cancelled'],
    ]);
  });
});
