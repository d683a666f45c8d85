/**
 * What a settled run's stored story must say, whatever raced while it ran: its events end with one
 * `result` event whose status is the run's, nothing follows it, any earlier result is an
 * interruption's, a cancelled run tells its cancel once (no other run any), each ask follows its
 * call's start, and each of its approvals appears once asked (`pending`) and, once decided, once
 * with its final status.
 */
import { expect } from 'vitest';
import type { RunStore } from '../../src/durable/store.js';

export async function expectWholeStory(store: RunStore, runId: string): Promise<void> {
  const run = await store.getRun(runId);
  expect(run?.finishedAt, `run ${runId} is settled`).toBeTypeOf('number');
  const events = await store.listEvents(runId, 0, 1000);
  const told = JSON.stringify(events.map((e) => [e.type, e.data]));
  const last = events.at(-1);
  expect(last?.type, told).toBe('result');
  expect((last?.data as { status?: string } | null)?.status, told).toBe(run?.status);
  // Earlier results are only interruptions (a later life, or a cancel, settled the run after).
  const results = events.filter((e) => e.type === 'result');
  for (const e of results.slice(0, -1))
    expect((e.data as { status?: string }).status, told).toBe('interrupted');
  // A cancelled run tells its cancel once.
  const cancels = events.filter(
    (e) => e.type === 'status' && (e.data as { status?: string }).status === 'cancelled',
  );
  expect(cancels, told).toHaveLength(run?.status === 'cancelled' ? 1 : 0);
  // An ask comes after its call's start (a timeline reader sees the call, then why it waits).
  events.forEach((e, i) => {
    const d = e.data as { status?: string; tool?: string };
    if (e.type !== 'approval' || d.status !== 'pending') return;
    const started = events
      .slice(0, i)
      .some((c) => c.type === 'call-start' && (c.data as { name?: string }).name === d.tool);
    expect(started, `the ask at event ${e.seq} follows a start of ${d.tool}: ${told}`).toBe(true);
  });
  for (const a of await store.listApprovals({ runId, limit: 1000 })) {
    const statuses = events
      .filter((e) => e.type === 'approval' && (e.data as { id?: string }).id === a.id)
      .map((e) => (e.data as { status?: string }).status);
    expect(statuses, `approval ${a.id}: ${told}`).toEqual(
      a.status === 'pending' ? ['pending'] : ['pending', a.status],
    );
    expect(a.status, `approval ${a.id} of a settled run`).not.toBe('pending');
  }
}
