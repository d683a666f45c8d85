/**
 * The run manager: starts run_code programs in the background as durable runs, persists their
 * status transitions and events (with per-run sequence numbers), and cancels them. A background run
 * is an ordinary run_code call (`runtime.execute`) whose progress, approvals and result are written
 * to the store; the executor and the run_code tool do not know about it.
 */
import { randomUUID } from 'node:crypto';
import { IsocodeError } from '../errors.js';
import type { JsonValue } from '../json.js';
import type { Runtime } from '../runtime.js';
import type { ToolResult } from '../executor/types.js';
import { RUN_CODE } from '../tools/names.js';
import { DEFAULT_SCOPE } from '../tools/scopes.js';
import { Emitter } from '../events/emitter.js';
import type { ParkedRunLink } from './approvals.js';
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

/** A run as the API shows it. */
export interface RunView {
  id: string;
  scope: string;
  description: string | undefined;
  status: RunStatus;
  /** The nested calls so far (name, outcome), from the run's events. */
  calls: { name: string; ok: boolean | undefined; code: string | undefined }[];
  /** Approvals still pending. */
  pendingApprovals: number;
  /** The run_code ToolResult, once settled. */
  result: JsonValue | undefined;
  error: JsonValue | undefined;
  createdAt: number;
  finishedAt: number | undefined;
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
  /** This replica's id (the owner of the runs it starts). @default a random id */
  replicaId?: string | undefined;
}

/** Starts, reads and cancels durable runs; also the link the parked approver reports to. */
export interface RunManager {
  readonly replicaId: string;
  readonly store: RunStore;
  readonly link: ParkedRunLink;
  start(input: StartRun): Promise<RunHandle>;
  /** The run, or undefined when unknown or of another scope (when `scope` is given). */
  get(id: string, scope?: string): Promise<RunView | undefined>;
  /** Cancels a run that is not settled. @returns the view, or undefined when unknown or of another scope. */
  cancel(id: string, scope?: string): Promise<RunView | undefined>;
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
  const replicaId = options.replicaId ?? `replica-${randomUUID()}`;
  const local = new Map<string, LocalRun>(); // by run id
  const byCall = new Map<string, LocalRun>(); // by run_code call id
  const events = new Emitter<[RunEvent]>();
  let closing = false;

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

  async function view(record: RunRecord): Promise<RunView> {
    const [all, approvals] = await Promise.all([
      store.listEvents(record.id, 0, 1000),
      store.listApprovals({ runId: record.id, status: ['pending'] }),
    ]);
    const calls = all
      .filter((e) => e.type === 'call-end')
      .map((e) => {
        const d = e.data as { name?: unknown; ok?: unknown; code?: unknown };
        return {
          name: String(d.name),
          ok: typeof d.ok === 'boolean' ? d.ok : undefined,
          code: typeof d.code === 'string' ? d.code : undefined,
        };
      });
    return {
      id: record.id,
      scope: record.scope,
      description: record.description,
      status: record.status,
      calls,
      pendingApprovals: approvals.length,
      result: record.result,
      error: record.error,
      createdAt: record.createdAt,
      finishedAt: record.finishedAt,
    };
  }

  async function settle(run: LocalRun, result: ToolResult): Promise<void> {
    await run.chain;
    if (closing) return; // the run stays in the store as it was, for a replica to pick up
    const cancelled = run.controller.signal.aborted;
    const status: RunStatus = result.ok ? 'succeeded' : cancelled ? 'cancelled' : 'failed';
    const json = JSON.parse(JSON.stringify(result)) as JsonValue;
    const done = await store
      .updateRun(
        run.id,
        {
          status,
          result: json,
          ...(result.ok ? {} : { error: result.error as unknown as JsonValue }),
          finishedAt: Date.now(),
          owner: null,
        },
        { status: ['queued', 'running', 'waiting-approval', 'cancelled'], owner: replicaId },
      )
      .catch(() => undefined);
    if (done) await append(run, 'result', { status: done.status, result: json });
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
      const id = `run_${randomUUID()}`;
      const description = input.description ?? 'background run';
      const record = await store.createRun({
        id,
        scope,
        program: input.code,
        description,
        status: 'running',
        owner: replicaId,
      });
      await store.updateRun(id, { startedAt: record.createdAt });
      const controller = new AbortController();
      const run: LocalRun = {
        id,
        scope,
        controller,
        pending: new Set(),
        chain: store
          .appendEvent(id, 'status', { status: 'running' })
          .then((e) => e && events.emit(e)),
        settled: Promise.resolve(),
      };
      const callId = `${RUN_CALL_PREFIX}${id}`;
      local.set(id, run);
      byCall.set(callId, run);
      run.settled = runtime
        .execute(
          { name: RUN_CODE, args: { code: input.code, description }, id: callId },
          { scope, signal: controller.signal },
        )
        .then((result) => settle(run, result))
        .catch(() => undefined)
        .finally(() => {
          local.delete(id);
          byCall.delete(callId);
        });
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
    async cancel(id, scope) {
      const record = await store.getRun(id, scope);
      if (!record) return undefined;
      if (isFinalStatus(record.status)) return view(record);
      const run = local.get(id);
      const updated = await store.updateRun(
        id,
        { status: 'cancelled', ...(run ? {} : { finishedAt: Date.now(), owner: null }) },
        { status: ['queued', 'running', 'waiting-approval', 'interrupted'] },
      );
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
    onEvent: (listener) => events.on(listener),
    async close() {
      closing = true;
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
