/**
 * Durable runs for the library: `createDurableRuntime` opens a store, installs the parked approver
 * and returns a runtime with `start(...)` (background runs with handles) and `runs` (the manager the
 * HTTP routes serve).
 */
import { durationOption, MAX_TIMER_MS, wholeMs } from '../options.js';
import { createRuntime } from '../runtime.js';
import type { Runtime, RuntimeOptions } from '../runtime-types.js';
import { createParkedApprover, type ParkedRunLink } from './approvals.js';
import { openRunStore, type StoreOptions } from './open-store.js';
import type { ReplicaOptions } from './recovery.js';
import {
  createRunManager,
  type RunHandle,
  type RunManager,
  type RunManagerOptions,
  type StartRun,
} from './runs.js';
import type { RunStore } from './store.js';

export type * from './store.js';
export type { Resolution, RunHandle, RunManager, RunManagerOptions, StartRun } from './runs.js';
export type { CallView, RunSummary, RunView } from './run-view.js';
export type { StoreOptions } from './open-store.js';
export { openRunStore } from './open-store.js';
export { createRunManager } from './runs.js';
export { createParkedApprover } from './approvals.js';
export {
  DEFAULT_LEASE_MS,
  defaultReplicaId,
  Replica,
  type Lease,
  type ReplicaOptions,
} from './recovery.js';
export { instrument, type TracingOptions } from './tracing.js';

/** Options of {@link createDurableRuntime}. */
export interface DurableRuntimeOptions extends RuntimeOptions {
  /** The store, or how to open one. @default an in-memory embedded store */
  store?: StoreOptions | RunStore | undefined;
  /** This replica's id. @default `defaultReplicaId()`: `<hostname>-<pid>-<random>` */
  replicaId?: string | undefined;
  /**
   * How long a parked approval waits for a human before the call is denied `approval-unavailable`.
   * The wait is not counted against the run's wall or CPU limits. @default 86400000 (24 h)
   */
  humanApprovalTimeoutMs?: number | undefined;
  /**
   * Leases and the dispatch of claimable runs (queued, lapsed, decided): lease length, heartbeat
   * and scan period (see `Replica`). @default { leaseMs: DEFAULT_LEASE_MS } (15000)
   */
  recovery?: Pick<ReplicaOptions, 'leaseMs' | 'heartbeatMs' | 'scanMs'> | undefined;
  /** Durable runs' queue, quotas, parking and retention (see {@link RunManagerOptions}). */
  runs?:
    | Pick<
        RunManagerOptions,
        | 'parkAfterMs'
        | 'maxQueuedRunsPerScope'
        | 'maxStoredBytesPerScope'
        | 'retentionMs'
        | 'retentionSweepMs'
        | 'cancelPollMs'
        | 'settleRetryMs'
      >
    | undefined;
}

/** A runtime with durable runs. `close()` also closes the runs and the store. */
export interface DurableRuntime extends Runtime {
  /** Starts a run_code program in the background. */
  start(input: StartRun): Promise<RunHandle>;
  readonly runs: RunManager;
  readonly store: RunStore;
}

const isStore = (s: StoreOptions | RunStore | undefined): s is RunStore =>
  typeof (s as RunStore | undefined)?.createRun === 'function';

/** Creates a runtime whose run_code programs can run in the background, with approvals that wait. */
export async function createDurableRuntime(
  options: DurableRuntimeOptions = {},
): Promise<DurableRuntime> {
  const {
    store: storeOption,
    replicaId,
    humanApprovalTimeoutMs,
    recovery,
    runs: runOptions,
    ...runtimeOptions
  } = options;
  // Whole milliseconds: a fraction is rounded (an approval's deadline is stored as an integer).
  const humanMs =
    humanApprovalTimeoutMs === undefined
      ? undefined
      : durationOption('humanApprovalTimeoutMs', wholeMs(humanApprovalTimeoutMs), 1);
  const store = isStore(storeOption) ? storeOption : await openRunStore(storeOption);
  // The approver needs the manager, the manager the runtime, the runtime the approver: a late link.
  const late: { link?: ParkedRunLink } = {};
  const approvalTimeoutMs = humanMs ?? 86_400_000;
  const runtime: Runtime = await createRuntime({
    ...runtimeOptions,
    // The executor's own bound sits above the parked approver's, which settles first.
    approvalTimeoutMs: Math.min(
      MAX_TIMER_MS,
      Math.max(runtimeOptions.approvalTimeoutMs ?? 0, approvalTimeoutMs + 5_000),
    ),
    approver: createParkedApprover({
      store,
      fallback: runtimeOptions.approver,
      timeoutMs: approvalTimeoutMs,
      link: {
        runOf: (parentId, scope) => late.link?.runOf(parentId, scope),
        written: (runId) => late.link?.written(runId) ?? Promise.resolve(),
        asked: (a) => late.link?.asked(a),
        settled: (a) => late.link?.settled(a),
        keepsApprovals: (runId) => late.link?.keepsApprovals(runId) ?? false,
      },
    }),
  }).catch(async (error: unknown) => {
    await store.close();
    throw error;
  });
  let runs: RunManager;
  try {
    runs = createRunManager({ ...runOptions, runtime, store, replicaId, replica: recovery });
  } catch (error) {
    // An option the manager refuses (INVALID_CONFIG): nothing opened here is left behind.
    await runtime.close();
    await store.close();
    throw error;
  }
  late.link = runs.link;
  let closed: Promise<void> | undefined;
  return Object.assign({}, runtime, {
    start: (input: StartRun) => runs.start(input),
    runs,
    store,
    close: () =>
      (closed ??= (async () => {
        await runs.close();
        await runtime.close();
        await store.close();
      })()),
  });
}
