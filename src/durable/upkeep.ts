/**
 * The store's upkeep, run by every replica after each dispatch pass: pending approvals past their
 * deadline are settled `unavailable` (a parked run nobody holds then becomes claimable, and its
 * call is denied), runs cancelled while their replica was gone are settled, and settled runs older
 * than the retention period are deleted with everything they hold. Every step is a bounded batch,
 * idempotent and safe to run on several replicas at once (the store's compare-and-set decides).
 */
import type { JsonValue } from '../json.js';
import { ISOCODE_DECIDER } from './approvals.js';
import type { RunEvent, RunStore } from './store.js';

/** Options of the upkeep. */
export interface UpkeepOptions {
  /**
   * How long settled runs (succeeded, failed, cancelled) are kept, in ms; then they are deleted
   * with their events, calls and approvals. `false` keeps them forever. @default 604800000 (7 days)
   */
  retentionMs?: number | false | undefined;
  /** How often the retention sweep runs, in ms. @default 60000 */
  retentionSweepMs?: number | undefined;
}

const lastSweep = new WeakMap<RunStore, number>();

/** One upkeep pass over `store`; appended events go out through `emit`. */
export async function runUpkeep(
  store: RunStore,
  options: UpkeepOptions,
  emit: (event: RunEvent) => void,
): Promise<void> {
  const now = Date.now();
  for (const a of await store.expireApprovals(now, ISOCODE_DECIDER)) {
    const e = await store.appendEvent(a.runId, 'approval', {
      id: a.id,
      tool: a.tool,
      status: a.status,
      reason: a.reason,
      decidedBy: a.decidedBy ?? null,
    } satisfies JsonValue);
    if (e) emit(e);
  }
  // Runs cancelled through a replica while their holder was gone: nobody else will settle them.
  const orphans = await store.listRuns({
    status: ['cancelled'],
    unsettled: true,
    leaseExpiredBefore: now,
    limit: 100,
  });
  for (const run of orphans) {
    const settled = await store.settleRun(run.id, null, {
      status: 'cancelled',
      cancelPendingApprovalsAs: ISOCODE_DECIDER,
      events: [{ type: 'result', data: { status: 'cancelled', result: null } }],
    });
    for (const e of settled?.events ?? []) emit(e);
  }
  const retention = options.retentionMs ?? 7 * 86_400_000;
  const every = options.retentionSweepMs ?? 60_000;
  if (retention !== false && now - (lastSweep.get(store) ?? 0) >= every) {
    lastSweep.set(store, now);
    await store.deleteSettled(now - retention, 500);
  }
}
