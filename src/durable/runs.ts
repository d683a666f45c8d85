/**
 * The run manager: starts run_code programs in the background as durable runs, serves their views,
 * cancels and resolves them. A background run is an ordinary run_code call (`runtime.execute`)
 * whose progress, approvals and result are written to the store; the executor and the run_code
 * tool do not know about it.
 *
 * Every life of a run goes through one path (life.ts): a run started here with a free slot is
 * inserted already leased and runs at once; otherwise it is inserted `queued`, and the dispatch
 * loop of whichever replica has a slot claims it — the same loop that picks up runs whose replica
 * died and parked runs whose approvals were decided (recovery.ts).
 */
import { durationOptionOr, integerOption, integerOptionOr } from '../options.js';
import { createHash, randomUUID } from 'node:crypto';
import { IsocodeError } from '../errors.js';
import type { JsonValue } from '../json.js';
import type { Runtime } from '../runtime-types.js';
import { DEFAULT_SCOPE } from '../tools/scopes.js';
import { Emitter } from '../events/emitter.js';
import { installDurableCalls } from './execute.js';
import { resolveInterrupted } from './resolve.js';
export type { Resolution } from './resolve.js';
import type { RunHandle, RunManager, RunManagerOptions } from './run-manager-types.js';
export type { RunHandle, RunManager, RunManagerOptions, StartRun } from './run-manager-types.js';
import { ISOCODE_DECIDER, type ParkedRunLink } from './approvals.js';
import { appendInOrder, runCallIdOf, startLife, type LocalRun } from './life.js';
import { Replica, type Lease, type SlotRelease } from './recovery.js';
import { listRunSummaries, runView, type RunView } from './run-view.js';
import { runUpkeep } from './upkeep.js';
import { StoreHealth } from './health.js';
import {
  isFinalStatus,
  type ApprovalRecord,
  type RunEvent,
  type RunRecord,
  type RunStatus,
} from './store.js';

/** The digest an idempotency key is bound to: the request's program and description. */
function requestHash(code: string, description: string): string {
  return createHash('sha256')
    .update(JSON.stringify([code, description]))
    .digest('hex');
}

/** Creates the run manager over a runtime and a store, with this replica's dispatch loop. */
export function createRunManager(options: RunManagerOptions): RunManager {
  const { runtime, store } = options;
  const local = new Map<string, LocalRun>(); // by run id
  const byCall = new Map<string, LocalRun>(); // by run_code call id
  const settledWaiters = new Map<string, Set<() => void>>();
  const events = new Emitter<[RunEvent]>();
  const maxQueued = integerOptionOr(
    'maxQueuedRunsPerScope',
    options.maxQueuedRunsPerScope,
    1000,
    0,
  );
  const maxBytes = integerOptionOr(
    'maxStoredBytesPerScope',
    options.maxStoredBytesPerScope,
    1024 ** 3,
    0,
  );
  const parkAfterMs: number | false =
    options.parkAfterMs === false
      ? false
      : durationOptionOr('parkAfterMs', options.parkAfterMs, 3000, 0);
  const settleRetryMs = durationOptionOr('settleRetryMs', options.settleRetryMs, 60_000, 0);
  const cancelPollMs = durationOptionOr('cancelPollMs', options.cancelPollMs, 1000, 1);
  if (options.retentionMs !== undefined && options.retentionMs !== false)
    integerOption('retentionMs', options.retentionMs, 0);
  durationOptionOr('retentionSweepMs', options.retentionSweepMs, 60_000, 0);
  let closing = false;
  const admitting = new Map<string, Promise<void>>(); // per scope: quota checks in turn
  installDurableCalls(runtime);

  const emit = (e: RunEvent): void => {
    events.emit(e);
    if (e.type === 'result') for (const w of settledWaiters.get(e.runId) ?? []) w();
  };
  // Every event this replica's store writes reaches the listeners from the store, once committed.
  const offEvents = store.onEvent(emit);
  const health = new StoreHealth(store);
  const replica: Replica = new Replica(store, {
    ...options.replica,
    id: options.replicaId,
    serves: (scope) => runsPrograms(runtime, scope),
    reserve: (scope) => (closing ? Promise.resolve(undefined) : runtime.reserveRun(scope)),
    launch: (record, lease, slot) => launch(record, lease, slot).done,
    upkeep: async () => {
      await health.refresh();
      await runUpkeep(store, options);
    },
  });
  const replicaId = replica.id;
  const deps = {
    runtime,
    store,
    replicaId,
    emit,
    parkAfterMs,
    settleRetryMs,
    closing: () => closing,
  };

  function launch(record: RunRecord, lease: Lease, slot: SlotRelease): LocalRun {
    const run = startLife(deps, record, lease, slot, (ended) => {
      if (local.get(ended.id) === ended) local.delete(ended.id);
      byCall.delete(runCallIdOf(ended.id));
      lease.release();
      replica.wake(); // a slot is free here now
    });
    local.set(record.id, run);
    byCall.set(runCallIdOf(record.id), run);
    return run;
  }

  // In order with the life's other events; the change and its event in one transaction, so a run
  // settled meanwhile gets no status event after its result.
  const setStatus = (run: LocalRun, status: RunStatus, from: RunStatus[]): Promise<unknown> =>
    (run.chain = run.chain
      .then(() => store.changeStatus(run.id, status, from))
      .catch(() => undefined));

  // A cancel posted to another replica only changes the store: notice it and stop the run here.
  const cancelWatch = setInterval(() => {
    for (const run of local.values())
      void store
        .getRun(run.id)
        .then((r) => {
          if (r?.status === 'cancelled' && !run.controller.signal.aborted) run.controller.abort();
        })
        .catch(() => undefined);
  }, cancelPollMs);
  cancelWatch.unref();

  const offProgress = runtime.onProgress((callId, event) => {
    const run = byCall.get(callId);
    if (!run) return;
    // A life ending on purpose (parked, or handed to another replica) aborts its calls that wait:
    // they have not ended, the next life replays them. Their aborted ends are not the run's events
    // (the console drew them as failed calls beside the replayed ones).
    if (run.ending !== undefined && event.type === 'call-end' && !event.ok) return;
    void appendInOrder(deps, run, event.type, event as unknown as JsonValue);
  });

  const link: ParkedRunLink = {
    runOf: (parentId, scope) => {
      const run = byCall.get(parentId);
      return run?.scope === scope ? run.id : undefined;
    },
    written: (runId) => local.get(runId)?.chain ?? Promise.resolve(),
    asked(a: ApprovalRecord) {
      const run = local.get(a.runId);
      if (!run) return;
      run.pending.add(a.id);
      if (run.pending.size === 1) void setStatus(run, 'waiting-approval', ['running']);
      run.watch();
    },
    settled(a: ApprovalRecord) {
      const run = local.get(a.runId);
      if (!run) return;
      run.pending.delete(a.id);
      if (run.pending.size === 0) void setStatus(run, 'running', ['waiting-approval']);
      run.watch();
    },
    keepsApprovals: (runId) => local.get(runId)?.ending !== undefined,
  };

  const view = (record: RunRecord): Promise<RunView> => runView(store, record);

  /** Resolves once run `id` has a `result` event (settled or interrupted), here or elsewhere. */
  async function untilResult(id: string): Promise<void> {
    for (;;) {
      const record = await store.getRun(id);
      // Settled, not merely marked cancelled (its holder may still be settling it).
      if (!record || record.finishedAt !== undefined || record.status === 'interrupted') return;
      await new Promise<void>((resolve) => {
        let set = settledWaiters.get(id);
        if (!set) settledWaiters.set(id, (set = new Set()));
        const done = (): void => {
          clearTimeout(timer);
          set.delete(done);
          if (set.size === 0) settledWaiters.delete(id);
          resolve();
        };
        const timer = setTimeout(done, 1000); // runs settled by another replica: re-read
        set.add(done);
      });
    }
  }

  function handleOf(run: RunRecord, created: boolean): RunHandle {
    const { id, scope } = run;
    return {
      id,
      scope,
      created,
      view: async () => (await manager.get(id)) as RunView,
      wait: async () => {
        await untilResult(id);
        return (await manager.get(id)) as RunView;
      },
      cancel: async () => manager.cancel(id),
    };
  }

  /** Settles an orphan (queued, parked, interrupted, or its holder gone) as cancelled, here. */
  async function cancelOrphan(id: string): Promise<boolean> {
    // The store writes the `cancelled` status event unless a cancel already did, then the result.
    const settled = await store.settleRun(id, null, {
      status: 'cancelled',
      cancelPendingApprovalsAs: ISOCODE_DECIDER,
    });
    return settled !== undefined;
  }

  const manager: RunManager = {
    replicaId,
    store,
    link,
    async start(input) {
      const scope = input.scope ?? DEFAULT_SCOPE;
      try {
        runtime.mode(scope);
      } catch {
        throw new IsocodeError('INVALID_SCOPE', `unknown scope "${scope}"`);
      }
      if (closing) throw new IsocodeError('SHUTTING_DOWN', 'the server is shutting down');
      const description = input.description ?? 'background run';
      // run_code's own schema decides, before anything is stored (INVALID_ARGS as a call would).
      const invalid = runtime.checkRunCodeArgs({ code: input.code, description }, scope);
      if (invalid) throw invalid;
      const hash = requestHash(input.code, description);
      if (input.idempotencyKey !== undefined) {
        // A retry of a start that was accepted returns that run, even past the quotas.
        const [existing] = await store.listRuns({
          scope,
          limit: 1,
          idempotencyKey: input.idempotencyKey,
        });
        if (existing) return handleOf(checkedRetry(existing, hash), false);
      }
      // The quota check and the insert are one step per scope on this replica (across replicas
      // the bound can be overshot by at most one start per replica racing).
      const admitted = admitting.get(scope) ?? Promise.resolve();
      let done: () => void = () => undefined;
      const mine = new Promise<void>((resolve) => (done = resolve));
      const turn = admitted.then(() => mine);
      admitting.set(scope, turn);
      await admitted;
      let slot: SlotRelease | undefined;
      let created;
      try {
        const usage = await store.usage(scope);
        if (usage.queued >= maxQueued)
          throw quota(
            `this scope has ${usage.queued} runs queued (at most ${maxQueued}); retry later`,
          );
        if (usage.bytes >= maxBytes)
          throw quota(
            `this scope's runs hold ${usage.bytes} bytes in the store (at most ${maxBytes}); wait for old runs to expire`,
          );
        slot = await runtime.reserveRun(scope);
        created = await store.createRun({
          id: `run_${randomUUID()}`,
          scope,
          program: input.code,
          description,
          ...(slot === undefined
            ? {}
            : { lease: { owner: replicaId, expiresAt: replica.leaseUntil() } }),
          ...(input.idempotencyKey === undefined
            ? {}
            : { idempotencyKey: input.idempotencyKey, requestHash: hash }),
        });
      } catch (error) {
        slot?.();
        throw error;
      } finally {
        done();
        if (admitting.get(scope) === turn) admitting.delete(scope);
      }
      const { run, created: fresh } = created;
      if (!fresh) {
        slot?.();
        return handleOf(checkedRetry(run, hash), false);
      }
      if (slot === undefined) {
        replica.wake(); // queued, with its status event (one write)
      } else launch(run, replica.adopt(run), slot);
      return handleOf(run, true);
    },
    async get(id, scope) {
      const record = await store.getRun(id, scope);
      return record ? view(record) : undefined;
    },
    list: (scope, options = {}) => listRunSummaries(store, { scope, ...options }),
    async cancel(id, scope) {
      const record = await store.getRun(id, scope);
      if (!record) return undefined;
      if (isFinalStatus(record.status)) return view(record);
      const run = local.get(id);
      const orphan =
        !run && (record.owner === undefined || (record.leaseExpiresAt ?? Infinity) < Date.now());
      if (orphan && (await cancelOrphan(id))) return manager.get(id);
      // A run another replica holds is only marked: its holder notices, stops it and settles it.
      const from: RunStatus[] = ['queued', 'running', 'waiting-approval', 'interrupted'];
      // One `cancelled` event however many cancels race: only the one that changed the status.
      await store.changeStatus(id, 'cancelled', from);
      if (run) {
        run.controller.abort();
        await run.done;
      }
      return manager.get(id);
    },
    async resolve(id, resolution, scope) {
      const event = await resolveInterrupted(store, id, resolution, scope);
      if (event === undefined) return undefined;
      replica.wake();
      return manager.get(id);
    },
    onEvent: (listener) => events.on(listener),
    stats: () => {
      const s = replica.stats();
      return { local: local.size, held: s.held, claimed: s.claimed, lost: s.lost };
    },
    health: () => health.state,
    async close() {
      closing = true;
      clearInterval(cancelWatch);
      offProgress();
      const runs = [...local.values()];
      for (const run of runs) {
        run.ending ??= 'closing';
        run.controller.abort(new Error('replica stopping'));
      }
      await Promise.all(runs.map((r) => r.done));
      await replica.stop();
      offEvents();
    },
  };
  replica.start();
  return manager;
}

/**
 * Whether this replica can run programs of `scope`. Replicas of one store may be configured apart
 * (a rolling deploy adds or removes a scope): a replica that cannot run a scope's programs leaves
 * its runs to one that can instead of failing them. A run no replica serves stays queued, where a
 * cancel or the scope's return ends the wait.
 */
function runsPrograms(runtime: Runtime, scope: string): boolean {
  try {
    return runtime.mode(scope) !== 'native';
  } catch {
    return false; // a scope this replica does not declare
  }
}

function quota(message: string): IsocodeError {
  return new IsocodeError('QUOTA_EXCEEDED', message, { details: { retryAfterSeconds: 5 } });
}

/** The run an idempotent retry returns, if the request is the same. */
function checkedRetry(run: RunRecord, hash: string): RunRecord {
  if (run.requestHash !== hash)
    throw new IsocodeError(
      'IDEMPOTENCY_MISMATCH',
      'this Idempotency-Key was used for another request (a different program or description)',
      { details: { runId: run.id } },
    );
  return run;
}
