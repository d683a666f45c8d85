/**
 * How a human resolves the call an `interrupted` run stopped on (a non-idempotent call's body was
 * running when its replica went away): it took effect with a value, it failed, or run it again.
 * The resolution and the run's return to the queue are one store transaction
 * (`RunStore.resolveInterrupted`); the next life continues by replay.
 */
import { IsocodeError } from '../errors.js';
import { errorContent } from '../executor/outcome.js';
import type { JsonValue } from '../json.js';
import type { CallResolution, RunEvent, RunRecord, RunStore } from './store.js';

/** How a human resolves the call an `interrupted` run stopped on. */
export type Resolution =
  | { action: 'succeeded'; value: JsonValue }
  | { action: 'failed'; message: string }
  | { action: 'retry' };

/**
 * Resolves run `id`'s interrupted call and queues the run.
 * @returns the run's `status` event, or undefined when the run is unknown (or of another scope).
 * @throws IsocodeError BAD_REQUEST when the run is not interrupted (or no longer is).
 */
export async function resolveInterrupted(
  store: RunStore,
  id: string,
  resolution: Resolution,
  scope: string | undefined,
): Promise<RunEvent | undefined> {
  const record = await store.getRun(id, scope);
  if (!record) return undefined;
  if (record.status !== 'interrupted')
    throw new IsocodeError(
      'BAD_REQUEST',
      `run ${id} is ${record.status}; only an interrupted run can be resolved`,
    );
  const key = interruptedKey(record);
  if (key === undefined)
    throw new IsocodeError('BAD_REQUEST', `run ${id} names no interrupted call`);
  const resumed = await store.resolveInterrupted(id, key, callResolution(key, resolution), {
    status: 'queued',
    resolved: resolution.action,
  });
  if (resumed === undefined) return undefined;
  if (resumed === 'not-interrupted')
    throw new IsocodeError(
      'BAD_REQUEST',
      `run ${id} is no longer interrupted; only an interrupted run can be resolved`,
    );
  if (resumed === 'not-started')
    throw new IsocodeError(
      'BAD_REQUEST',
      `run ${id} names a call its journal does not hold as started; cancel the run instead`,
    );
  return resumed.event;
}

/** The key of the call an interrupted run stopped on (from its error's details). */
function interruptedKey(record: RunRecord): string | undefined {
  const details = (record.error as { details?: { call?: { key?: unknown } } } | undefined)?.details;
  const key = details?.call?.key;
  return typeof key === 'string' ? key : undefined;
}

/** The store's resolution of a call, as a ToolResult the replay hands the program. */
function callResolution(key: string, r: Resolution): CallResolution {
  const meta = { callId: key, toolName: '', scope: '', durationMs: 0, stages: [] };
  if (r.action === 'retry') return { status: 'pending' };
  if (r.action === 'succeeded') {
    const text = JSON.stringify(r.value) ?? 'null';
    return {
      status: 'ok',
      result: { ok: true, value: r.value, content: [{ type: 'text', text }], meta },
    };
  }
  const error = { code: 'TOOL_ERROR' as const, message: r.message };
  return {
    status: 'error',
    result: { ok: false, error, content: errorContent(error), meta },
  };
}
