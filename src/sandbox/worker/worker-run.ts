/**
 * One run on a sandbox worker, as its handle (`handle.ts`) keeps it: its logs and the binding calls
 * the worker sends for it, each bounded — a log stream over the run's limit, or a call the worker
 * should not have sent, is reported to the handle, which kills the worker. Nothing the worker sends
 * is trusted.
 */
import { setMaxListeners } from 'node:events';
import type { PauseClock } from '../../pause-clock.js';
import type { JsonValue } from '../../json.js';
import type {
  CallTrace,
  Dispatch,
  DispatchResult,
  DurableTape,
  LogEntry,
  RunOutcome,
  SandboxBinding,
  SandboxLimits,
} from '../types.js';
import { isCallTrace } from '../call-trace.js';
import type { HostMessage } from './protocol.js';

/** A run on a worker, as the host gives it. */
export interface WorkerRun {
  bindings: readonly SandboxBinding[];
  limits: SandboxLimits;
  partition: string;
  dispatch: Dispatch;
  signal?: AbortSignal | undefined;
  onLog?: ((entry: LogEntry) => void) | undefined;
  /** Makes the run durable (see `RunRequest.durable`). */
  durable?: DurableTape | undefined;
  /** The run's wall clock (paused while a nested call waits on a human). */
  clock?: PauseClock | undefined;
}

/** Slack over `maxLogBytes` before the host calls a worker's log stream a breach. */
const LOG_SLACK_BYTES = 64 * 1024;
/** One reason for every run's dispatch signal: a fresh DOMException costs a stack capture. */
const RUN_ENDED = new DOMException('the run has ended', 'AbortError');

/** The run in progress on a worker. */
export class ActiveRun {
  readonly logs: LogEntry[] = [];
  logBytes = 0;
  /** Its outcome, once the worker reported it or the handle decided it. */
  outcome: RunOutcome | undefined;
  /** Settles the run (set by the handle; once). */
  settle: () => void = () => {};
  private inFlight = 0;
  private readonly started = new Set<Promise<void>>();
  /** The signal of the run's dispatches: aborted when the run ends. */
  private readonly controller = new AbortController();

  constructor(
    readonly id: number,
    readonly request: WorkerRun,
    /** performance.now() at its start. */
    readonly startedAt: number,
    /** The worker's CPU at its start (the supervisor's last reading). */
    readonly cpuAtStart: number | undefined,
  ) {
    setMaxListeners(0, this.controller.signal);
  }

  /** Keeps a log entry; false when the worker's log stream broke the run's bound. */
  log(entry: LogEntry): boolean {
    const bytes = typeof entry.text === 'string' ? Buffer.byteLength(entry.text) + 1 : Infinity;
    this.logBytes += bytes;
    if (this.logBytes > this.request.limits.maxLogBytes + LOG_SLACK_BYTES) return false;
    this.logs.push(entry);
    try {
      this.request.onLog?.(entry);
    } catch {
      // observers cannot break the run
    }
    return true;
  }

  /**
   * Dispatches a binding call the worker sent; `send` gets its reply. False, with nothing
   * dispatched, when the message is malformed or the worker has more calls in flight than the run
   * allows (the worker holds queued calls: more means it is not well).
   */
  call(
    call: unknown,
    tool: unknown,
    args: JsonValue,
    trace: unknown,
    send: (reply: HostMessage & { t: 'reply' }) => void,
  ): boolean {
    const durable = this.request.durable !== undefined;
    if (
      !Number.isSafeInteger(call) ||
      typeof tool !== 'string' ||
      (durable ? !isCallTrace(trace) : trace !== undefined)
    )
      return false;
    if (this.inFlight >= this.request.limits.maxCallsInFlight) return false;
    this.inFlight++;
    const signal = this.controller.signal;
    const pending = (async () => {
      let result: DispatchResult;
      try {
        result = await (durable
          ? this.request.dispatch(tool, args, signal, trace as CallTrace)
          : this.request.dispatch(tool, args, signal));
      } catch {
        result = {
          ok: false,
          code: 'INTERNAL_ERROR',
          message: `the call to ${tool} failed inside the host`,
        };
      }
      this.inFlight--;
      send({ t: 'reply', id: this.id, call: call as number, result: asText(tool, result) });
    })();
    this.started.add(pending);
    void pending.finally(() => this.started.delete(pending));
    return true;
  }

  /** Aborts the run's dispatches; resolves once every call it started has settled. */
  async end(): Promise<void> {
    this.controller.abort(RUN_ENDED);
    await Promise.allSettled([...this.started]);
  }
}

/**
 * A result as it crosses to the worker: the value as JSON text, made now. A tool that changes its
 * value after the executor checked it (a cycle or a BigInt added later) then fails its own call
 * (INVALID_TOOL_OUTPUT), not the channel's serialisation, which took the whole worker down.
 */
function asText(tool: string, result: DispatchResult): DispatchResult {
  if (!result.ok || !('value' in result)) return result;
  try {
    return { ok: true, json: JSON.stringify(result.value) ?? 'null' };
  } catch {
    return { ok: false, code: 'INVALID_TOOL_OUTPUT', message: `the result of ${tool} is not JSON` };
  }
}
