/**
 * One program in one prepared context: compile and start the program, watch its clocks, and settle.
 * Settlement order: a killed isolate is disposed at once; the outcome is decided; the run's signal
 * aborts (in-flight dispatches see it), calls waiting for a slot are refused, and the outcome is
 * returned only after every started dispatch has settled. Then the run's references and its context
 * are released, and {@link ProgramRun.reusable} tells the pool whether the isolate may serve
 * another run: only after a clean end (returned, threw, invalid output), never after a kill or a
 * disposal. Everything a run receives from the isolate goes through references made for this run
 * alone and released with it, so nothing of one run can reach the next one on the same isolate.
 */
import { thrownText } from '../errors.js';
import {
  MESSAGE,
  PROGRAM_FILENAME,
  PROGRAM_SUFFIX,
  programPrefix,
} from '../../sdk-templates/isolate/protocol.js';
import type { PreparedBindings } from './bindings.js';
import { readCallTrace } from './call-trace.js';
import { HostBridge } from './host-bridge.js';
import { LogSink } from './log-sink.js';
import { Arrivals } from './arrivals.js';
import { decodeOutcome, splitOutcome, type Decoded } from './outcome.js';
import { releaseContext, type PreparedContext, type SandboxIsolate } from './sandbox-isolate.js';
import type { RunOutcome, RunRequest, SandboxLimits } from './types.js';
import type { Watchdog } from './watchdog.js';
import { cutText } from '../text/clip.js';

/** Why the host stopped a program. */
export type KillReason = 'cpu' | 'wall' | 'log-limit' | 'aborted' | 'closed' | 'protocol';

/** What a run needs besides its isolate. */
export interface ProgramRunOptions {
  request: RunRequest;
  /** Bindings already validated (no `run_code`, no duplicates). */
  bindings: PreparedBindings;
  limits: SandboxLimits;
  watchdog: Watchdog;
  /** Replies enter the isolate synchronously on this thread (see `SandboxPoolOptions.syncReplies`). */
  syncReplies?: boolean | undefined;
  /** Time it took to obtain the isolate, in ms (reported in stats). */
  isolateMs: number;
}

/** Longest wait for messages sent before the outcome, in ms (they normally arrive within microseconds). */
const DRAIN_GRACE_MS = 1_000;
const COMPILE_POSITION = /\s*\[isocode:program\.js:(\d+):(\d+)\]\s*$/;

function killed(reason: KillReason, limits: SandboxLimits): Decoded {
  switch (reason) {
    case 'cpu':
      return {
        ok: false,
        kind: 'timeout',
        message: `the program used more than ${limits.cpuMs} ms of CPU time (CPU time limit)`,
      };
    case 'wall':
      return {
        ok: false,
        kind: 'timeout',
        message: `the program ran for more than ${limits.wallMs} ms (wall-clock limit); it may be awaiting something that never settles`,
      };
    case 'log-limit':
      return {
        ok: false,
        kind: 'output-limit',
        message: `console output exceeded ${limits.maxLogBytes} bytes (log limit); the output up to the limit is kept`,
      };
    case 'aborted':
      return { ok: false, kind: 'aborted', message: 'the run was aborted' };
    case 'closed':
      return {
        ok: false,
        kind: 'aborted',
        message: 'the run was aborted: the sandbox is shutting down',
      };
    case 'protocol':
      return {
        ok: false,
        kind: 'internal',
        message:
          'the sandbox sent a message outside its protocol; the run was stopped and its isolate discarded',
      };
  }
}

function firstLine(error: unknown): string {
  const message = thrownText(error);
  return cutText(message.split('\n')[0] ?? '', 500);
}

/** Programs up to this many UTF-16 units are compiled with a synchronous call (no thread hop). */
const SYNC_COMPILE_MAX = 64 * 1024;

/** A clean end: the isolate may serve another run. */
function isClean(decoded: Decoded): boolean {
  return decoded.ok || decoded.kind === 'exception' || decoded.kind === 'invalid-output';
}

/** A running program. Create with {@link ProgramRun.start}. */
export class ProgramRun {
  private killReason: KillReason | undefined;
  /** The kill came after the outcome: it only disposes the isolate (a console overflow aside). */
  private killedAfterOutcome = false;
  /** The isolate vanished without a kill of ours (isolated-vm's memory limit). */
  private lost = false;
  private finished = false;
  private outcomeText: string | undefined;
  private wake: () => void = () => {};
  private readonly prepared: PreparedContext;
  /** Settles with the outcome, after every started dispatch has settled. Never rejects. */
  readonly done: Promise<RunOutcome>;
  /** Once {@link done} has settled: true when the isolate ended the run cleanly and may be reused. */
  reusable = false;

  private constructor(
    private readonly isolate: SandboxIsolate,
    private readonly options: ProgramRunOptions,
  ) {
    this.prepared = isolate.take(options.bindings.index, options.request.partition ?? '');
    this.done = this.execute();
  }

  /** Starts `options.request` in the prepared context of `isolate`. */
  static start(isolate: SandboxIsolate, options: ProgramRunOptions): ProgramRun {
    return new ProgramRun(isolate, options);
  }

  /** Stops the program now (disposes its isolate); no effect once the run is over. */
  kill(reason: KillReason): void {
    if (this.finished || this.killReason !== undefined) return;
    this.killReason = reason;
    this.killedAfterOutcome = this.outcomeText !== undefined;
    this.isolate.dispose();
    this.wake();
  }

  private async execute(): Promise<RunOutcome> {
    const { request, limits, watchdog } = this.options;
    const sbx = this.isolate;
    const { context, entry, port } = this.prepared;
    const logs = new LogSink(limits.maxLogBytes, request.onLog, () => this.kill('log-limit'));
    const bridge = new HostBridge({
      tools: this.options.bindings.tools,
      dispatch: request.dispatch,
      limits,
      onCall: request.onCall,
    });
    // `cpuTime` is cumulative per isolate: the budget is measured from this run's start (the isolate
    // is idle here, or installing this run's scope: its context was prepared by an awaited call).
    const cpuStart = sbx.cpuMs() ?? 0;
    let cpuLast = cpuStart;
    const wallStart = performance.now();
    const clock = request.clock;
    const pausedAtStart = clock?.pausedMs(wallStart) ?? 0;
    const wallUsed = (now: number): number =>
      clock ? clock.elapsed(wallStart, pausedAtStart, now) : now - wallStart;
    const watched = {
      check: (now: number): void => {
        if (sbx.isolate.isDisposed) {
          if (this.killReason === undefined && !this.lost) {
            this.lost = true;
            this.wake();
          }
          return;
        }
        cpuLast = sbx.cpuMs() ?? cpuLast;
        if (cpuLast - cpuStart > limits.cpuMs) this.kill('cpu');
        else if (wallUsed(now) > limits.wallMs) this.kill('wall');
      },
    };
    const arrivals = new Arrivals();
    // A reply resumes the program: one-way through isolated-vm's thread pool, or (a sandbox worker
    // process, `syncReplies`) on this thread at once, the resumed slice bounded by what is left of
    // the run's CPU and wall budgets (the watchdog cannot tick meanwhile; a slice's wall time is
    // never less than its CPU time, so the CPU limit holds). isolated-vm runs the isolate's
    // microtasks — the program's continuation — inside the timed call.
    let firstSlice = true;
    const deliver = (a: number | string, b: string): void => {
      if (!this.options.syncReplies) {
        try {
          entry.applyIgnored(undefined, [a, b]);
        } catch {
          // the isolate is gone
        }
        return;
      }
      const now = performance.now();
      const cpuLeft = limits.cpuMs - ((sbx.cpuMs() ?? cpuLast) - cpuStart);
      const wallLeft = limits.wallMs - wallUsed(now);
      const left = Math.min(cpuLeft, wallLeft);
      // isolated-vm's timers share threads: a timer joins one whose next deadline is earlier than
      // its own, else it starts a thread (~15 µs). A run's deadlines `now + left` never move
      // earlier (the isolate's CPU time cannot grow faster than the wall clock), so the first slice
      // rounds down and every later one rounds up plus 1 ms: each later timer joins the thread of
      // the first. The limit is overshot by at most 2 ms (the watchdog's own tick is 5 ms).
      const timeout = firstSlice ? Math.floor(left) : Math.ceil(left) + 1;
      firstSlice = false;
      if (timeout <= 0) {
        this.kill(cpuLeft <= wallLeft ? 'cpu' : 'wall');
        return;
      }
      try {
        entry.applySync(undefined, [a, b], { timeout });
      } catch {
        // The isolate is gone (the watchdog reports it), a guest promise rejection was left
        // unhandled in the slice (ignored, as one-way calls ignore it), or the slice timed out:
        // only the time spent tells the last apart, so a guest cannot fake it.
        if (performance.now() - now >= timeout) this.kill(cpuLeft <= wallLeft ? 'cpu' : 'wall');
      }
    };
    // Replies that are ready in one turn (the answers of a `Promise.all`, from one frame) enter the
    // isolate together, in one call: `(id, reply)` for one, `(indexJson, replies)` for several. A
    // reply that leaves no call unanswered goes in at once (a sequential program waits for no tick).
    let awaiting = 0;
    let readyIds: number[] = [];
    let readyReplies: string[] = [];
    const flushReplies = (): void => {
      const ids = readyIds;
      const replies = readyReplies;
      readyIds = [];
      readyReplies = [];
      if (ids.length === 0) return;
      if (this.outcomeText !== undefined || this.killReason !== undefined || this.finished) return;
      if (ids.length === 1) deliver(ids[0] as number, replies[0] as string);
      else
        deliver(
          JSON.stringify(ids.map((id, i) => [id, (replies[i] as string).length])),
          replies.join(''),
        );
    };
    const ended = new Promise<void>((resolve) => (this.wake = resolve));
    // The context's port: every message of the isolate arrives here, one-way (`MESSAGE`). Binding
    // calls are answered through the context's `entry` as `(id, reply)`, one-way too. Replies stop
    // once the outcome is in or the run is killed: a late reply is dropped here and never enters
    // the isolate.
    const durable = request.durable !== undefined;
    // Only the bootstrap sends, and only these three shapes: anything else (an unknown kind, an
    // outcome that is not text, a call without an integer id) means the isolate's side is broken,
    // and the run ends now instead of waiting for its wall limit.
    port.attach((kind, a, b, c, d, e) => {
      if (kind === MESSAGE.outcome) {
        if (typeof a !== 'string') this.kill('protocol');
        else if (this.outcomeText === undefined) {
          this.outcomeText = a;
          this.wake();
        }
        return;
      }
      if (kind === MESSAGE.log) {
        arrivals.arrive();
        logs.push(a, b);
        return;
      }
      if (kind !== MESSAGE.call || typeof a !== 'number' || !Number.isSafeInteger(a)) {
        this.kill('protocol');
        return;
      }
      arrivals.arrive();
      // A durable run's call carries its trace; a malformed one (null) is refused by the bridge.
      const trace = durable ? (readCallTrace(d, e, request.mapPosition) ?? null) : undefined;
      awaiting++;
      void bridge.handle(b, c, trace).then((reply) => {
        awaiting--;
        if (this.outcomeText !== undefined || this.killReason !== undefined || this.finished)
          return;
        readyReplies.push(reply);
        if (awaiting === 0) {
          readyIds.push(a);
          flushReplies();
        } else if (readyIds.push(a) === 1) process.nextTick(flushReplies);
      });
    });

    const onAbort = (): void => this.kill('aborted');
    request.signal?.addEventListener('abort', onAbort, { once: true });
    watchdog.add(watched);
    if (request.signal?.aborted === true) this.kill('aborted');

    let raw: { sent: number; body: string } | undefined;
    let error: unknown;
    let stage: 'compile' | 'run' | 'drain' = 'compile';
    try {
      // The program's script hands the run's limits and its function to the hook the scope's
      // installation defined (see PROGRAM_HOOK); the line offset keeps the program's line
      // numbers. Compiling only parses (no guest code runs), so small programs skip the thread hop.
      const tape = request.durable;
      const recorded = tape === undefined ? undefined : JSON.stringify([tape.clock, tape.random]);
      const source = programPrefix(limits, recorded) + request.js + PROGRAM_SUFFIX;
      const origin = { filename: PROGRAM_FILENAME, lineOffset: -1 };
      const script =
        source.length <= SYNC_COMPILE_MAX
          ? sbx.isolate.compileScriptSync(source, origin)
          : await sbx.isolate.compileScript(source, origin);
      stage = 'run';
      // One-way; the isolate runs it after the installation of the scope (queued before).
      script.runIgnored(context, { release: true });
      await ended;
      if (
        this.outcomeText !== undefined &&
        (this.killReason === undefined || this.killedAfterOutcome)
      ) {
        raw = splitOutcome(this.outcomeText);
        stage = 'drain';
        // Logs and calls sent before the outcome may still be on their way: wait for them.
        if (raw !== undefined)
          await arrivals.waitFor(
            raw.sent,
            Math.min(DRAIN_GRACE_MS, limits.wallMs - wallUsed(performance.now())),
          );
      }
    } catch (e) {
      error = e;
    }
    const cpuEnd = sbx.cpuMs() ?? cpuLast;
    const wallMs = performance.now() - wallStart;
    const disposedByIsolatedVm =
      this.lost || (this.killReason === undefined && sbx.isolate.isDisposed);

    let decoded: Decoded;
    // Once the outcome is in, only a console overflow (of output sent before it) changes it.
    const kill =
      this.killedAfterOutcome && this.killReason !== 'log-limit' ? undefined : this.killReason;
    if (kill !== undefined) decoded = killed(kill, limits);
    else if (stage === 'drain') {
      decoded =
        raw === undefined
          ? { ok: false, kind: 'internal', message: 'the sandbox returned an unreadable outcome' }
          : decodeOutcome(raw.body, limits.maxResultBytes, request.mapPosition);
    } else if (disposedByIsolatedVm || /memory limit/i.test(firstLine(error))) {
      decoded = {
        ok: false,
        kind: 'memory',
        message: `the program exceeded its memory limit of ${limits.memoryMb} MiB`,
      };
    } else if (stage === 'compile') decoded = this.compileFailure(error);
    else decoded = { ok: false, kind: 'internal', message: `sandbox failure: ${firstLine(error)}` };
    // An isolate that will not be reused stops now, before the dispatches settle.
    if (!isClean(decoded)) sbx.dispose();

    logs.close();
    bridge.end();
    await bridge.settled();
    // Watched until here: guest code left running after the outcome (a microtask loop) is still
    // stopped by the run's limits, which then only dispose the isolate.
    watchdog.delete(watched);
    request.signal?.removeEventListener('abort', onAbort);
    this.finished = true;
    this.reusable = isClean(decoded) && this.killReason === undefined && !sbx.disposed;
    releaseContext(this.prepared);
    if (!this.reusable) sbx.dispose();

    const stats = {
      cpuMs: Math.max(0, cpuEnd - cpuStart),
      wallMs,
      calls: bridge.dispatched,
      isolateMs: this.options.isolateMs,
      logBytes: logs.bytes,
      truncatedLogs: logs.overflowed,
    };
    return { ...decoded, logs: logs.entries, stats };
  }

  private compileFailure(error: unknown): Decoded {
    const line = firstLine(error);
    const match = COMPILE_POSITION.exec(line);
    const name = error instanceof Error && error.name !== 'Error' ? `${error.name}: ` : '';
    const message = `${name}${line.replace(COMPILE_POSITION, '')}`;
    if (!match) return { ok: false, kind: 'exception', message };
    const raw = { line: Number(match[1]), column: Number(match[2]) };
    let position: { line: number; column: number } | undefined = raw;
    try {
      position = this.options.request.mapPosition
        ? this.options.request.mapPosition(raw.line, raw.column)
        : raw;
    } catch {
      position = undefined;
    }
    return { ok: false, kind: 'exception', message, ...position };
  }
}
