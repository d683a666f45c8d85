/**
 * One program on one prepared isolate: install the scope, compile and start the program, watch its
 * clocks, and settle. Settlement order: the isolate is disposed (it is never reused), the run's
 * signal aborts (in-flight dispatches see it), calls waiting for a slot are refused, and the outcome
 * is returned only after every started dispatch has settled.
 */
import ivm from 'isolated-vm';
import { PROGRAM_FILENAME, type InstallOptions } from '../../sdk-templates/isolate/protocol.js';
import { HostBridge } from './host-bridge.js';
import { LogSink } from './log-sink.js';
import { Arrivals } from './arrivals.js';
import { decodeOutcome, splitOutcome, type Decoded } from './outcome.js';
import type { SandboxIsolate } from './sandbox-isolate.js';
import type { RunOutcome, RunRequest, SandboxBinding, SandboxLimits } from './types.js';
import type { Watchdog } from './watchdog.js';

/** Why the host stopped a program. */
export type KillReason = 'cpu' | 'wall' | 'log-limit' | 'aborted' | 'closed';

/** What a run needs besides its isolate. */
export interface ProgramRunOptions {
  request: RunRequest;
  /** Bindings already validated (no `run_code`, no duplicates). */
  bindings: readonly SandboxBinding[];
  limits: SandboxLimits;
  watchdog: Watchdog;
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
  }
}

function firstLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.split('\n')[0]?.slice(0, 500) ?? '';
}

/** A running program. Create with {@link ProgramRun.start}. */
export class ProgramRun {
  private killReason: KillReason | undefined;
  private finished = false;
  /** Settles with the outcome, after every started dispatch has settled. Never rejects. */
  readonly done: Promise<RunOutcome>;

  private constructor(
    private readonly isolate: SandboxIsolate,
    private readonly options: ProgramRunOptions,
  ) {
    this.done = this.execute();
  }

  /** Starts `options.request` on `isolate` (which this run disposes). */
  static start(isolate: SandboxIsolate, options: ProgramRunOptions): ProgramRun {
    return new ProgramRun(isolate, options);
  }

  /** Stops the program now (disposes its isolate); no effect once it has settled. */
  kill(reason: KillReason): void {
    if (this.finished || this.killReason !== undefined) return;
    this.killReason = reason;
    this.isolate.dispose();
  }

  private async execute(): Promise<RunOutcome> {
    const { request, limits, watchdog } = this.options;
    const sbx = this.isolate;
    const controller = new AbortController();
    const logs = new LogSink(limits.maxLogBytes, request.onLog, () => this.kill('log-limit'));
    const bridge = new HostBridge({
      tools: new Set(this.options.bindings.map((b) => b.tool)),
      dispatch: request.dispatch,
      limits,
      controller,
      onCall: request.onCall,
    });
    const arrivals = new Arrivals();
    const dispatchRef = new ivm.Reference((tool: unknown, args: unknown) => {
      arrivals.arrive();
      return bridge.handle(tool, args);
    });
    const logRef = new ivm.Reference((level: unknown, text: unknown): void => {
      arrivals.arrive();
      logs.push(level, text);
    });
    const tickRef = new ivm.Reference(() => Promise.resolve(''));
    const installOptions: InstallOptions = {
      bindings: this.options.bindings.map((b) => ({ path: [...b.path], tool: b.tool })),
      maxCalls: limits.maxCalls,
      maxArgBytes: limits.maxArgBytes,
      maxLogBytes: limits.maxLogBytes,
      maxResultBytes: limits.maxResultBytes,
    };

    const cpuStart = sbx.cpuMs() ?? 0;
    let cpuLast = cpuStart;
    const wallStart = performance.now();
    const watched = {
      check: (now: number): void => {
        cpuLast = sbx.cpuMs() ?? cpuLast;
        if (cpuLast - cpuStart > limits.cpuMs) this.kill('cpu');
        else if (now - wallStart > limits.wallMs) this.kill('wall');
      },
    };
    const onAbort = (): void => this.kill('aborted');
    request.signal?.addEventListener('abort', onAbort, { once: true });
    watchdog.add(watched);
    if (request.signal?.aborted === true) this.kill('aborted');

    let raw: { sent: number; body: string } | undefined;
    let error: unknown;
    let stage: 'install' | 'compile' | 'run' | 'drain' = 'install';
    try {
      const runner = (await sbx.install.apply(
        undefined,
        [dispatchRef, logRef, tickRef, JSON.stringify(installOptions)],
        {
          result: { reference: true },
        },
      )) as ivm.Reference<(program: unknown) => Promise<string>>;
      stage = 'compile';
      const script = await sbx.isolate.compileScript(request.js, { filename: PROGRAM_FILENAME });
      const program = (await script.run(sbx.context, {
        reference: true,
        release: true,
      })) as ivm.Reference<unknown>;
      stage = 'run';
      const outcome: unknown = await runner.apply(undefined, [program.derefInto()], {
        result: { promise: true, copy: true },
      });
      runner.release();
      raw = splitOutcome(outcome);
      stage = 'drain';
      // Logs and calls sent before the outcome may still be on their way: wait for them.
      if (raw !== undefined)
        await arrivals.waitFor(
          raw.sent,
          Math.min(DRAIN_GRACE_MS, limits.wallMs - (performance.now() - wallStart)),
        );
    } catch (e) {
      error = e;
    }
    this.finished = true;
    const disposedByIsolatedVm = this.killReason === undefined && sbx.isolate.isDisposed;
    const cpuEnd = sbx.cpuMs() ?? cpuLast;
    const wallMs = performance.now() - wallStart;
    watchdog.delete(watched);
    request.signal?.removeEventListener('abort', onAbort);
    sbx.dispose();
    logs.close();
    bridge.end();
    await bridge.settled();
    dispatchRef.release();
    logRef.release();
    tickRef.release();

    let decoded: Decoded;
    // Once the outcome is in, only a console overflow (of output sent before it) changes it.
    const kill = stage === 'drain' && this.killReason !== 'log-limit' ? undefined : this.killReason;
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
