/**
 * The one record of a program's nested call: it is built once, as a {@link CallLine}, when the
 * call settles; the `call-start`/`call-end` progress events and the run's `calls` both come from
 * it. Every runner dispatches through {@link recordingDispatch}.
 */
import type { ToolResult } from '../executor/types.js';
import type { JsonValue } from '../json.js';
import type { CallTrace } from '../sandbox/types.js';
import { isReplayed } from './durable-seam.js';
import type { CallLine, CallWatch, RunnerContext } from './types.js';

/** The most characters of a call's arguments (or result) a progress event carries (as JSON). */
export const MAX_EVENT_ARGS_CHARS = 2_000;

/** The most characters of a failed call's error message a `call-end` event carries. */
export const MAX_EVENT_MESSAGE_CHARS = 500;

/**
 * A value as a progress event carries it (a call's arguments, a call's result): the JSON value when
 * it is short enough, else `{ truncated: true, chars, head }` (the audit's shape), undefined for no
 * value or one JSON cannot hold. The cost is one serialisation of a value the limits already bound
 * (`maxArgBytes`, `maxBindingResultBytes`; decision 029's inventory).
 */
export function eventJson(args: unknown): JsonValue | undefined {
  let text: string | undefined;
  try {
    text = JSON.stringify(args);
  } catch {
    return undefined;
  }
  if (text === undefined) return undefined;
  if (text.length <= MAX_EVENT_ARGS_CHARS) return JSON.parse(text) as JsonValue;
  return { truncated: true, chars: text.length, head: text.slice(0, MAX_EVENT_ARGS_CHARS) };
}

/**
 * `ctx.dispatch`, recording each call into `calls` and announcing it through `ctx.emit` — when
 * someone listens as the call starts (`ctx.listening`): its start and its end, or neither.
 */
export function recordingDispatch(
  ctx: Pick<RunnerContext, 'dispatch' | 'emit' | 'listening'>,
  calls: CallLine[],
): (name: string, args: unknown, signal?: AbortSignal, trace?: CallTrace) => Promise<ToolResult> {
  let arrivals = 0;
  return async (name, args, signal, trace) => {
    const started = performance.now();
    // The call's number in arrival (program) order: call-start and call-end of one call share it.
    const seq = ++arrivals;
    // A durable run names the executor call synchronously, as the dispatch starts (approvals
    // carry that id as their callKey: the console matches them by it).
    let callId: string | undefined;
    const watch: CallWatch = { id: (id) => (callId = id) };
    const pending = ctx.dispatch(name, args, signal, trace, watch);
    // Nobody listening: no call events (each costs a JSON copy of the arguments and the result).
    const announce = ctx.listening?.() ?? true;
    if (announce)
      ctx.emit({
        type: 'call-start',
        name,
        seq,
        args: eventJson(args),
        at: Date.now(),
        ...(callId === undefined ? {} : { callId }),
      });
    const r = await pending;
    const durationMs = performance.now() - started;
    const line: CallLine = r.ok
      ? { name, ok: true, durationMs }
      : { name, ok: false, code: r.error.code, durationMs };
    calls.push(line);
    if (!announce) return r;
    ctx.emit({
      type: 'call-end',
      name,
      seq,
      ok: line.ok,
      code: line.code,
      durationMs,
      at: Date.now(),
      ...(r.ok
        ? { result: eventJson(r.value) }
        : { message: r.error.message.slice(0, MAX_EVENT_MESSAGE_CHARS) }),
      // Answered from a durable run's journal: the tool did not run again.
      ...(isReplayed(r) ? { replayed: true as const } : {}),
    });
    return r;
  };
}
