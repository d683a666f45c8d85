/**
 * Running a tool body inside its execute middleware, with the time limit and the abort rules:
 * a started body is always awaited (up to a grace period after abort or time-out).
 */
import { thrownText } from '../errors.js';
import { copyJson, type JsonValue } from '../json.js';
import type { AnyTool } from '../tools/resolve-tool.js';
import { formatIssues } from '../tools/schema.js';
import { pausableTimer, type PauseClock } from '../pause-clock.js';
import { onAbort as subscribe } from './abort-fanout.js';
import { compose, DoubleNextError } from './compose.js';
import { bodyError, capMessage, failure, type Outcome } from './outcome.js';
import type { BodyOutcome, ExecuteContext, ExecuteMiddleware } from './types.js';

/** What `runBody` needs. */
export interface BodyRun {
  /** The tool's name (for the time-out message). */
  name: string;
  /**
   * Calls the body with the signal it must honour (the caller builds the typed context, with
   * {@link withSignal}: the signal is made when the body or a hook first reads it).
   */
  invoke: (signal: LazySignal) => unknown;
  hookContext: Omit<ExecuteContext, 'signal'>;
  middleware: readonly ExecuteMiddleware[];
  /** The call's signal (caller abort, parent settlement). */
  signal: AbortSignal;
  timeoutMs: number;
  abortGraceMs: number;
  /** A clock the time limit runs on (a run_code execution's: paused while a human decides). */
  clock?: PauseClock | undefined;
}

/** A signal that never aborts, shared by calls that were given none (saves an AbortController per call). */
export const NEVER_ABORTED: AbortSignal = new AbortController().signal;

/**
 * A body's abort signal, made on first read. Most tool bodies never read theirs, and an
 * `AbortController` with its signal costs ~3 µs on Node 20 — a tenth of a direct call (decision
 * 034 §9). An abort before the first read is kept and applied when the signal is made.
 */
export class LazySignal {
  #controller: AbortController | undefined;
  #aborted: { reason: unknown } | undefined;

  /** The signal (made now if it was not yet; already aborted after {@link abort}). */
  get signal(): AbortSignal {
    if (this.#controller === undefined) {
      this.#controller = new AbortController();
      if (this.#aborted !== undefined) this.#controller.abort(this.#aborted.reason);
    }
    return this.#controller.signal;
  }

  /** Aborts with `reason` (the first abort wins, as with an `AbortController`). */
  abort(reason: unknown): void {
    if (this.#aborted !== undefined) return;
    this.#aborted = { reason };
    this.#controller?.abort(reason);
  }
}

/** `target` with a `signal` property read from `lazy` (an enumerable getter: spreads copy it). */
export function withSignal<T extends object>(
  target: T,
  lazy: LazySignal,
): T & { signal: AbortSignal } {
  return Object.defineProperty(target, 'signal', {
    get: () => lazy.signal,
    enumerable: true,
    configurable: true,
  }) as T & { signal: AbortSignal };
}

/** Runs the middleware chain and the body under the time limit. Never rejects. */
export function runBody(run: BodyRun): Promise<BodyOutcome> {
  return new Promise<BodyOutcome>((resolve) => {
    const controller = new LazySignal();
    let settled = false;
    let timedOut = false;
    let graceTimer: NodeJS.Timeout | undefined;
    let bodyStarted: Promise<BodyOutcome> | undefined;
    const listens = run.signal !== NEVER_ABORTED;
    let unsubscribe = (): void => undefined;

    const finish = (settlement: BodyOutcome): void => {
      if (settled) return;
      settled = true;
      timer.cancel();
      clearTimeout(graceTimer);
      unsubscribe();
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
    const timer = pausableTimer(run.clock, run.timeoutMs, () => {
      if (settled) return;
      timedOut = true;
      controller.abort(new Error('tool time limit exceeded'));
      const outcome: BodyOutcome = {
        ok: false,
        code: 'TOOL_TIMEOUT',
        message: `${run.name} did not finish within ${run.timeoutMs} ms`,
      };
      if (!bodyStarted) return finish(outcome);
      graceThen(outcome);
      void bodyStarted.then(() => finish(outcome));
    });
    // One listener on a shared signal however many bodies run under it (abort-fanout.ts).
    unsubscribe = listens ? subscribe(run.signal, onAbort) : () => undefined;

    const body = (): Promise<BodyOutcome> => {
      bodyStarted = (async (): Promise<BodyOutcome> => {
        try {
          const value: unknown = await run.invoke(controller);
          return { ok: true, value };
        } catch (thrown) {
          const e = bodyError(thrown);
          return { ok: false, code: e.code, message: e.message, details: e.details };
        }
      })();
      return bodyStarted;
    };
    const hookContext: ExecuteContext = withSignal(run.hookContext, controller);
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

/** The body's outcome as the call's: a value must be JSON and match the output schema, if any. */
export function checkOutput(tool: AnyTool, body: BodyOutcome): Outcome {
  if (!body.ok) return failure(body.code, body.message, { details: body.details });
  // The call's value is a copy: neither the tool nor the caller can change what the other holds.
  let copied: ReturnType<typeof copyJson>;
  try {
    copied = copyJson(body.value === undefined ? null : body.value);
  } catch (thrown) {
    // A proxy whose traps throw: the tool's fault, never an internal error.
    return failure(
      'INVALID_TOOL_OUTPUT',
      `${tool.name} returned a value that cannot be read: ${capMessage(thrownText(thrown))}`,
    );
  }
  if ('problem' in copied)
    return failure(
      'INVALID_TOOL_OUTPUT',
      `${tool.name} returned a value that is not JSON: ${copied.problem.problem} at ${copied.problem.path}`,
    );
  const value = copied.value;
  const checked = tool.validateOutput(value);
  if (!checked.ok)
    return failure(
      'INVALID_TOOL_OUTPUT',
      `${tool.name} returned a value that does not match its output schema: ${formatIssues(checked.issues)}`,
      { details: { issues: checked.issues } },
    );
  // A zod output schema may transform the value; a JSON Schema one returns it as is.
  return { ok: true, value: (checked.value === undefined ? value : checked.value) as JsonValue };
}
