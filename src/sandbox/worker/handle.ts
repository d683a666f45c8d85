/**
 * The host's handle of one sandbox worker process: sends it programs, answers its binding calls
 * through the run's `dispatch`, and turns every way the process can end — a clean outcome, a crash,
 * a kill by the supervisor — into exactly one {@link RunOutcome}. Nothing the worker sends is
 * trusted: messages are shape-checked, calls in flight and log bytes are bounded per run, and a
 * worker that breaks those bounds is killed.
 */
import { pausableTimer } from '../../pause-clock.js';
import type { ChildProcess } from 'node:child_process';
import type { RunOutcome, SandboxBinding, SandboxLimits } from '../types.js';
import { killWalled, walledPid } from '../../wall/tree.js';
import { failedRun } from '../outcome.js';
import { deathOutcome, type KillReason } from './death.js';
import { ActiveRun, type WorkerRun } from './worker-run.js';
import {
  BINDINGS_CACHE,
  frameMessages,
  isWorkerMessage,
  Outbox,
  type HostMessage,
  type TranspileReply,
  type WorkerMessage,
} from './protocol.js';

/** Extra wall time past a run's own limit before the host kills its worker. */
export const WALL_GRACE_MS = 1_000;
/** Longest start of a worker process before it is killed as stuck. */
const STARTUP_TIMEOUT_MS = 30_000;
/** Longest transpile before the worker is called stuck and killed (oxc takes ~1 ms per 10 KB). */
const TRANSPILE_TIMEOUT_MS = 10_000;
/** How long an aborted run's worker has to report before it is killed. */
const ABORT_GRACE_MS = 1_000;

/**
 * A key per bindings list (the runtime caches one list per scope catalog, so the identity of the
 * list is the identity of the tree).
 */
const BINDING_KEYS = new WeakMap<readonly SandboxBinding[], number>();
let lastBindingKey = 0;

/** One worker process. */
export class WorkerHandle {
  private nextId = 0;
  /** Keys of the `tools` trees this worker holds, least recently used first. */
  private readonly sentTrees = new Set<number>();
  private readonly transpiles = new Map<number, (reply: TranspileReply | undefined) => void>();
  private active: ActiveRun | undefined;
  private killReason: KillReason | undefined;
  private fatal: WorkerMessage & { t: 'fatal' } = { t: 'fatal', reason: 'memory', message: '' };
  private fatalSeen = false;
  private exitSignal: string | null = null;
  private stderrTail = '';
  /** Resolves true once the worker has its first isolate ready, false if it died first. */
  readonly ready: Promise<boolean>;
  /** Resolves once the process has exited. */
  readonly exited: Promise<void>;
  /** True once the worker reported ready (a starting worker is busy compiling and loading). */
  started = false;
  /** The partition of the last run here (its isolate is warm for that partition). */
  partition: string | undefined;
  /** Runs served. */
  runs = 0;
  /** Set by the supervisor's monitor. */
  lastCpuMs: number | undefined;
  lastRssBytes = 0;
  /** When `lastCpuMs` was read (performance.now()). */
  lastSampleAt: number | undefined;
  /** CPU used while idle beyond the allowance, in ms (the supervisor's idle-burn bucket). */
  idleBurnMs = 0;
  /** When the worker last became idle (performance.now()). */
  idleSince = performance.now();
  /** What this turn sends to the worker, written as one frame at its end. */
  private readonly outbox = new Outbox<HostMessage>((frame) => {
    try {
      this.child.send(frame);
    } catch {
      this.kill('retired');
    }
  });

  /** Behind the wall: the worker's own process id, once bubblewrap has started it. */
  private innerPid: number | undefined;

  /** `walled`: `child` is bubblewrap, which runs the worker (decision record 032). */
  constructor(
    private readonly child: ChildProcess,
    readonly rssBudgetBytes: number,
    private readonly walled = false,
  ) {
    let onReady: (ok: boolean) => void = () => {};
    this.ready = new Promise((resolve) => (onReady = resolve));
    // A worker that never gets ready (a stuck start) is killed: its lease then fails over.
    const startup = setTimeout(() => this.kill('retired'), STARTUP_TIMEOUT_MS);
    startup.unref();
    // 'close', not 'exit': the exit can be seen before the last messages the worker wrote (a
    // `fatal` report just before it ended itself) are read; 'close' comes after the IPC channel
    // and stderr are drained.
    this.exited = new Promise((resolve) => {
      child.once('close', (_code, signal) => {
        this.exitSignal = signal;
        onReady(false);
        this.onExit();
        resolve();
      });
    });
    child.on('error', () => {
      // spawn failures end in 'exit' as well
    });
    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', (chunk: string) => {
      this.stderrTail = (this.stderrTail + chunk).slice(-2048);
    });
    child.on('message', (frame: unknown) => {
      const messages = frameMessages(frame);
      if (messages === undefined) {
        this.kill('retired');
        return;
      }
      // Each message of a frame is read as if it had come alone. Once one of them has cost the worker
      // its life (malformed, or refused by a per-run check), nothing after it in the frame is acted
      // on: a call behind it is never dispatched. (Frames as a whole are read as before.)
      const killedBefore = this.killedFor;
      for (const raw of messages) {
        if (this.killedFor !== killedBefore) return;
        if (!isWorkerMessage(raw)) {
          this.kill('retired');
          return;
        }
        if (raw.t === 'ready') {
          this.started = true;
          clearTimeout(startup);
          onReady(true);
        } else this.onMessage(raw);
      }
    });
  }

  /**
   * Whether this worker keeps the host's event loop alive: yes while it starts, serves a lease or
   * is being killed (its exit is awaited); an idle worker must not keep a finished CLI running.
   */
  keepAlive(on: boolean): void {
    const channel = this.child.channel as { ref?: () => void; unref?: () => void } | undefined;
    if (on) {
      this.child.ref();
      channel?.ref?.();
    } else {
      this.child.unref();
      channel?.unref?.();
    }
  }

  /**
   * The worker's process id: behind the wall the command bubblewrap runs (the host's child is
   * bubblewrap; /proc of the worker is what the watchdogs read), undefined until it has started.
   * Killing it ends the worker as killing the child does.
   */
  get pid(): number | undefined {
    const outer = this.child.pid;
    if (!this.walled || outer === undefined) return outer;
    this.innerPid ??= walledPid(outer);
    return this.innerPid;
  }

  /** True once the process has exited or is being killed. */
  get gone(): boolean {
    return (
      this.killReason !== undefined || this.child.exitCode !== null || this.exitSignal !== null
    );
  }

  /** Why the supervisor killed this worker; undefined while alive or when it died on its own. */
  get killedFor(): KillReason | undefined {
    return this.killReason;
  }

  /** True while a run is in progress. */
  get busy(): boolean {
    return this.active !== undefined;
  }

  /** The last lines the worker wrote to stderr (for the host's logs; never shown to a program). */
  get stderr(): string {
    return this.stderrTail;
  }

  /** When the current run started (performance.now()) and the process CPU then; undefined when idle. */
  get runClock():
    { startedAt: number; cpuAtStart: number | undefined; limits: SandboxLimits } | undefined {
    const run = this.active;
    return (
      run && { startedAt: run.startedAt, cpuAtStart: run.cpuAtStart, limits: run.request.limits }
    );
  }

  /**
   * Transpiles `code` in the worker. Resolves with the verdict and the id to run it by, or
   * undefined when the worker died meanwhile (the transpiler can crash on hostile input).
   */
  transpile(code: string): Promise<{ verdict: TranspileReply; program: number } | undefined> {
    const id = ++this.nextId;
    return new Promise((resolve) => {
      if (this.gone) {
        resolve(undefined);
        return;
      }
      const timer = setTimeout(() => this.kill('retired'), TRANSPILE_TIMEOUT_MS);
      this.transpiles.set(id, (verdict) => {
        clearTimeout(timer);
        resolve(verdict === undefined ? undefined : { verdict, program: id });
      });
      this.send({ t: 'transpile', id, code });
    });
  }

  /** Runs the program transpiled as `program`. Never rejects. */
  run(program: number, request: WorkerRun): Promise<RunOutcome> {
    return this.start(++this.nextId, program, request);
  }

  /**
   * Transpiles `code` and runs it, in one message (no round trip between the two): `verdict` as
   * {@link transpile}'s; when it is not `ok` nothing ran and `outcome` is not the program's.
   * `outcome` never rejects.
   */
  transpileAndRun(
    code: string,
    request: WorkerRun,
  ): { verdict: Promise<TranspileReply | undefined>; outcome: Promise<RunOutcome> } {
    const id = ++this.nextId;
    // A worker that cannot take the run never answers: the verdict says so at once (undefined).
    const refused = this.gone || this.active !== undefined;
    const verdict = new Promise<TranspileReply | undefined>((resolve) => {
      if (refused) {
        resolve(undefined);
        return;
      }
      const timer = setTimeout(() => this.kill('retired'), TRANSPILE_TIMEOUT_MS);
      this.transpiles.set(id, (reply) => {
        clearTimeout(timer);
        // The worker sends nothing more for a program that did not transpile: the run ends here.
        const run = this.active;
        if (reply?.ok === false && run?.id === id && run.outcome === undefined) {
          run.outcome = failedRun('internal', 'not run: the program did not transpile');
          run.settle();
        }
        resolve(reply);
      });
    });
    return { verdict, outcome: this.start(id, { code }, request) };
  }

  private start(
    id: number,
    program: number | { code: string },
    request: WorkerRun,
  ): Promise<RunOutcome> {
    const startedAt = performance.now();
    if (this.gone || this.active !== undefined)
      return Promise.resolve(failedRun('crashed', 'sandbox failure: the worker is not available'));
    this.runs++;
    this.partition = request.partition;
    return new Promise<RunOutcome>((resolve) => {
      const run = new ActiveRun(id, request, startedAt, this.lastCpuMs);
      this.active = run;
      const wall = pausableTimer(
        request.clock,
        request.limits.wallMs + WALL_GRACE_MS,
        () => this.kill('wall'),
        (paused) => this.send({ t: 'pause', id, paused }),
      );
      let abortTimer: NodeJS.Timeout | undefined;
      const onAbort = (): void => {
        this.send({ t: 'abort', id });
        abortTimer ??= setTimeout(() => this.kill('aborted'), ABORT_GRACE_MS);
      };
      request.signal?.addEventListener('abort', onAbort, { once: true });
      run.settle = () => {
        run.settle = () => {};
        wall.cancel();
        if (abortTimer !== undefined) clearTimeout(abortTimer);
        request.signal?.removeEventListener('abort', onAbort);
        const outcome = run.outcome ?? this.deathOutcome(run);
        void run.end().then(() => {
          if (this.active === run) this.active = undefined;
          resolve({
            ...outcome,
            logs: run.logs,
            stats: { ...outcome.stats, logBytes: run.logBytes },
          });
        });
      };
      this.send({
        t: 'run',
        id,
        program,
        ...this.bindingsFor(request.bindings),
        limits: request.limits,
        partition: request.partition,
        ...(request.durable === undefined
          ? {}
          : {
              durable: { clock: [...request.durable.clock], random: [...request.durable.random] },
            }),
      });
      if (request.signal?.aborted === true) onAbort();
    });
  }

  /** The key of `bindings`, with the list itself when this worker has not been sent it lately. */
  private bindingsFor(bindings: readonly SandboxBinding[]): {
    bindingsKey: number;
    bindings?: SandboxBinding[];
  } {
    let key = BINDING_KEYS.get(bindings);
    if (key === undefined) {
      key = ++lastBindingKey;
      BINDING_KEYS.set(bindings, key);
    }
    const known = this.sentTrees.delete(key);
    this.sentTrees.add(key);
    for (const old of this.sentTrees)
      if (this.sentTrees.size > BINDINGS_CACHE) this.sentTrees.delete(old);
    return known ? { bindingsKey: key } : { bindingsKey: key, bindings: [...bindings] };
  }

  /** Ends the process now (SIGKILL: isolated-vm would wait for a stuck isolate at a clean exit). */
  kill(reason: KillReason): void {
    if (this.killReason !== undefined) return;
    this.killReason = reason;
    this.keepAlive(true);
    killWalled(this.child, this.walled);
  }

  private send(message: HostMessage): void {
    this.outbox.send(message);
  }

  private onMessage(message: Exclude<WorkerMessage, { t: 'ready' }>): void {
    if (message.t === 'fatal') {
      this.fatal = message;
      this.fatalSeen = true;
      this.kill(message.reason === 'memory' ? 'memory' : 'retired');
      return;
    }
    if (message.t === 'transpiled') {
      const waiter = this.transpiles.get(message.id);
      this.transpiles.delete(message.id);
      waiter?.(message.verdict);
      return;
    }
    const run = this.active;
    if (run === undefined || run.id !== message.id || run.outcome !== undefined) return;
    // A log over the run's bound, or a call the worker should not have sent, costs it its life.
    if (message.t === 'log') {
      if (!run.log(message.entry)) this.kill('retired');
    } else if (message.t === 'call') {
      const answered = run.call(
        message.call,
        message.tool,
        message.args,
        message.trace,
        (reply) => {
          if (this.active === run && run.outcome === undefined) this.send(reply);
        },
      );
      if (!answered) this.kill('retired');
    } else {
      run.outcome = message.outcome;
      run.settle();
    }
  }

  private onExit(): void {
    for (const waiter of this.transpiles.values()) waiter(undefined);
    this.transpiles.clear();
    this.active?.settle();
  }

  /** The outcome of a run whose worker ended before it reported one. */
  private deathOutcome(run: ActiveRun): RunOutcome {
    return deathOutcome(
      {
        killedFor: this.killReason,
        fatal: this.fatalSeen ? this.fatal.reason : undefined,
        exit: this.exitSignal ?? `exit code ${String(this.child.exitCode)}`,
        rssBudgetBytes: this.rssBudgetBytes,
      },
      run.request.limits,
      performance.now() - run.startedAt,
    );
  }
}
