/**
 * The run manager: starts run_code programs in the background as durable runs, persists their
 * status transitions and events (with per-run sequence numbers), and cancels them. A background run
 * is an ordinary run_code call (`runtime.execute`) whose progress, approvals and result are written
 * to the store; the executor and the run_code tool do not know about it.
 */
import { randomUUID } from 'node:crypto';
import { IsocodeError } from '../errors.js';
import type { JsonValue } from '../json.js';
import type { Runtime } from '../runtime-types.js';
import { executeDurably, installDurableCalls } from './execute.js';
import { journalStoreOf } from './journal-store.js';
import { defaultReplicaId, type Lease } from './recovery.js';
import type { ReplayVerdict } from './replay.js';
import { DEFAULT_SCOPE } from '../tools/scopes.js';
import { Emitter } from '../events/emitter.js';
import { cancelLeftoverApprovals, type ParkedRunLink } from './approvals.js';
import { listRunSummaries, runView, type RunSummary, type RunView } from './run-view.js';
import {
  isFinalStatus,
  type ApprovalRecord,
  type RunEvent,
  type RunRecord,
  type RunStatus,
  type RunStore,
} from './store.js';

/** What {@link RunManager.start} needs. */
export interface StartRun {
  code: string;
  /** A short title. @default "background run" */
  description?: string | undefined;
  /** @default "default" */
  scope?: string | undefined;
}

/** A handle of a started run. */
export interface RunHandle {
  readonly id: string;
  readonly scope: string;
  /** The run as stored now. */
  view(): Promise<RunView>;
  /** Resolves with the view once the run is settled (succeeded, failed or cancelled). */
  wait(): Promise<RunView>;
  /** Cancels the run. */
  cancel(): Promise<RunView | undefined>;
}

/** Options of {@link createRunManager}. */
export interface RunManagerOptions {
  runtime: Runtime;
  store: RunStore;
  /** This replica's id (the owner of the runs it starts). @default {@link defaultReplicaId}() */
  replicaId?: string | undefined;
  /** Takes and keeps the lease of a run this replica starts (see `Replica.hold`). @default none */
  hold?: ((runId: string) => Promise<Lease | undefined>) | undefined;
  /**
   * How often this replica re-reads the status of the runs it holds, to stop one cancelled through
   * another replica. @default 1000
   */
  cancelPollMs?: number | undefined;
}

/** Starts, reads and cancels durable runs; also the link the parked approver reports to. */
export interface RunManager {
  readonly replicaId: string;
  readonly store: RunStore;
  readonly link: ParkedRunLink;
  start(input: StartRun): Promise<RunHandle>;
  /** The run, or undefined when unknown or of another scope (when `scope` is given). */
  get(id: string, scope?: string): Promise<RunView | undefined>;
  /** A scope's runs, newest first (at most 100). */
  list(
    scope: string,
    options?: { status?: readonly RunStatus[] | undefined; limit?: number | undefined },
  ): Promise<RunSummary[]>;
  /** Cancels a run that is not settled. @returns the view, or undefined when unknown or of another scope. */
  cancel(id: string, scope?: string): Promise<RunView | undefined>;
  /**
   * Runs the next life of a run this replica has just claimed (its earlier replica died): a replay
   * from the run's journal (see replay.ts). Resolves once the run has settled here.
   */
  resume(record: RunRecord, lease: Lease): Promise<void>;
  /**
   * Settles a run cancelled while its replica was gone (`cancelled`, not settled, its lease lapsed):
   * `finishedAt`, its pending approvals cancelled, a `result` event. The recovery loop calls it.
   */
  reap(record: RunRecord): Promise<void>;
  /** Subscribes to events this replica appends; returns the unsubscribe function. */
  onEvent(listener: (event: RunEvent) => void): () => void;
  /** Aborts the local runs (they stay `running` in the store for another replica) and stops. */
  close(): Promise<void>;
}

interface LocalRun {
  id: string;
  scope: string;
  controller: AbortController;
  pending: Set<string>;
  /** Appends in order. */
  chain: Promise<unknown>;
  settled: Promise<void>;
}

// `http-` ids are reserved for server-made ids on the HTTP face: no client can pose as a run's call.
const RUN_CALL_PREFIX = 'http-run-';

/** Creates the run manager over a runtime and a store. */
export function createRunManager(options: RunManagerOptions): RunManager {
  const { runtime, store } = options;
  const replicaId = options.replicaId ?? defaultReplicaId();
  const local = new Map<string, LocalRun>(); // by run id
  const byCall = new Map<string, LocalRun>(); // by run_code call id
  const events = new Emitter<[RunEvent]>();
  let closing = false;
  installDurableCalls(runtime);

  const append = (run: LocalRun, type: string, data: JsonValue): Promise<unknown> =>
    (run.chain = run.chain
      .then(() => store.appendEvent(run.id, type, data))
      .then((e) => e && events.emit(e))
      .catch(() => undefined)); // a lost event never breaks the run

  const setStatus = (run: LocalRun, status: RunStatus, from: RunStatus[]): Promise<unknown> =>
    (run.chain = run.chain
      .then(() => store.updateRun(run.id, { status }, { status: from }))
      .then((r) => r && store.appendEvent(run.id, 'status', { status }))
      .then((e) => e && events.emit(e))
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
  }, options.cancelPollMs ?? 1000);
  cancelWatch.unref();

  const offProgress = runtime.onProgress((callId, event) => {
    const run = byCall.get(callId);
    if (run) void append(run, event.type, event as unknown as JsonValue);
  });

  const link: ParkedRunLink = {
    runOf: (parentId, scope) => {
      const run = byCall.get(parentId);
      return run?.scope === scope ? run.id : undefined;
    },
    asked(a: ApprovalRecord) {
      const run = local.get(a.runId);
      if (!run) return;
      run.pending.add(a.id);
      void append(run, 'approval', approvalEvent(a));
      if (run.pending.size === 1) void setStatus(run, 'waiting-approval', ['running']);
    },
    settled(a: ApprovalRecord) {
      const run = local.get(a.runId);
      if (!run) return;
      run.pending.delete(a.id);
      void append(run, 'approval', approvalEvent(a));
      if (run.pending.size === 0) void setStatus(run, 'running', ['waiting-approval']);
    },
  };

  const view = (record: RunRecord): Promise<RunView> => runView(store, record);

  async function settle(run: LocalRun, verdict: ReplayVerdict): Promise<void> {
    await run.chain;
    if (closing) return; // the run stays in the store as it was, for a replica to pick up
    const cancelled = run.controller.signal.aborted;
    const status: RunStatus =
      verdict.status === 'succeeded' || !cancelled ? verdict.status : 'cancelled';
    const result = verdict.status === 'interrupted' ? undefined : verdict.result;
    const json =
      result === undefined ? undefined : (JSON.parse(JSON.stringify(result)) as JsonValue);
    const done = await store
      .updateRun(
        run.id,
        {
          status,
          ...(json === undefined ? {} : { result: json }),
          ...(verdict.status === 'succeeded'
            ? {}
            : { error: JSON.parse(JSON.stringify(verdict.error)) as JsonValue }),
          finishedAt: Date.now(),
          owner: null,
          leaseExpiresAt: null,
        },
        { status: ['queued', 'running', 'waiting-approval', 'cancelled'], owner: replicaId },
      )
      .catch(() => undefined);
    if (!done) return;
    // Asks of this run nobody decided (siblings of a rejected ask, asks a diverged replay never
    // reached) must not wait for a human forever.
    const leftover = await cancelLeftoverApprovals(store, run.id).catch(() => []);
    for (const a of leftover) void append(run, 'approval', approvalEvent(a));
    await append(run, 'result', {
      status: done.status,
      result: json ?? null,
      ...(verdict.status === 'succeeded'
        ? {}
        : { error: JSON.parse(JSON.stringify(verdict.error)) as JsonValue }),
    });
  }

  /**
   * Settles `record` as cancelled here, when its holder is gone (compare-and-set on its owner):
   * writes `finishedAt`, cancels its pending approvals and records the events.
   * @returns whether this call settled it.
   */
  async function settleCancelled(record: RunRecord, from: RunStatus[]): Promise<boolean> {
    const { id } = record;
    const settled = await store.updateRun(
      id,
      {
        status: 'cancelled',
        finishedAt: record.finishedAt ?? Date.now(),
        owner: null,
        leaseExpiresAt: null,
      },
      { status: from, owner: record.owner ?? null },
    );
    if (!settled) return false;
    const leftover = await cancelLeftoverApprovals(store, id);
    const appended = [
      ...(record.status === 'cancelled'
        ? []
        : [await store.appendEvent(id, 'status', { status: 'cancelled' })]),
      ...(await Promise.all(
        leftover.map((a) => store.appendEvent(id, 'approval', approvalEvent(a))),
      )),
      // An interrupted run already has its result event.
      ...(record.finishedAt === undefined
        ? [await store.appendEvent(id, 'result', { status: 'cancelled', result: null })]
        : []),
    ];
    for (const e of appended) if (e) events.emit(e);
    return true;
  }

  /** Runs one life of `record` here (a first run or a replay) and settles it. */
  function launch(
    record: RunRecord,
    lease: Lease | undefined,
    initial: RunEvent | undefined,
  ): LocalRun {
    const { id, scope } = record;
    const controller = new AbortController();
    const run: LocalRun = {
      id,
      scope,
      controller,
      pending: new Set(),
      chain: Promise.resolve(initial).then((e) => e && events.emit(e)),
      settled: Promise.resolve(),
    };
    const callId = `${RUN_CALL_PREFIX}${id}`;
    local.set(id, run);
    byCall.set(callId, run);
    const signal =
      lease === undefined ? controller.signal : AbortSignal.any([controller.signal, lease.signal]);
    run.settled = executeDurably(
      runtime,
      journalStoreOf(store),
      { id, scope, program: record.program, description: record.description },
      { signal, callId },
    )
      .then((verdict) => (lease?.signal.aborted === true ? undefined : settle(run, verdict)))
      .catch(() => undefined)
      .finally(() => {
        lease?.release();
        local.delete(id);
        byCall.delete(callId);
      });
    return run;
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
      const description = input.description ?? 'background run';
      // run_code's own schema decides, before anything is stored (INVALID_ARGS as a call would).
      const invalid = runtime.checkRunCodeArgs({ code: input.code, description }, scope);
      if (invalid) throw invalid;
      const id = `run_${randomUUID()}`;
      const record = await store.createRun({
        id,
        scope,
        program: input.code,
        description,
        status: 'running',
        owner: replicaId,
      });
      await store.updateRun(id, { startedAt: record.createdAt });
      const lease = await options.hold?.(id);
      const initial = await store.appendEvent(id, 'status', {
        status: 'running',
        replica: replicaId,
      });
      const run = launch(record, lease, initial);
      const handle: RunHandle = {
        id,
        scope,
        view: async () => (await manager.get(id)) as RunView,
        wait: async () => {
          await run.settled;
          return (await manager.get(id)) as RunView;
        },
        cancel: async () => manager.cancel(id),
      };
      return handle;
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
      const from: RunStatus[] = ['queued', 'running', 'waiting-approval', 'interrupted'];
      // A run nobody holds (no owner, or its owner's lease lapsed: that replica is gone) is
      // settled here, its pending approvals with it.
      const orphan =
        !run && (record.owner === undefined || (record.leaseExpiresAt ?? Infinity) < Date.now());
      if (orphan && (await settleCancelled(record, from))) return manager.get(id);
      // A run another replica holds is only marked: its holder notices, stops it and settles it.
      const updated = await store.updateRun(id, { status: 'cancelled' }, { status: from });
      if (run) {
        await append(run, 'status', { status: 'cancelled' });
        run.controller.abort();
        await run.settled;
      } else if (updated) {
        const e = await store.appendEvent(id, 'status', { status: 'cancelled' });
        if (e) events.emit(e);
      }
      return manager.get(id);
    },
    async resume(record, lease) {
      const running = await store.updateRun(
        record.id,
        { status: 'running' },
        { owner: replicaId, status: ['queued', 'running', 'waiting-approval'] },
      );
      if (running === undefined) return lease.release();
      const initial = await store.appendEvent(record.id, 'status', {
        status: 'running',
        replica: replicaId,
        replay: true,
      });
      await launch(running, lease, initial).settled;
    },
    async reap(record) {
      if (record.status !== 'cancelled' || record.finishedAt !== undefined) return;
      if (local.has(record.id)) return;
      await settleCancelled(record, ['cancelled']);
    },
    onEvent: (listener) => events.on(listener),
    async close() {
      closing = true;
      clearInterval(cancelWatch);
      offProgress();
      const runs = [...local.values()];
      for (const run of runs) run.controller.abort();
      await Promise.all(runs.map((r) => r.settled));
    },
  };
  return manager;
}

function approvalEvent(a: ApprovalRecord): JsonValue {
  return {
    id: a.id,
    tool: a.tool,
    status: a.status,
    reason: a.reason,
    decidedBy: a.decidedBy ?? null,
  };
}
