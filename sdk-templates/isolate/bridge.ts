/**
 * The isolate side of the bridge: `callTool(tool, args)` JSON-encodes the arguments here (guest
 * `toJSON`/getters run in the isolate, at call time), sends `[tool, json]` to the host dispatch
 * reference with an async `apply` (calls overlap; `applySyncPromise` would serialise them), and
 * turns the host's tagged reply into a value or a rejected {@link ToolCallError}. The host checks
 * everything again: the limits here only spare a useless crossing.
 */
import { callSiteError, setFailure, type ToolCallError } from './errors.js';
import type { HostRef, Wire } from './host-ref.js';
import { REPLY } from './protocol.js';
import {
  JSONParse,
  JSONStringify,
  nullRecord,
  ObjectCreate,
  PromiseCtor,
  promiseResolve,
  promiseThen,
  ReflectApply,
  stringSlice,
} from './primordials.js';
import { capLength, thrownText } from './text.js';

/** Calls a tool; resolves with its JSON value or rejects with a `ToolCallError`. */
export type CallTool = (tool: string, args: unknown) => Promise<unknown>;

/** Limits the isolate applies before crossing. */
export interface BridgeLimits {
  maxCalls: number;
  maxArgBytes: number;
}

const APPLY_OPTIONS = nullRecord({
  arguments: nullRecord({ copy: true }),
  result: nullRecord({ promise: true, copy: true }),
});

const MAX_REPLY_TEXT = 4096;

/**
 * Creates the bridge around the host's dispatch reference. Once `wire.closed` (the program has
 * settled) calls reject at once, without reaching the host.
 */
export function createBridge(dispatchRef: HostRef, limits: BridgeLimits, wire: Wire): CallTool {
  // eslint-disable-next-line @typescript-eslint/unbound-method -- called through ReflectApply with dispatchRef
  const apply = dispatchRef.apply;
  let calls = 0;

  const decode = (
    reply: unknown,
    error: ToolCallError,
    resolve: (v: unknown) => void,
    reject: (e: unknown) => void,
  ): void => {
    if (typeof reply !== 'string' || reply.length === 0) {
      reject(setFailure(error, 'INTERNAL_ERROR', 'the tool bridge returned an unreadable reply'));
      return;
    }
    const tag = reply[0];
    const payload = stringSlice(reply, 1);
    try {
      if (tag === REPLY.value) {
        resolve(JSONParse(payload));
        return;
      }
      const parsed: unknown = JSONParse(payload);
      const failure = (typeof parsed === 'object' && parsed !== null ? parsed : {}) as {
        code?: unknown;
        message?: unknown;
      };
      const code =
        typeof failure.code === 'string' ? capLength(failure.code, 64) : 'INTERNAL_ERROR';
      const message =
        typeof failure.message === 'string'
          ? capLength(failure.message, MAX_REPLY_TEXT)
          : 'tool call failed';
      reject(setFailure(error, code, message));
    } catch {
      reject(setFailure(error, 'INTERNAL_ERROR', 'the tool bridge returned an unreadable reply'));
    }
  };

  // A refusal's error is made inside the call, so its stack shows the program's line. The promise
  // rejects one microtask later, once the caller has attached its handler: isolated-vm scans its
  // list of unhandled rejections each time a handler is added to an already-rejected promise,
  // which made 100,000 refused calls quadratic (measured: >5 s of CPU instead of ~1 s).
  const settledTick = promiseResolve(undefined);
  const rejectLater = (error: ToolCallError): Promise<never> =>
    new PromiseCtor<never>((_resolve, reject) => {
      const fire = (): void => reject(error);
      void promiseThen(settledTick, fire, fire);
    });
  const refuse = (tool: string, code: string, message: string): Promise<never> =>
    rejectLater(setFailure(callSiteError(tool), code, message));
  // Past the call limit (or after the end) every call of a tool shares one error: a program that
  // fires 100,000 calls must not also allocate 100,000 stack traces (≈1 KB each).
  const shared = ObjectCreate(null) as Record<string, ToolCallError>;
  const refuseShared = (tool: string, code: string, message: string): Promise<never> => {
    const key = code + ':' + tool;
    let error = shared[key];
    if (error === undefined) {
      error = setFailure(callSiteError(tool), code, message);
      shared[key] = error;
    }
    return rejectLater(error);
  };

  const callTool = (tool: string, args: unknown): Promise<unknown> => {
    if (wire.closed)
      return refuseShared(
        tool,
        'ABORTED',
        'the program has already finished; tool calls are no longer accepted',
      );
    if (calls >= limits.maxCalls) {
      return refuseShared(
        tool,
        'LIMIT_EXCEEDED',
        'too many tool calls in one program (limit ' + numberText(limits.maxCalls) + ')',
      );
    }
    let json: unknown;
    try {
      json = JSONStringify(args === undefined ? {} : args);
    } catch (e) {
      return refuse(
        tool,
        'INVALID_ARGS',
        'the arguments of ' + tool + ' are not JSON: ' + capLength(thrownText(e), 512),
      );
    }
    if (typeof json !== 'string')
      return refuse(tool, 'INVALID_ARGS', 'the arguments of ' + tool + ' are not JSON');
    // UTF-8 never takes fewer bytes than UTF-16 units: longer than the cap is certainly over it.
    if (json.length > limits.maxArgBytes) {
      return refuse(
        tool,
        'LIMIT_EXCEEDED',
        'the arguments of ' + tool + ' exceed ' + numberText(limits.maxArgBytes) + ' bytes',
      );
    }
    calls++;
    // Created now so that, if the host reports a failure later, its stack shows the program's line.
    const error = callSiteError(tool);
    return new PromiseCtor<unknown>((resolve, reject) => {
      let reply: Promise<unknown>;
      try {
        reply = ReflectApply(apply, dispatchRef, [
          undefined,
          [tool, json],
          APPLY_OPTIONS,
        ]) as Promise<unknown>;
        wire.sent++;
      } catch {
        reject(setFailure(error, 'INTERNAL_ERROR', 'the tool bridge is unavailable'));
        return;
      }
      void promiseThen(
        reply,
        (value) => decode(value, error, resolve, reject),
        () => reject(setFailure(error, 'INTERNAL_ERROR', 'the tool bridge failed')),
      );
    });
  };

  return callTool;
}

function numberText(n: number): string {
  return '' + n;
}
