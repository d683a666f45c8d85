/**
 * run_code over the MCP face of a durable runtime, for a client that cannot be asked directly (no
 * elicitation): the program runs as a durable run, so its asks are parked as pending approvals that
 * a human decides over HTTP (`GET /v1/approvals`, the console) from any replica sharing the store,
 * and the human's wait is not counted against the run's limits. The call answers when the run
 * settles; cancelling the call cancels the run. The answer's `_meta["isocode/run"]` names the run.
 * A client that gave a progress token is told each ask (and where to decide it) as it happens.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { DurableRuntime, RunEvent, RunHandle, RunManager, RunView } from '../durable/index.js';
import { isIsocodeError, type Runtime, type ToolResult } from '../index.js';
import type { LogLine } from '../run-code/types.js';
import { ERROR_META_KEY, toCallToolResult } from './result.js';

/** The `_meta` key that names the durable run of an MCP run_code call (`{ id }`). */
export const RUN_META_KEY = 'isocode/run';

/** How often a waiting call tells a client that asked for progress how its run stands, in ms. */
const HEARTBEAT_MS = 10_000;

/** What {@link runDurably} needs of a durable runtime: starting runs and this replica's run events. */
export interface DurableSide {
  start: DurableRuntime['start'];
  onEvent: RunManager['onEvent'];
}

/** The durable side of a runtime, when it has one (`createDurableRuntime`). */
export function durableOf(runtime: Runtime): DurableSide | undefined {
  const { start, runs } = runtime as Partial<DurableRuntime>;
  return typeof start === 'function' && runs !== undefined
    ? { start: start.bind(runtime), onEvent: (listener) => runs.onEvent(listener) }
    : undefined;
}

/**
 * The progress message of one of the run's events, or undefined: an approval asked (naming where a
 * human decides it) or decided. Other events (logs, calls) are the program's own business.
 */
function eventMessage(runId: string, event: RunEvent): string | undefined {
  if (event.type !== 'approval') return undefined;
  const a = event.data as { id?: unknown; tool?: unknown; status?: unknown; reason?: unknown };
  if (typeof a.id !== 'string' || typeof a.tool !== 'string') return undefined;
  return a.status === 'pending'
    ? `run ${runId}: ${a.tool} waits for approval ${a.id}${typeof a.reason === 'string' ? ` (${a.reason})` : ''}; decide it with POST /v1/approvals/${a.id}`
    : `run ${runId}: approval ${a.id} for ${a.tool} ${String(a.status)}`;
}

const failure = (code: string, message: string, runId?: string): CallToolResult => ({
  isError: true,
  content: [{ type: 'text', text: `Error ${code}: ${message}` }],
  _meta: {
    [ERROR_META_KEY]: { code, message },
    ...(runId === undefined ? {} : { [RUN_META_KEY]: { id: runId } }),
  },
});

const isToolResult = (v: unknown): v is ToolResult =>
  typeof v === 'object' &&
  v !== null &&
  typeof (v as { ok?: unknown }).ok === 'boolean' &&
  Array.isArray((v as { content?: unknown }).content);

/** What {@link runDurably} needs of the MCP request. */
export interface DurableCallContext {
  scope: string;
  signal: AbortSignal;
  /** Whether the listed run_code declares an output schema (structuredContent then). */
  hasOutputSchema: boolean;
  /** Sends a progress message (only when the client gave a progress token). */
  progress?: ((message: string) => void) | undefined;
  /** Sends a program's console line (the MCP face filters by the client's log level). */
  log?: ((line: LogLine) => void) | undefined;
}

/** A console line of the program, from a run event of this replica (`log` events carry it). */
function logLineOf(event: RunEvent): LogLine | undefined {
  if (event.type !== 'log') return undefined;
  const d = event.data as { level?: unknown; text?: unknown } | null;
  const level = d?.level;
  if (typeof d?.text !== 'string') return undefined;
  return level === 'log' ||
    level === 'info' ||
    level === 'warn' ||
    level === 'error' ||
    level === 'debug'
    ? { level, text: d.text }
    : undefined;
}

/**
 * Runs `args` (run_code's `{ code, description }`) as a durable run and answers with its result;
 * `undefined` for arguments that are not two strings (the executor's usual path reports them).
 */
export async function runDurably(
  durable: DurableSide,
  args: Record<string, unknown>,
  ctx: DurableCallContext,
): Promise<CallToolResult | undefined> {
  const { code, description } = args;
  // Not strings: the executor's path reports INVALID_ARGS; anything else run_code's schema refuses
  // is refused by `start` (runtime.checkRunCodeArgs) before a run is stored.
  if (typeof code !== 'string' || typeof description !== 'string') return undefined;
  let handle: RunHandle;
  try {
    handle = await durable.start({ code, description, scope: ctx.scope });
  } catch (error) {
    if (isIsocodeError(error)) return failure(error.code, error.message);
    return failure('INTERNAL_ERROR', 'the run could not be started');
  }
  const cancel = (): void => {
    handle.cancel().catch(() => {
      // the run settles anyway; its own record says how
    });
  };
  ctx.signal.addEventListener('abort', cancel, { once: true });
  if (ctx.signal.aborted) cancel();
  // An approval asked or decided is told at once; the heartbeat says how the run stands meanwhile.
  // Its console lines go to a client that set a log level, as the in-process path does.
  const unsubscribe =
    ctx.progress || ctx.log
      ? durable.onEvent((event) => {
          if (event.runId !== handle.id) return;
          const message = eventMessage(handle.id, event);
          if (message !== undefined) ctx.progress?.(message);
          const line = ctx.log ? logLineOf(event) : undefined;
          if (line) ctx.log?.(line);
        })
      : undefined;
  const heartbeat = ctx.progress
    ? setInterval(() => {
        handle
          .view()
          .then((v) =>
            ctx.progress?.(
              `run ${handle.id}: ${v.status}${v.pendingApprovals > 0 ? `, ${v.pendingApprovals} approval(s) pending` : ''}`,
            ),
          )
          .catch(() => {
            // progress is best effort
          });
      }, HEARTBEAT_MS)
    : undefined;
  try {
    let view: RunView;
    try {
      view = await handle.wait();
    } catch {
      // the store failed while the run settled: say so without its message (it may name hosts)
      return failure(
        'INTERNAL_ERROR',
        `the result of run ${handle.id} could not be read`,
        handle.id,
      );
    }
    const meta = { [RUN_META_KEY]: { id: handle.id } };
    if (!isToolResult(view.result))
      return view.status === 'cancelled'
        ? failure('ABORTED', `run ${handle.id} was cancelled`, handle.id)
        : failure('INTERNAL_ERROR', `run ${handle.id} ended ${view.status}`, handle.id);
    const out = toCallToolResult(view.result, ctx.hasOutputSchema);
    return { ...out, _meta: { ...out._meta, ...meta } };
  } finally {
    ctx.signal.removeEventListener('abort', cancel);
    unsubscribe?.();
    if (heartbeat) clearInterval(heartbeat);
  }
}
