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

/** A signal that never aborts, shared by calls that were given none (saves an AbortController per call). */
export const NEVER_ABORTED: AbortSignal = new AbortController().signal;

/** Runs the middleware chain and the body under the time limit. Never rejects. */
export function runBody(run: BodyRun): Promise<BodyOutcome> {
  return new Promise<BodyOutcome>((resolve) => {
    const controller = new AbortController();
    let settled = false;
    let timedOut = false;
    let graceTimer: NodeJS.Timeout | undefined;
    let bodyStarted: Promise<BodyOutcome> | undefined;
    const listens = run.signal !== NEVER_ABORTED;

    const finish = (settlement: BodyOutcome): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearTimeout(graceTimer);
      if (listens) run.signal.removeEventListener('abort', onAbort);
      resolve(settlement);
    };
    // After an abort or a time-out, a started body is awaited for at most the grace period.
    const graceThen = (settlement: BodyOutcome): void => {
      clearTimeout(graceTimer);
      graceTimer = setTimeout(() => finish(settlement), run.abortGraceMs);
    };
    const onAbort = (): void => {
      controller.abort(run.signal.reason);
      if (!timedOut) graceThen(ABANDONED);
    };
    const timer = setTimeout(() => {
      if (settled) return;
      timedOut = true;
      controller.abort(new Error('tool time limit exceeded'));
      const outcome: BodyOutcome = {
        ok: false,
        code: 'TOOL_TIMEOUT',
        message: `${run.tool.name} did not finish within ${run.timeoutMs} ms`,
      };
      if (!bodyStarted) return finish(outcome);
      graceThen(outcome);
      void bodyStarted.then(() => finish(outcome));
    }, run.timeoutMs);
    if (listens) {
      if (run.signal.aborted) onAbort();
      else run.signal.addEventListener('abort', onAbort, { once: true });
    }

    const toolContext: ToolContext = Object.assign(run.toolContext, { signal: controller.signal });
    const body = (): Promise<BodyOutcome> => {
      bodyStarted = (async (): Promise<BodyOutcome> => {
        try {
          const value: unknown = await run.tool.execute(run.args, toolContext);
          return { ok: true, value };
        } catch (thrown) {
          const e = bodyError(thrown);
          return { ok: false, code: e.code, message: e.message, details: e.details };
        }
      })();
      return bodyStarted;
    };
    const hookContext: ExecuteContext = Object.assign(run.hookContext, {
      signal: controller.signal,
    });
    void compose(
      run.middleware,
      body,
    )(hookContext).then(
      (outcome) => {
        if (!timedOut) finish(outcome);
      },
      (err: unknown) => {
        if (timedOut) return;
        const outcome: BodyOutcome =
          err instanceof DoubleNextError
            ? { ok: false, code: 'INTERNAL_ERROR', message: err.message }
            : { ok: false, code: 'TOOL_ERROR', message: bodyError(err).message };
        finish(outcome);
      },
    );
  });
}

const ABANDONED: BodyOutcome = { ok: false, code: 'ABORTED', message: 'the call was aborted' };
