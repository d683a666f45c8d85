/**
 * run_code over the MCP face of a durable runtime, for a client that cannot be asked directly (no
 * elicitation): the program runs as a durable run, so its asks are parked as pending approvals that
 * a human decides over HTTP (`GET /v1/approvals`, the console) from any replica sharing the store,
 * and the human's wait is not counted against the run's limits. The call answers when the run
 * settles; cancelling the call cancels the run. The answer's `_meta["isocode/run"]` names the run.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { DurableRuntime, RunHandle, RunView } from '../durable/index.js';
import { isIsocodeError, type Runtime, type ToolResult } from '../index.js';
import { ERROR_META_KEY, toCallToolResult } from './result.js';

/** The `_meta` key that names the durable run of an MCP run_code call (`{ id }`). */
export const RUN_META_KEY = 'isocode/run';

/** How often a waiting call tells a client that asked for progress how its run stands, in ms. */
const HEARTBEAT_MS = 10_000;

/** The durable side of a runtime, when it has one (`createDurableRuntime`). */
export function durableOf(runtime: Runtime): Pick<DurableRuntime, 'start'> | undefined {
  const start = (runtime as Partial<DurableRuntime>).start;
  return typeof start === 'function' ? { start: start.bind(runtime) } : undefined;
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

/** A string property's bounds in run_code's listed input schema. */
interface StringBounds {
  minLength?: number;
  maxLength?: number;
}

/**
 * Whether `args` are what run_code's listed input schema (its one owner) accepts: strings within
 * their bounds, the required ones present. Anything else takes the executor's path, which reports
 * INVALID_ARGS as for any client, before a run is stored.
 */
function fitsRunCode(args: Record<string, unknown>, schema: Record<string, unknown>): boolean {
  const properties = (schema['properties'] ?? {}) as Record<string, StringBounds | undefined>;
  const required = Array.isArray(schema['required']) ? (schema['required'] as unknown[]) : [];
  for (const key of ['code', 'description']) {
    const value = args[key];
    if (value === undefined) {
      if (required.includes(key)) return false;
      continue;
    }
    const bounds = properties[key];
    if (typeof value !== 'string' || bounds === undefined) return false;
    if (value.length < (bounds.minLength ?? 0)) return false;
    if (bounds.maxLength !== undefined && value.length > bounds.maxLength) return false;
  }
  return true;
}

/** What {@link runDurably} needs of the MCP request. */
export interface DurableCallContext {
  scope: string;
  /** run_code's input schema as this face lists it. */
  inputSchema: Record<string, unknown>;
  signal: AbortSignal;
  /** Whether the listed run_code declares an output schema (structuredContent then). */
  hasOutputSchema: boolean;
  /** Sends a progress message (only when the client gave a progress token). */
  progress?: ((message: string) => void) | undefined;
}

/**
 * Runs `args` (run_code's `{ code, description }`) as a durable run and answers with its result.
 * Arguments run_code would refuse are left to the executor (`undefined`: take the usual path, which
 * reports INVALID_ARGS the same way as for any client).
 */
export async function runDurably(
  durable: Pick<DurableRuntime, 'start'>,
  args: Record<string, unknown>,
  ctx: DurableCallContext,
): Promise<CallToolResult | undefined> {
  const { code, description } = args;
  if (!fitsRunCode(args, ctx.inputSchema) || typeof code !== 'string') return undefined;
  if (description !== undefined && typeof description !== 'string') return undefined;
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
    if (heartbeat) clearInterval(heartbeat);
  }
}
