/**
 * The store's upkeep, run by every replica after each dispatch pass: pending approvals past their
 * deadline are settled `unavailable` (a parked run nobody holds then becomes claimable, and its
 * call is denied), runs cancelled while their replica was gone are settled, and settled runs older
 * than the retention period are deleted with everything they hold. Every step is a bounded batch,
 * idempotent and safe to run on several replicas at once (the store's compare-and-set decides).
 */
import { ISOCODE_DECIDER } from './approvals.js';
import type { RunStore } from './store.js';

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

/** One upkeep pass over `store` (the store tells its listeners of the events it writes). */
export async function runUpkeep(store: RunStore, options: UpkeepOptions): Promise<void> {
  const now = Date.now();
  // Each with its event, which the store hands to the run manager's listeners.
  await store.expireApprovals(now, ISOCODE_DECIDER);
  // Runs cancelled through a replica while their holder was gone: nobody else will settle them.
  const orphans = await store.listRuns({
    status: ['cancelled'],
    unsettled: true,
    leaseExpiredBefore: now,
    limit: 100,
  });
  for (const run of orphans) {
    await store.settleRun(run.id, null, {
      status: 'cancelled',
      cancelPendingApprovalsAs: ISOCODE_DECIDER,
    });
  }
  const retention = options.retentionMs ?? 7 * 86_400_000;
  const every = options.retentionSweepMs ?? 60_000;
  if (retention !== false && now - (lastSweep.get(store) ?? 0) >= every) {
    lastSweep.set(store, now);
    await store.deleteSettled(now - retention, 500);
  }
}
