/**
 * The host side of the bridge for one run. The isolate calls {@link HostBridge.handle} through a
 * `Reference` with `[tool, argsJson]`; it validates everything (the isolate is hostile), enforces the
 * call limits, dispatches, caps the result and ALWAYS resolves with a tagged string (isolated-vm
 * turns a rejected host promise into a process-level unhandled rejection). When the run ends,
 * {@link HostBridge.end} aborts the run signal, rejects the calls waiting for a slot without
 * dispatching them, and {@link HostBridge.settled} waits for every started dispatch.
 */
import { setMaxListeners } from 'node:events';
import { jsonTooDeep, MAX_JSON_DEPTH, type JsonValue } from '../json.js';
import { REPLY } from '../../sdk-templates/isolate/protocol.js';
import type { CallEvent, CallTrace, Dispatch, DispatchResult, SandboxLimits } from './types.js';
import { cutText } from '../text/clip.js';

/** Longest failure message passed back to the program. */
export const MAX_FAILURE_MESSAGE = 4096;
const CODE_PATTERN = /^[A-Z][A-Z0-9_]{0,63}$/;

/** Options of a {@link HostBridge}. */
export interface HostBridgeOptions {
  /** Tools the program may call. */
  tools: ReadonlySet<string>;
  dispatch: Dispatch;
  limits: Pick<
    SandboxLimits,
    | 'maxCalls'
    | 'maxArgBytes'
    | 'maxBindingResultBytes'
    | 'maxCallsInFlight'
    | 'maxQueuedCalls'
    | 'maxQueuedBytes'
  >;
  onCall?: ((event: CallEvent) => void) | undefined;
}

/**
 * The reason the run signal aborts with when a run ends: one `AbortError` for all runs (Node's
 * default reason is a new `DOMException` per abort, whose stack capture cost ~20 µs per run).
 */
const RUN_ENDED = new DOMException('the run has ended', 'AbortError');

function failure(code: string, message: string): string {
  return REPLY.failure + JSON.stringify({ code, message });
}

/** Per-run host bridge. */
export class HostBridge {
  private ended = false;
  private accepted = 0;
  private dispatchedCount = 0;
  private queuedBytes = 0;
  /** Calls holding one of the `maxCallsInFlight` slots. */
  private running = 0;
  /**
   * Calls waiting for a slot, in arrival order: each is told `true` when a finishing call hands it
   * its slot, `false` when the run ends first. (A counter and a list: a queue library's promise,
   * events and bookkeeping per call cost more than the call's own work here.)
   */
  private readonly waiting: ((started: boolean) => void)[] = [];
  private readonly started = new Set<Promise<unknown>>();
  /** Made at the first dispatch: a run without calls needs no signal. */
  private controller: AbortController | undefined;

  constructor(private readonly options: HostBridgeOptions) {}

  /** Binding calls that reached `dispatch`. */
  get dispatched(): number {
    return this.dispatchedCount;
  }

  /**
   * Handles one call from the isolate. Never rejects. `trace` is the call's trace in a durable run
   * (`null`: the isolate sent a malformed one; the call is refused).
   */
  async handle(tool: unknown, argsJson: unknown, trace?: CallTrace | null): Promise<string> {
    try {
      return await this.handleUnsafe(tool, argsJson, trace);
    } catch {
      return failure('INTERNAL_ERROR', 'internal error in the tool bridge');
    }
  }

  private async handleUnsafe(
    tool: unknown,
    argsJson: unknown,
    trace: CallTrace | null | undefined,
  ): Promise<string> {
    const { limits } = this.options;
    if (this.ended) return failure('ABORTED', 'the program has already finished');
    if (trace === null)
      return failure('INVALID_ARGS', 'the call carries a malformed durable-run record');
    if (typeof tool !== 'string' || !this.options.tools.has(tool)) {
      return failure(
        'UNKNOWN_TOOL',
        `no such tool binding: ${typeof tool === 'string' ? cutText(tool, 100) : typeof tool}`,
      );
    }
    if (typeof argsJson !== 'string')
      return failure('INVALID_ARGS', `the arguments of ${tool} are not JSON`);
    if (this.accepted >= limits.maxCalls) {
      return failure(
        'LIMIT_EXCEEDED',
        `too many tool calls in one program (limit ${limits.maxCalls})`,
      );
    }
    this.accepted++;
    // Size first, before parsing anything.
    if (argsJson.length > limits.maxArgBytes || Buffer.byteLength(argsJson) > limits.maxArgBytes) {
      return failure(
        'LIMIT_EXCEEDED',
        `the arguments of ${tool} exceed ${limits.maxArgBytes} bytes`,
      );
    }
    if (jsonTooDeep(argsJson)) {
      return failure(
        'INVALID_ARGS',
        `the arguments of ${tool} nest arrays and objects more than ${MAX_JSON_DEPTH} levels deep`,
      );
    }
    // A call waiting for a slot holds only its JSON text, within the run's queue budget; it is
    // parsed once it has its slot. Waiting calls are refused once the run has ended.
    const waits = this.running >= limits.maxCallsInFlight;
    if (
      waits &&
      (this.waiting.length >= limits.maxQueuedCalls ||
        this.queuedBytes + argsJson.length > limits.maxQueuedBytes)
    ) {
      return failure(
        'LIMIT_EXCEEDED',
        `too many tool calls waiting at once (limits: ${limits.maxQueuedCalls} calls, ${limits.maxQueuedBytes} bytes of arguments); await some before starting more`,
      );
    }
    // A call with a free slot starts now: the end of the run cannot catch it waiting (a reply
    // after the end is dropped by `dispatchOne`).
    if (!waits) {
      this.running++;
      return this.inSlot(tool, argsJson, trace);
    }
    this.queuedBytes += argsJson.length;
    const started = await new Promise<boolean>((resolve) => this.waiting.push(resolve));
    this.queuedBytes -= argsJson.length;
    if (!started)
      return failure('ABORTED_BEFORE_DISPATCH', `the program finished before ${tool} could start`);
    try {
      return await this.inSlot(tool, argsJson, trace);
    } catch {
      return failure('ABORTED', 'the program has already finished');
    }
  }

  /** Runs a call in the slot it holds, then hands the slot to the first waiting call, if any. */
  private async inSlot(
    tool: string,
    argsJson: string,
    trace: CallTrace | undefined,
  ): Promise<string> {
    try {
      return await this.dispatchOne(tool, argsJson, trace);
    } finally {
      const next = this.waiting.shift();
      if (next === undefined) this.running--;
      else next(true);
    }
  }

  /** Runs one call that has its slot. */
  private async dispatchOne(
    tool: string,
    argsJson: string,
    trace: CallTrace | undefined,
  ): Promise<string> {
    if (this.ended)
      return failure('ABORTED_BEFORE_DISPATCH', `the program finished before ${tool} could start`);
    let args: JsonValue;
    try {
      args = JSON.parse(argsJson) as JsonValue;
    } catch {
      return failure('INVALID_ARGS', `the arguments of ${tool} are not JSON`);
    }
    const seq = ++this.dispatchedCount;
    const startedAt = performance.now();
    this.emit({ phase: 'start', tool, seq });
    const pending = this.callDispatch(tool, args, trace);
    this.started.add(pending);
    let result: DispatchResult | undefined;
    try {
      result = await pending;
    } finally {
      this.started.delete(pending);
    }
    const { reply, code } = this.encode(tool, result);
    this.emit({
      phase: 'end',
      tool,
      seq,
      ok: code === undefined,
      code,
      durationMs: performance.now() - startedAt,
    });
    // A late reply is dropped: the program is over and its isolate is being disposed.
    if (this.ended) return failure('ABORTED', 'the program has already finished');
    return reply;
  }

  private async callDispatch(
    tool: string,
    args: JsonValue,
    trace: CallTrace | undefined,
  ): Promise<DispatchResult | undefined> {
    try {
      if (this.controller === undefined) {
        this.controller = new AbortController();
        // Every dispatch in flight may listen on it: more than 10 at once is expected, not a leak.
        setMaxListeners(0, this.controller.signal);
      }
      return await (trace === undefined
        ? this.options.dispatch(tool, args, this.controller.signal)
        : this.options.dispatch(tool, args, this.controller.signal, trace));
    } catch {
      return undefined;
    }
  }

  private encode(
    tool: string,
    result: DispatchResult | undefined,
  ): { reply: string; code: string | undefined } {
    const fail = (code: string, message: string) => ({ reply: failure(code, message), code });
    if (typeof result !== 'object' || result === null || typeof result.ok !== 'boolean') {
      return fail('INTERNAL_ERROR', `the call to ${tool} failed inside the host`);
    }
    if (!result.ok) {
      const code =
        typeof result.code === 'string' && CODE_PATTERN.test(result.code)
          ? result.code
          : 'INTERNAL_ERROR';
      const message =
        typeof result.message === 'string' ? cutText(result.message, MAX_FAILURE_MESSAGE) : '';
      return fail(code, message);
    }
    let json: string | undefined;
    if ('json' in result) {
      if (typeof result.json !== 'string')
        return fail('INTERNAL_ERROR', `the call to ${tool} failed inside the host`);
      json = result.json;
    } else {
      try {
        json = JSON.stringify(result.value);
      } catch {
        return fail('INVALID_TOOL_OUTPUT', `the result of ${tool} is not JSON`);
      }
    }
    if (json === undefined) json = 'null';
    const max = this.options.limits.maxBindingResultBytes;
    if (json.length > max || Buffer.byteLength(json) > max) {
      return fail('LIMIT_EXCEEDED', `the result of ${tool} exceeds ${max} bytes`);
    }
    return { reply: REPLY.value + json, code: undefined };
  }

  private emit(event: CallEvent): void {
    try {
      this.options.onCall?.(event);
    } catch {
      // observers cannot break the bridge
    }
  }

  /** Ends the run: aborts the run signal (given to every dispatch) and refuses every waiting and future call. */
  end(): void {
    if (this.ended) return;
    this.ended = true;
    this.controller?.abort(RUN_ENDED);
    for (const refuse of this.waiting.splice(0)) refuse(false);
  }

  /** Resolves once every started dispatch has settled. */
  async settled(): Promise<void> {
    while (this.started.size > 0) await Promise.allSettled([...this.started]);
  }
}
