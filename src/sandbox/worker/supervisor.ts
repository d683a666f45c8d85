/**
 * The supervisor of the sandbox worker processes. Each worker serves one run at a time (decision
 * record 016): a program that crashes, pins or bloats its process fails only its own run. The
 * supervisor hands workers out (preferring one whose warm isolate already belongs to the run's
 * partition), keeps spare workers started, and polls every worker from the host (RSS and CPU from
 * /proc): over its memory budget, over its run's CPU limit, burning CPU while idle, or over the
 * total budget of all workers → killed. After a run that did not end cleanly the worker is
 * replaced, so a terminated isolate that keeps running native code never serves again.
 */
import { availableParallelism } from 'node:os';
import { IsocodeError } from '../../errors.js';
import type { RunOutcome, SandboxLimits } from '../types.js';
import type { KillReason } from './death.js';
import { WorkerHandle } from './handle.js';
import { sampleProcess } from './proc.js';
import { spawnWorker } from './spawn.js';
import { NO_WALL, type Wall } from '../../wall/wall.js';
import { integerOption } from '../../options.js';

/** Options of the sandbox worker processes. */
export interface WorkerPoolOptions {
  /**
   * Most worker processes alive at once, which is also the most runs at once (each idle worker
   * is ~60 MiB; a busy one up to `rssBudgetMb`).
   * @default max(4, 2 × available cores)
   */
  maxWorkers?: number | undefined;
  /**
   * Idle workers kept started (with a warm isolate) so that a run never waits for a process start.
   * @default 2
   */
  spareWorkers?: number | undefined;
  /**
   * Resident memory one worker may use, in MiB: V8 heap, code, ICU and array buffers of its
   * program included. Over it the worker is killed; a run on it fails with kind `memory`.
   * @default 256
   */
  rssBudgetMb?: number | undefined;
  /**
   * Resident memory of all workers together, in MiB; over it the largest worker is killed.
   * @default maxWorkers × rssBudgetMb
   */
  totalRssBudgetMb?: number | undefined;
  /**
   * How often the host polls each worker's memory and CPU time while runs happen, in ms (once no
   * run has ended for 2 s, every second or this, whichever is longer).
   * @default 50
   */
  monitorIntervalMs?: number | undefined;
  /**
   * Runs one worker serves before it is replaced by a fresh process.
   * @default 2000
   */
  maxRunsPerWorker?: number | undefined;
}

/** Counters of the worker processes. */
export interface WorkerPoolStats {
  /** Worker processes alive (idle, starting or serving a run). */
  workers: number;
  /** Workers serving a lease. */
  busy: number;
  /** Processes started since the pool started. */
  spawned: number;
  /** Workers that died on their own (a crash). */
  crashed: number;
  /** Workers the supervisor killed, by reason. */
  killed: Record<KillReason, number>;
  /** Resident memory of all workers at the last poll, in bytes. */
  rssBytes: number;
  /** Process ids of the workers alive (for operators and fault-injection tests). */
  pids: number[];
}

/** CPU a run may use beyond its limit before the host kills its worker (the worker stops it first). */
const CPU_GRACE_MS = 1_000;
/**
 * An idle worker burning CPU is killed by a leaky bucket: the CPU it uses while idle fills it, and it
 * drains at {@link IDLE_CPU_SHARE} of a core; past {@link IDLE_BURN_BUDGET_MS} the worker is killed.
 * A worker spinning on a whole core goes in ~0.5 s; one the machine's load holds to a fifth of a
 * core still goes within ~3.5 s. The first version counted polls in a row over half a core: on a
 * machine loaded enough that the spinner never gets half a core it would burn on, and /proc's 10 ms
 * ticks at a 50 ms poll can make one poll look cool and reset the count.
 */
const IDLE_CPU_SHARE = 0.05;
const IDLE_BURN_BUDGET_MS = 500;
const MIB = 1024 * 1024;
/** Idle workers beyond the spare ones exit after this long without a run. */
const IDLE_TIMEOUT_MS = 30_000;
/**
 * Once no worker has had a run for this long, the pool polls every {@link QUIET_POLL_MS} instead of
 * every `monitorIntervalMs`. What the fast poll watches for in an idle worker starts when a run ends
 * (an isolate left spinning; a program has no timers and its FinalizationRegistry callbacks stop with
 * it), so the first seconds after a run are polled as fast as a run; an idle worker's memory cannot
 * grow unless its isolate spins, which the slow poll still catches (a spinning worker fills the
 * idle-burn bucket within one slow poll). The workers' own memory checks slow down the same way
 * (they receive both figures). Measured: docs/decisions/034-speed-round-3.md §7.
 */
const QUIET_AFTER_MS = 2_000;
const QUIET_POLL_MS = 1_000;

const positive = (name: string, value: number, min = 1): number => integerOption(name, value, min);

/**
 * A clean end: the worker's isolate stopped by itself, or on the host's abort the worker reported
 * within its grace (a durable run that parks, a cancelled one: the worker disposes that isolate and
 * is well; one that does not report in time is killed by its handle). The worker may serve again; a
 * worker whose isolate keeps a core busy after the run is killed by the idle-burn check.
 */
function clean(outcome: RunOutcome): boolean {
  return (
    outcome.ok ||
    outcome.kind === 'exception' ||
    outcome.kind === 'invalid-output' ||
    outcome.kind === 'aborted'
  );
}

/** Starts, hands out, watches and replaces sandbox worker processes. */
export class WorkerPool {
  readonly maxWorkers: number;
  private readonly spare: number;
  private readonly rssBudget: number;
  private readonly totalBudget: number;
  private readonly interval: number;
  private readonly maxRuns: number;
  private readonly workers = new Set<WorkerHandle>();
  private readonly leased = new Set<WorkerHandle>();
  private readonly idle: WorkerHandle[] = [];
  private timer: NodeJS.Timeout | undefined;
  /** The delay the pending poll was scheduled with. */
  private timerDelay = 0;
  /** When a run last ended (performance.now()). */
  private lastRunEndedAt = 0;
  private closed = false;
  private spawned = 0;
  private crashed = 0;
  private readonly killed: Record<KillReason, number> = {
    memory: 0,
    cpu: 0,
    wall: 0,
    burn: 0,
    aborted: 0,
    retired: 0,
    closed: 0,
  };

  /** @throws IsocodeError `INVALID_CONFIG` for invalid options. */
  constructor(
    options: WorkerPoolOptions,
    private readonly limits: SandboxLimits,
    /** The second wall the workers start behind (decision record 032). @default none */
    private readonly wall: Wall = NO_WALL,
  ) {
    this.maxWorkers = positive(
      'maxWorkers',
      options.maxWorkers ?? Math.max(4, 2 * availableParallelism()),
    );
    this.spare = Math.min(
      this.maxWorkers,
      positive('spareWorkers', options.spareWorkers ?? Math.min(2, availableParallelism()), 0),
    );
    const rssMb = positive('rssBudgetMb', options.rssBudgetMb ?? 256, 64);
    this.rssBudget = rssMb * MIB;
    this.totalBudget =
      positive('totalRssBudgetMb', options.totalRssBudgetMb ?? this.maxWorkers * rssMb, 64) * MIB;
    this.interval = positive('monitorIntervalMs', options.monitorIntervalMs ?? 50, 5);
    this.maxRuns = positive('maxRunsPerWorker', options.maxRunsPerWorker ?? 2000);
  }

  /**
   * Starts the spare workers and waits until one of them is ready. The first starts alone and the
   * others once it is ready: a first run needs one worker, and on a small machine workers started
   * together each start slower (2 cores: a runtime's setup 1,020 → 780 ms, decision 034 §8).
   */
  async warmup(): Promise<void> {
    if (this.spare === 0 || this.closed) return;
    const idleOrStarting = (): WorkerHandle[] =>
      [...this.workers].filter((w) => !this.leased.has(w) && !w.gone);
    if (idleOrStarting().length === 0) {
      const first = this.start();
      if (first !== undefined) this.idle.push(first);
    }
    const waiting = idleOrStarting();
    // Every worker leased (none could start): those show that the pool can start one.
    let ready = await anyReady(waiting.length > 0 ? waiting : [...this.workers]);
    this.refill();
    // The first start failed: the others (started by refill) are the second chance.
    if (!ready) ready = await anyReady(idleOrStarting());
    if (!ready && !this.closed)
      throw new IsocodeError('INTERNAL_ERROR', 'could not start a sandbox worker process');
  }

  /**
   * A ready worker for one run of `partition`, held until {@link release}. The caller bounds how
   * many leases are out at once (admission control) to at most {@link maxWorkers}.
   * @throws IsocodeError `SHUTTING_DOWN` after close; `OVERLOADED` when every worker is leased;
   * `INTERNAL_ERROR` when no worker process could be started.
   */
  async lease(partition: string): Promise<WorkerHandle> {
    for (let attempt = 0; attempt < 3; attempt++) {
      if (this.closed) throw new IsocodeError('SHUTTING_DOWN', 'the sandbox is shutting down');
      const worker = this.takeIdle(partition) ?? this.start();
      if (worker === undefined)
        throw new IsocodeError('OVERLOADED', 'every sandbox worker is busy', {
          details: { retryAfterSeconds: 1 },
        });
      this.leased.add(worker);
      this.schedule();
      worker.keepAlive(true);
      if (await worker.ready) return worker;
      this.leased.delete(worker);
    }
    throw new IsocodeError('INTERNAL_ERROR', 'could not start a sandbox worker process');
  }

  /** Gives a leased worker back, after its run's `outcome` (if it ran one). */
  release(worker: WorkerHandle, outcome?: RunOutcome): void {
    if (!this.leased.delete(worker)) return;
    this.lastRunEndedAt = performance.now();
    if (worker.gone) return;
    if (this.closed) worker.kill('closed');
    else if (outcome !== undefined && !clean(outcome)) worker.kill('retired');
    else if (worker.runs >= this.maxRuns || worker.lastRssBytes > this.rssBudget * 0.75)
      worker.kill('retired');
    else {
      worker.idleBurnMs = 0;
      worker.idleSince = performance.now();
      worker.keepAlive(false);
      this.idle.push(worker);
    }
    this.scheduleRefill();
  }

  /** Current counters. */
  stats(): WorkerPoolStats {
    let rssBytes = 0;
    for (const w of this.workers) rssBytes += w.lastRssBytes;
    return {
      workers: this.workers.size,
      busy: this.leased.size,
      spawned: this.spawned,
      crashed: this.crashed,
      killed: { ...this.killed },
      rssBytes,
      pids: this.pids(),
    };
  }

  /** The process ids of the workers alive (for operators and fault-injection tests). */
  pids(): number[] {
    return [...this.workers].flatMap((w) => (w.pid === undefined ? [] : [w.pid]));
  }

  /** Kills every worker (runs in progress end with kind `aborted`) and waits for them to exit. */
  async close(): Promise<void> {
    this.closed = true;
    for (const worker of this.workers) worker.kill('closed');
    await Promise.all([...this.workers].map((w) => w.exited));
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private takeIdle(partition: string): WorkerHandle | undefined {
    const live = this.idle.filter((w) => !w.gone);
    this.idle.length = 0;
    this.idle.push(...live);
    // Its isolate warm for this partition, else a ready one that never ran, else any ready one, else
    // the most recent one (still starting: the lease waits for it).
    const last = (test: (w: WorkerHandle) => boolean): number => {
      for (let i = live.length - 1; i >= 0; i--) if (test(live[i] as WorkerHandle)) return i;
      return -1;
    };
    let pick = last((w) => w.partition === partition);
    if (pick < 0) pick = last((w) => w.started && w.partition === undefined);
    if (pick < 0) pick = last((w) => w.started);
    if (pick < 0) pick = live.length - 1;
    return pick < 0 ? undefined : this.idle.splice(pick, 1)[0];
  }

  private start(): WorkerHandle | undefined {
    // A worker being killed (SIGKILL sent, exit not yet seen) no longer counts: it serves nothing.
    let live = 0;
    for (const w of this.workers) if (!w.gone) live++;
    if (this.closed || live >= this.maxWorkers) return undefined;
    const worker = new WorkerHandle(
      spawnWorker(
        {
          limits: this.limits,
          rssBudgetBytes: this.rssBudget,
          selfCheckMs: this.interval,
          quietAfterMs: QUIET_AFTER_MS,
          quietCheckMs: Math.max(this.interval, QUIET_POLL_MS),
          watchdogIntervalMs: 5,
        },
        this.wall,
      ),
      this.rssBudget,
      this.wall.status.active,
    );
    this.spawned++;
    this.workers.add(worker);
    void worker.ready.then(() => {
      if (!this.leased.has(worker) && !worker.gone) worker.keepAlive(false);
    });
    void worker.exited.then(() => this.forget(worker));
    this.schedule();
    return worker;
  }

  /**
   * Schedules the next poll: in `interval` while a worker is leased or a run ended less than
   * {@link QUIET_AFTER_MS} ago, else in {@link QUIET_POLL_MS}; a lease brings a slow poll forward.
   */
  private schedule(): void {
    if (this.closed || this.workers.size === 0) return;
    const busy = this.leased.size > 0 || performance.now() - this.lastRunEndedAt < QUIET_AFTER_MS;
    const delay = busy ? this.interval : Math.max(this.interval, QUIET_POLL_MS);
    if (this.timer !== undefined) {
      if (delay >= this.timerDelay) return;
      clearTimeout(this.timer);
    }
    this.timerDelay = delay;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.monitor();
      this.schedule();
    }, delay).unref();
  }

  private forget(worker: WorkerHandle): void {
    this.workers.delete(worker);
    const i = this.idle.indexOf(worker);
    if (i >= 0) this.idle.splice(i, 1);
    const reason = worker.killedFor;
    if (reason === undefined) this.crashed++;
    else this.killed[reason]++;
    if (this.workers.size === 0 && this.timer !== undefined) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    this.scheduleRefill();
  }

  private refillScheduled = false;

  private scheduleRefill(): void {
    if (this.refillScheduled || this.closed) return;
    this.refillScheduled = true;
    setImmediate(() => {
      this.refillScheduled = false;
      this.refill();
    });
  }

  /** Starts workers until `spare` are idle or starting. */
  private refill(): void {
    const idle = (): number =>
      [...this.workers].filter((w) => !this.leased.has(w) && !w.gone).length;
    while (!this.closed && idle() < this.spare && this.start() !== undefined) {
      // started one more; its 'ready' puts it among the idle ones
    }
    for (const w of this.workers)
      if (!this.leased.has(w) && !w.gone && !this.idle.includes(w)) this.idle.push(w);
  }

  /** One poll of every worker's memory and CPU (see the module comment). */
  private monitor(): void {
    const now = performance.now();
    let idleCount = this.idle.length;
    let total = 0;
    let largest: WorkerHandle | undefined;
    for (const worker of this.workers) {
      if (worker.gone || worker.pid === undefined) continue;
      const sample = sampleProcess(worker.pid);
      if (sample === undefined) continue;
      const previous = worker.lastCpuMs;
      const previousAt = worker.lastSampleAt;
      worker.lastCpuMs = sample.cpuMs;
      worker.lastSampleAt = now;
      total += sample.rssBytes;
      if (largest === undefined || sample.rssBytes > largest.lastRssBytes) largest = worker;
      worker.lastRssBytes = sample.rssBytes;
      if (sample.rssBytes > this.rssBudget) {
        worker.kill('memory');
        continue;
      }
      const clock = worker.runClock;
      if (clock !== undefined) {
        const used = sample.cpuMs - (clock.cpuAtStart ?? sample.cpuMs);
        if (used > clock.limits.cpuMs + CPU_GRACE_MS) worker.kill('cpu');
      } else if (
        !this.leased.has(worker) &&
        worker.started &&
        previous !== undefined &&
        previousAt !== undefined
      ) {
        const used = sample.cpuMs - previous;
        worker.idleBurnMs = Math.max(
          0,
          worker.idleBurnMs + used - (now - previousAt) * IDLE_CPU_SHARE,
        );
        if (worker.idleBurnMs > IDLE_BURN_BUDGET_MS) worker.kill('burn');
        else if (now - worker.idleSince > IDLE_TIMEOUT_MS && idleCount > this.spare) {
          idleCount--;
          worker.kill('retired');
        }
      }
    }
    if (total > this.totalBudget && largest !== undefined) largest.kill('memory');
  }
}

/** Resolves true once one of `workers` is ready, false when none of them will be (or there are none). */
function anyReady(workers: readonly WorkerHandle[]): Promise<boolean> {
  return new Promise((resolve) => {
    let left = workers.length;
    if (left === 0) resolve(false);
    for (const w of workers)
      void w.ready.then((ok) => {
        left -= 1;
        if (ok || left === 0) resolve(ok);
      });
  });
}
