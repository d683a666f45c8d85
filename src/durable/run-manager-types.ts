/**
 * What the run manager (runs.ts) offers and takes: a run's start request and handle, the manager's
 * options and its interface.
 */
import type { ParkedRunLink } from './approvals.js';
import type { ReplicaOptions } from './recovery.js';
import type { Resolution } from './resolve.js';
import type { RunSummary, RunView } from './run-view.js';
import type { StoreHealthState } from './health.js';
import type { UpkeepOptions } from './upkeep.js';
import type { Runtime } from '../runtime-types.js';
import type { RunEvent, RunStatus, RunStore } from './store.js';

/** What {@link RunManager.start} needs. */
export interface StartRun {
  code: string;
  /** A short title. @default "background run" */
  description?: string | undefined;
  /** @default "default" */
  scope?: string | undefined;
  /**
   * The client's idempotency key: a second start with the same key in the same scope returns the
   * first run (`IDEMPOTENCY_MISMATCH` when its program or description differ).
   */
  idempotencyKey?: string | undefined;
}

/** A handle of a started run. */
export interface RunHandle {
  readonly id: string;
  readonly scope: string;
  /** False when an earlier start with the same idempotency key made this run. */
  readonly created: boolean;
  /** The run as stored now. */
  view(): Promise<RunView>;
  /** Resolves with the view once the run is settled (succeeded, failed or cancelled) or interrupted. */
  wait(): Promise<RunView>;
  /** Cancels the run. */
  cancel(): Promise<RunView | undefined>;
}

/** Options of {@link createRunManager}. */
export interface RunManagerOptions extends UpkeepOptions {
  runtime: Runtime;
  store: RunStore;
  /** This replica's id (the owner of the runs it runs). @default `defaultReplicaId()` */
  replicaId?: string | undefined;
  /** Leases and dispatch timings (see `Replica`). @default { leaseMs: 15000 } */
  replica?: Pick<ReplicaOptions, 'leaseMs' | 'heartbeatMs' | 'scanMs'> | undefined;
  /**
   * How long every live call of a run must wait for a human before the run is parked: its sandbox
   * and run slot are given back, and a decision resumes it by replay on any replica. `false` never
   * parks. @default 3000
   */
  parkAfterMs?: number | false | undefined;
  /** Runs `queued` in one scope; one more start is refused with QUOTA_EXCEEDED (429). @default 1000 */
  maxQueuedRunsPerScope?: number | undefined;
  /** Bytes one scope's runs may hold in the store; past it starts are refused (QUOTA_EXCEEDED). @default 1 GiB */
  maxStoredBytesPerScope?: number | undefined;
  /** How often this replica re-reads the status of the runs it holds (cancels via other replicas). @default 1000 */
  cancelPollMs?: number | undefined;
  /** How long a settlement is retried while the store is unreachable, in ms. @default 60000 */
  settleRetryMs?: number | undefined;
}

/** Starts, reads, cancels and resolves durable runs; also the link the parked approver reports to. */
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
    options?: {
      status?: readonly RunStatus[] | undefined;
      limit?: number | undefined;
      before?: number | undefined;
    },
  ): Promise<RunSummary[]>;
  /** Cancels a run that is not settled. @returns the view, or undefined when unknown or of another scope. */
  cancel(id: string, scope?: string): Promise<RunView | undefined>;
  /**
   * Resolves the call an `interrupted` run stopped on (it took effect with `value`, it failed, or
   * run it again) and queues the run: its next life continues by replay.
   * @throws IsocodeError BAD_REQUEST when the run is not interrupted.
   * @returns the view, or undefined when unknown or of another scope.
   */
  resolve(id: string, resolution: Resolution, scope?: string): Promise<RunView | undefined>;
  /** Subscribes to events this replica appends; returns the unsubscribe function. */
  onEvent(listener: (event: RunEvent) => void): () => void;
  /** Counters: lives running here, leases held, runs claimed. */
  stats(): { local: number; held: number; claimed: number; lost: number };
  /** The store's health and size as last seen (refreshed in the background). */
  health(): StoreHealthState;
  /** Lets go of the local runs (released in the store for another replica, approvals kept) and stops. */
  close(): Promise<void>;
}
