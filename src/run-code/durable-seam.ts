/**
 * Where a durable run meets run_code: the run's manager attaches a {@link DurableSeam} under the
 * run_code call id it will execute with; the run_code tool finds it, makes the sandbox run durable
 * (the recorded clock and dice values first, a trace on every binding call) and routes each nested
 * call through the seam, which answers it from the run's journal or runs it and records it
 * (src/durable/replay.ts). A run without a seam is not durable and pays nothing.
 */
import type { ToolResult } from '../executor/types.js';
import type { CallTrace, DurableTape } from '../sandbox/types.js';

/** A durable run's hold on its nested calls. */
export interface DurableSeam {
  /** The clock and dice values the run's earlier lives recorded (empty on a first run). */
  readonly tape: DurableTape;
  /**
   * One nested call: answered from the journal, or run through `run` (with the executor call id
   * it chooses) and recorded. Synchronously, before it returns, it takes the call's place in the
   * run's order (keys and values are assigned in arrival order). Never rejects.
   */
  call(
    name: string,
    args: unknown,
    trace: CallTrace,
    run: (callId: string) => Promise<ToolResult>,
  ): Promise<ToolResult>;
  /**
   * Called (by the durable execute middleware) just before the body of the run's nested call
   * `callId` runs; the body waits for it. A rejection keeps the body from running.
   */
  bodyStarts?(callId: string): Promise<void>;
  /** A run slot the run's manager already took (see `CodeRunner.reserve`); released once, idempotently. */
  readonly slot?: (() => void) | undefined;
}

const seams = new Map<string, DurableSeam>();
const replayed = new WeakSet<ToolResult>();

/** Marks `result` as answered from the run's journal (not run in this life); returns it. */
export function markReplayed(result: ToolResult): ToolResult {
  replayed.add(result);
  return result;
}

/** True when a seam answered `result` from the run's journal (the call did not run again). */
export function isReplayed(result: ToolResult): boolean {
  return replayed.has(result);
}

/** Attaches `seam` to the run_code call `callId`; returns the function that detaches it. */
export function attachDurableSeam(callId: string, seam: DurableSeam): () => void {
  seams.set(callId, seam);
  return () => {
    if (seams.get(callId) === seam) seams.delete(callId);
  };
}

/** The seam attached to run_code call `callId`, if any. */
export function durableSeamOf(callId: string): DurableSeam | undefined {
  return seams.size === 0 ? undefined : seams.get(callId);
}
