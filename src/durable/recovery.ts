/**
 * Replicas, leases and the pick-up of runs whose replica died (docs/decisions/021-replay.md).
 *
 * A replica holds each run it runs (or parks on an approval) by a lease in the store: the run's
 * `owner` and `leaseExpiresAt`, taken and renewed with the store's compare-and-set `claimRun`. A
 * heartbeat renews every held lease; a lease it cannot renew (another replica took the run after
 * this one stalled past the lease) aborts that run here. A recovery loop looks for unfinished runs
 * whose lease lapsed — their replica is gone — claims each and hands it to `resume`, which runs
 * the run's next life (a replay, see replay.ts) under the new lease.
 */
import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import type { RunRecord, RunStatus, RunStore } from './store.js';

/** How long a lease lasts without renewal, in ms, unless configured (`store.leaseMs`). */
export const DEFAULT_LEASE_MS = 15_000;

/** A fresh replica id: `<hostname>-<pid>-<random>` (unique per process start). */
export function defaultReplicaId(): string {
  return `${hostname()}-${process.pid}-${randomUUID().slice(0, 8)}`;
}

/** Statuses of runs that still need a replica. */
export const UNFINISHED: readonly RunStatus[] = ['queued', 'running', 'waiting-approval'];

/** A replica's hold on one run. */
export interface Lease {
  readonly runId: string;
  /** Aborts when the lease is lost (another replica took the run) or released. */
  readonly signal: AbortSignal;
  /** Gives the run up: no more renewals; the signal aborts. Idempotent. */
  release(): void;
}

/** Options of a {@link Replica}. */
export interface ReplicaOptions {
  /** This replica's id in the store. @default {@link defaultReplicaId}() */
  id?: string | undefined;
  /** How long a lease lasts without renewal, in ms. @default {@link DEFAULT_LEASE_MS} */
  leaseMs?: number | undefined;
  /** How often held leases are renewed, in ms. @default leaseMs / 3 */
  heartbeatMs?: number | undefined;
  /** How often the store is scanned for runs whose lease lapsed, in ms. @default leaseMs / 2 */
  scanMs?: number | undefined;
  /**
   * Runs the next life of a run this replica just claimed (the run manager's replay). The lease is
   * held until the returned promise settles, then released. Errors are contained.
   */
  resume?: ((run: RunRecord, lease: Lease) => Promise<void>) | undefined;
  /**
   * Settles a run that was cancelled while its replica was gone (it is `cancelled` but not settled,
   * and its lease lapsed): nobody else will. Errors are contained.
   */
  reap?: ((run: RunRecord) => Promise<void>) | undefined;
  /** The clock. @default Date.now */
  now?: (() => number) | undefined;
}

/** Counters of a replica. */
export interface ReplicaStats {
  held: number;
  claimed: number;
  resumed: number;
  lost: number;
}

/** One replica: its leases, heartbeat and recovery loop. */
export class Replica {
  readonly id: string;
  readonly #store: RunStore;
  readonly #leaseMs: number;
  readonly #heartbeatMs: number;
  readonly #scanMs: number;
  readonly #resume: ReplicaOptions['resume'];
  readonly #reap: ReplicaOptions['reap'];
  readonly #now: () => number;
  readonly #held = new Map<string, AbortController>();
  readonly #resuming = new Set<Promise<void>>();
  #heartbeat: NodeJS.Timeout | undefined;
  #scan: NodeJS.Timeout | undefined;
  #scanning: Promise<void> | undefined;
  #stats = { claimed: 0, resumed: 0, lost: 0 };

  constructor(store: RunStore, options: ReplicaOptions = {}) {
    this.#store = store;
    this.id = options.id ?? defaultReplicaId();
    this.#leaseMs = Math.max(50, options.leaseMs ?? DEFAULT_LEASE_MS);
    this.#heartbeatMs = Math.max(10, options.heartbeatMs ?? Math.floor(this.#leaseMs / 3));
    this.#scanMs = Math.max(10, options.scanMs ?? Math.floor(this.#leaseMs / 2));
    this.#resume = options.resume;
    this.#reap = options.reap;
    this.#now = options.now ?? Date.now;
  }

  /** Starts the heartbeat and the recovery loop. */
  start(): void {
    if (this.#heartbeat !== undefined) return;
    this.#heartbeat = setInterval(() => void this.renew(), this.#heartbeatMs);
    this.#heartbeat.unref();
    if (this.#resume !== undefined) {
      this.#scan = setInterval(() => void this.recover(), this.#scanMs);
      this.#scan.unref();
    }
  }

  /** Stops renewing and scanning; releases every lease (their runs' signals abort). */
  async stop(): Promise<void> {
    clearInterval(this.#heartbeat);
    clearInterval(this.#scan);
    this.#heartbeat = undefined;
    this.#scan = undefined;
    for (const controller of this.#held.values()) controller.abort(new Error('replica stopping'));
    this.#held.clear();
    await this.#scanning;
    await Promise.allSettled([...this.#resuming]);
  }

  stats(): ReplicaStats {
    return { held: this.#held.size, ...this.#stats };
  }

  /**
   * Takes the lease of run `runId` (free, already this replica's, or lapsed) and keeps it renewed.
   * @returns the lease, or undefined when another replica holds the run or it is finished.
   */
  async hold(runId: string): Promise<Lease | undefined> {
    const now = this.#now();
    const run = await this.#store.claimRun(runId, this.id, now + this.#leaseMs, now);
    if (run === undefined) return undefined;
    return this.#lease(runId);
  }

  #lease(runId: string): Lease {
    this.#held.get(runId)?.abort(new Error('lease taken again'));
    const controller = new AbortController();
    this.#held.set(runId, controller);
    return {
      runId,
      signal: controller.signal,
      release: () => {
        if (this.#held.get(runId) === controller) this.#held.delete(runId);
        controller.abort(new Error('lease released'));
      },
    };
  }

  /** Renews every held lease once; a lease that cannot be renewed is lost (its signal aborts). */
  async renew(): Promise<void> {
    const now = this.#now();
    await Promise.all(
      [...this.#held].map(async ([runId, controller]) => {
        let ok: boolean;
        try {
          ok = (await this.#store.claimRun(runId, this.id, now + this.#leaseMs, now)) !== undefined;
        } catch {
          return; // the store is unreachable: try again at the next beat
        }
        if (ok || controller.signal.aborted) return;
        if (this.#held.get(runId) === controller) this.#held.delete(runId);
        this.#stats.lost++;
        controller.abort(new Error('lease lost'));
      }),
    );
  }

  /**
   * One recovery pass: claims every unfinished run whose lease lapsed and resumes it (not
   * awaited). Returns the ids it claimed.
   */
  async recover(): Promise<string[]> {
    if (this.#scanning !== undefined || this.#resume === undefined) return [];
    const resume = this.#resume;
    const claimed: string[] = [];
    const pass = (async () => {
      let runs: RunRecord[];
      try {
        runs = await this.#store.listRuns({
          status: UNFINISHED,
          leaseExpiredBefore: this.#now(),
          limit: 100,
        });
      } catch {
        return;
      }
      for (const candidate of runs) {
        if (this.#held.has(candidate.id)) continue;
        const now = this.#now();
        let run: RunRecord | undefined;
        try {
          run = await this.#store.claimRun(candidate.id, this.id, now + this.#leaseMs, now);
        } catch {
          continue;
        }
        if (run === undefined) continue; // another replica was faster
        this.#stats.claimed++;
        claimed.push(run.id);
        const lease = this.#lease(run.id);
        const life = (async () => {
          try {
            await resume(run, lease);
            this.#stats.resumed++;
          } catch {
            // the run manager records its own failures
          } finally {
            lease.release();
          }
        })();
        this.#resuming.add(life);
        void life.finally(() => this.#resuming.delete(life));
      }
      await this.#reapCancelled();
    })();
    this.#scanning = pass;
    try {
      await pass;
    } finally {
      this.#scanning = undefined;
    }
    return claimed;
  }

  /** Settles runs cancelled while their replica was gone (see {@link ReplicaOptions.reap}). */
  async #reapCancelled(): Promise<void> {
    const reap = this.#reap;
    if (reap === undefined) return;
    try {
      const runs = await this.#store.listRuns({
        status: ['cancelled'],
        unsettled: true,
        leaseExpiredBefore: this.#now(),
        limit: 100,
      });
      for (const run of runs) if (!this.#held.has(run.id)) await reap(run);
    } catch {
      // the store is unreachable, or the run manager failed: try again at the next pass
    }
  }
}
