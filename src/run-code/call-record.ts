/**
 * The one record of a program's nested call: it is built once, as a {@link CallLine}, when the
 * call settles; the `call-start`/`call-end` progress events and the run's `calls` both come from
 * it. Every runner dispatches through {@link recordingDispatch}.
 */
import type { ToolResult } from '../executor/types.js';
import type { CallTrace } from '../sandbox/types.js';
import { isReplayed } from './durable-seam.js';
import type { CallLine, RunnerContext } from './types.js';

/** `ctx.dispatch`, recording each call into `calls` and announcing it through `ctx.emit`. */
export function recordingDispatch(
  ctx: Pick<RunnerContext, 'dispatch' | 'emit'>,
  calls: CallLine[],
): (name: string, args: unknown, signal?: AbortSignal, trace?: CallTrace) => Promise<ToolResult> {
  return async (name, args, signal, trace) => {
    const started = performance.now();
    ctx.emit({ type: 'call-start', name });
    const r = await ctx.dispatch(name, args, signal, trace);
    const durationMs = performance.now() - started;
    const line: CallLine = r.ok
      ? { name, ok: true, durationMs }
      : { name, ok: false, code: r.error.code, durationMs };
    calls.push(line);
    ctx.emit({
      type: 'call-end',
      name,
      ok: line.ok,
      code: line.code,
      durationMs,
      // Answered from a durable run's journal: the tool did not run again.
      ...(isReplayed(r) ? { replayed: true as const } : {}),
    });
    return r;
  };
}
