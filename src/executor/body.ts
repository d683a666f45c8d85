/**
 * Running a tool body inside its execute middleware, with the time limit and the abort rules:
 * a started body is always awaited (up to a grace period after abort or time-out).
 */
import type { ResolvedTool } from '../tools/resolve-tool.js';
import type { ToolContext } from '../tools/types.js';
import { compose, DoubleNextError } from './compose.js';
import { bodyError } from './outcome.js';
import type { BodyOutcome, ExecuteContext, ExecuteMiddleware } from './types.js';

/** What `runBody` needs. */
export interface BodyRun {
  tool: ResolvedTool;
  args: unknown;
  toolContext: Omit<ToolContext, 'signal'> & Record<string, unknown>;
  hookContext: Omit<ExecuteContext, 'signal'>;
  middleware: readonly ExecuteMiddleware[];
  /** The call's signal (caller abort, parent settlement). */
  signal: AbortSignal;
  timeoutMs: number;
  abortGraceMs: number;
}

/** The settled body: its outcome, and whether it settled (false: abandoned after the grace period). */
export interface BodySettlement {
  outcome: BodyOutcome;
  timedOut: boolean;
  abandoned: boolean;
}

const ABANDON = Symbol('abandon');

/** Runs the middleware chain and the body under the time limit. Never rejects. */
export async function runBody(run: BodyRun): Promise<BodySettlement> {
  const controller = new AbortController();
  const onAbort = (): void => controller.abort(run.signal.reason);
  if (run.signal.aborted) controller.abort(run.signal.reason);
  else run.signal.addEventListener('abort', onAbort, { once: true });

  let bodyStarted: Promise<BodyOutcome> | undefined;
  const body = (): Promise<BodyOutcome> => {
    bodyStarted = (async (): Promise<BodyOutcome> => {
      try {
        const value: unknown = await run.tool.execute(run.args, {
          ...run.toolContext,
          signal: controller.signal,
        });
        return { ok: true, value };
      } catch (thrown) {
        const e = bodyError(thrown);
        return { ok: false, code: e.code, message: e.message, details: e.details };
      }
    })();
    return bodyStarted;
  };
  const chain = compose(
    run.middleware,
    body,
  )({ ...run.hookContext, signal: controller.signal }).catch((err: unknown): BodyOutcome =>
    err instanceof DoubleNextError
      ? { ok: false, code: 'INTERNAL_ERROR', message: err.message }
      : { ok: false, code: 'TOOL_ERROR', message: bodyError(err).message },
  );

  let timer: NodeJS.Timeout | undefined;
  let graceTimer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), run.timeoutMs);
  });
  const grace = (): Promise<typeof ABANDON> =>
    new Promise((resolve) => {
      graceTimer = setTimeout(() => resolve(ABANDON), run.abortGraceMs);
    });
  const abortedThenGrace = new Promise<typeof ABANDON>((resolve) => {
    const start = (): void => void grace().then(resolve);
    if (controller.signal.aborted) start();
    else controller.signal.addEventListener('abort', start, { once: true });
  });

  try {
    const first = await Promise.race([chain, timeout, abortedThenGrace]);
    if (first === 'timeout') {
      controller.abort(new Error('tool time limit exceeded'));
      // A started body is awaited (bounded by the grace period) before the call settles.
      if (bodyStarted) {
        clearTimeout(graceTimer);
        await Promise.race([bodyStarted, grace()]);
      }
      return {
        outcome: {
          ok: false,
          code: 'TOOL_TIMEOUT',
          message: `${run.tool.name} did not finish within ${run.timeoutMs} ms`,
        },
        timedOut: true,
        abandoned: false,
      };
    }
    if (first === ABANDON) {
      return {
        outcome: { ok: false, code: 'ABORTED', message: 'the call was aborted' },
        timedOut: false,
        abandoned: true,
      };
    }
    return { outcome: first, timedOut: false, abandoned: false };
  } finally {
    clearTimeout(timer);
    clearTimeout(graceTimer);
    run.signal.removeEventListener('abort', onAbort);
  }
}
