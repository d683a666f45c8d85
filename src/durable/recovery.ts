/**
 * Replicas, leases and the dispatch of claimable runs (docs/decisions/021-replay.md).
 *
 * A replica holds each run it runs by a lease in the store: the run's `owner`, `leaseExpiresAt`
 * and `epoch`. A life of a run begins with a claim (the store bumps the epoch) or with an insert
 * that carries the lease; every journal write of that life is fenced by `{ owner, epoch }`, so a
 * replica that lost its lease can never start a call the new holder also starts. A heartbeat renews
 * every held lease (fenced too); a lease it cannot renew aborts that run here.
 *
 * One dispatch loop serves every way a run comes to need a replica — a `queued` background run, a
 * run whose replica died (its lease lapsed), a parked run whose approvals were all decided: it lists
 * what the store says is claimable, asks for a local run slot for each ({@link ReplicaOptions.reserve}),
 * claims it and hands it to {@link ReplicaOptions.launch}. It runs on a timer, on the store's wake
 * signal (another replica queued, released or a human decided) and whenever a local slot frees.
 */
import { durationOptionOr, wholeMs } from '../options.js';
import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import type { Fence, RunRecord, RunStatus, RunStore } from './store.js';

/** How long a lease lasts without renewal, in ms, unless configured (`store.leaseMs`). */
export const DEFAULT_LEASE_MS = 15_000;

/** A fresh replica id: `<hostname>-<pid>-<random>` (unique per process start). */
export function defaultReplicaId(): string {
  return `${hostname()}-${process.pid}-${randomUUID().slice(0, 8)}`;
}

/** Statuses of runs that still need a replica. */
export const UNFINISHED: readonly RunStatus[] = ['queued', 'running', 'waiting-approval'];

/** A replica's hold on one life of a run. */
export interface Lease {
  readonly runId: string;
  /** The fence of this life: every journal write of it carries this. */
  readonly fence: Fence;
  /** Aborts when the lease is lost (another replica took the run) or released. */
  readonly signal: AbortSignal;
  /** Stops renewing (the store is not touched); the signal aborts. Idempotent. */
  release(): void;
}

/** A local run slot (admission), given back exactly once. */
export type SlotRelease = () => void;

/** Runs read per page of a scan, and pages at most per pass (1,000 candidates). */
const SCAN_PAGE = 50;
const MAX_SCAN_PAGES = 20;

/** Options of a {@link Replica}. */
export interface ReplicaOptions {
  /** This replica's id in the store. @default {@link defaultReplicaId}() */
  id?: string | undefined;
  /** How long a lease lasts without renewal, in ms. @default {@link DEFAULT_LEASE_MS} */
  leaseMs?: number | undefined;
  /** How often held leases are renewed, in ms. @default leaseMs / 3 */
  heartbeatMs?: number | undefined;
  /** How often the store is scanned for claimable runs, in ms. @default min(1000, leaseMs / 2) */
  scanMs?: number | undefined;
  /**
   * A run slot of `scope` on this replica without waiting, or undefined when the scope (or the
   * replica) has none free now. @default always a slot
   */
  reserve?: ((scope: string) => Promise<SlotRelease | undefined>) | undefined;
  /**
   * Whether this replica runs programs of `scope` at all (replicas may be configured apart). A scan
   * passes over the runs of a scope it does not serve, and pages on past them. @default every scope
   */
  serves?: ((scope: string) => boolean) | undefined;
  /**
   * Runs the life of a run this replica just claimed, in the slot it reserved (the run manager).
   * The lease is released when the returned promise settles. Errors are contained.
   */
  launch?: ((run: RunRecord, lease: Lease, slot: SlotRelease) => Promise<void>) | undefined;
  /** Periodic upkeep after each scan (expired approvals, cancelled orphans, retention). Errors are contained. */
  upkeep?: (() => Promise<void>) | undefined;
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

const noSlot: SlotRelease = () => undefined;

/** One replica: its leases, heartbeat and dispatch loop. */
export class Replica {
  readonly id: string;
  readonly leaseMs: number;
  readonly #store: RunStore;
  readonly #heartbeatMs: number;
  readonly #scanMs: number;
  readonly #reserve: NonNullable<ReplicaOptions['reserve']>;
  readonly #serves: NonNullable<ReplicaOptions['serves']>;
  readonly #launch: ReplicaOptions['launch'];
  readonly #upkeep: ReplicaOptions['upkeep'];
  readonly #now: () => number;
  readonly #held = new Map<string, { controller: AbortController; fence: Fence }>();
  readonly #lives = new Set<Promise<void>>();
  #heartbeat: NodeJS.Timeout | undefined;
  #scan: NodeJS.Timeout | undefined;
  #scanning: Promise<void> | undefined;
  #again = false;
  #stopped = false;
  #offWake: (() => void) | undefined;
  #stats = { claimed: 0, resumed: 0, lost: 0 };

  constructor(store: RunStore, options: ReplicaOptions = {}) {
    this.#store = store;
    this.id = options.id ?? defaultReplicaId();
    // Whole milliseconds: a lease's end is stored in an integer column.
    const lease = wholeMs(options.leaseMs);
    this.leaseMs = Math.max(50, durationOptionOr('leaseMs', lease, DEFAULT_LEASE_MS, 1));
    const heartbeat = Math.floor(this.leaseMs / 3);
    this.#heartbeatMs = Math.max(
      10,
      durationOptionOr('heartbeatMs', options.heartbeatMs, heartbeat, 1),
    );
    const scan = Math.min(1000, Math.floor(this.leaseMs / 2));
    this.#scanMs = Math.max(10, durationOptionOr('scanMs', options.scanMs, scan, 1));
    this.#reserve = options.reserve ?? (() => Promise.resolve(noSlot));
    this.#serves = options.serves ?? (() => true);
    this.#launch = options.launch;
    this.#upkeep = options.upkeep;
    this.#now = options.now ?? Date.now;
  }

  /** Starts the heartbeat and the dispatch loop. */
  start(): void {
    if (this.#heartbeat !== undefined || this.#stopped) return;
    this.#heartbeat = setInterval(() => void this.renew(), this.#heartbeatMs);
    this.#heartbeat.unref();
    if (this.#launch !== undefined) {
      this.#scan = setInterval(() => this.wake(), this.#scanMs);
      this.#scan.unref();
      this.#offWake = this.#store.onWake(() => this.wake());
      this.wake();
    }
  }

  /** Stops renewing and dispatching; releases every lease (their runs' signals abort). */
  async stop(): Promise<void> {
    this.#stopped = true;
    clearInterval(this.#heartbeat);
    clearInterval(this.#scan);
    this.#offWake?.();
    this.#heartbeat = undefined;
    this.#scan = undefined;
    await this.#scanning;
    for (const { controller } of this.#held.values())
      controller.abort(new Error('replica stopping'));
    this.#held.clear();
    await Promise.allSettled([...this.#lives]);
  }

  stats(): ReplicaStats {
    return { held: this.#held.size, ...this.#stats };
  }

  /** The lease expiry a claim or insert made now should carry. */
  leaseUntil(): number {
    return this.#now() + this.leaseMs;
  }

  /**
   * Keeps the lease of `run` (just inserted with this replica's lease, or claimed) renewed.
   * @returns the lease of this life (its fence is the run's owner and epoch).
   */
  adopt(run: RunRecord): Lease {
    const { id: runId } = run;
    this.#held.get(runId)?.controller.abort(new Error('lease taken again'));
    const controller = new AbortController();
    const fence: Fence = { owner: this.id, epoch: run.epoch };
    const entry = { controller, fence };
    this.#held.set(runId, entry);
    return {
      runId,
      fence,
      signal: controller.signal,
      release: () => {
        if (this.#held.get(runId) === entry) this.#held.delete(runId);
        controller.abort(new Error('lease released'));
      },
    };
  }

  /** Renews every held lease once; a lease that cannot be renewed is lost (its signal aborts). */
  async renew(): Promise<void> {
    const until = this.leaseUntil();
    await Promise.all(
      [...this.#held].map(async ([runId, entry]) => {
        let ok: boolean;
        try {
          ok = await this.#store.renewLease(runId, entry.fence, until);
        } catch {
          return; // the store is unreachable: try again at the next beat
        }
        if (ok || entry.controller.signal.aborted) return;
        if (this.#held.get(runId) === entry) this.#held.delete(runId);
        this.#stats.lost++;
        entry.controller.abort(new Error('lease lost'));
      }),
    );
  }

  /** Asks for a dispatch pass soon (coalesced with one under way). */
  wake(): void {
    if (this.#stopped || this.#launch === undefined) return;
    if (this.#scanning !== undefined) {
      this.#again = true;
      return;
    }
    this.#scanning = this.#pass().finally(() => {
      this.#scanning = undefined;
      if (this.#again && !this.#stopped) {
        this.#again = false;
        this.wake();
      }
    });
  }

  /** Runs one dispatch pass now and waits for it (tests, shutdown). @returns the ids it claimed. */
  async dispatch(): Promise<string[]> {
    await this.#scanning;
    const claimed: string[] = [];
    this.#scanning = this.#pass(claimed).finally(() => (this.#scanning = undefined));
    await this.#scanning;
    return claimed;
  }

  async #pass(claimed: string[] = []): Promise<void> {
    const launch = this.#launch;
    if (launch === undefined) return;
    // Scopes with no slot here in this pass: not served by this replica, or full. Later pages leave
    // their runs out, so that any number of runs of scopes it does not serve never hides one it could
    // take. A page that only met full scopes ends the pass: the replica is busy, and paging on would
    // only read the queue again.
    const skip = new Set<string>();
    for (let page = 0; page < MAX_SCAN_PAGES; page++) {
      let runs: RunRecord[];
      try {
        runs = await this.#store.listClaimable(this.#now(), SCAN_PAGE, [...skip]);
      } catch {
        break; // the store is unreachable: nothing to claim this pass (upkeep still notes its health)
      }
      let passedOver = 0; // scopes this page showed that the replica does not serve
      const claimedBefore = claimed.length;
      for (const candidate of runs) {
        if (this.#stopped) return;
        if (this.#held.has(candidate.id) || skip.has(candidate.scope)) continue;
        if (!this.#serves(candidate.scope)) {
          skip.add(candidate.scope);
          passedOver++;
          continue;
        }
        const slot = await this.#reserve(candidate.scope).catch(() => undefined);
        if (slot === undefined) {
          skip.add(candidate.scope);
          continue;
        }
        let run: RunRecord | undefined;
        try {
          run = await this.#store.claimRun(candidate.id, this.id, this.leaseUntil(), this.#now());
        } catch {
          run = undefined;
        }
        if (run === undefined || this.#stopped) {
          slot(); // another replica was faster (or the store failed)
          continue;
        }
        this.#stats.claimed++;
        claimed.push(run.id);
        const lease = this.adopt(run);
        const taken = run;
        const life = (async () => {
          try {
            await launch(taken, lease, slot);
            this.#stats.resumed++;
          } catch {
            // the run manager records its own failures
          } finally {
            lease.release();
          }
        })();
        this.#lives.add(life);
        void life.finally(() => this.#lives.delete(life));
      }
      // A short page was the last; a page that neither claimed nor ruled out a scope would repeat.
      if (runs.length < SCAN_PAGE) break;
      if (passedOver === 0 && claimed.length === claimedBefore) break;
    }
    try {
      await this.#upkeep?.();
    } catch {
      // the store is unreachable, or the manager failed: the next pass tries again
    }
  }
}
