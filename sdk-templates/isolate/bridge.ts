/**
 * The isolate side of the bridge. `callTool(tool, args, binding)` JSON-encodes the arguments here
 * (guest `toJSON`/getters run in the isolate, at call time) and sends `[call, id, tool, json]` to
 * the host's port as a one-way message (`applyIgnored`); the host answers by calling
 * {@link Bridge.deliver} with `(id, reply)`, also one-way. Calls overlap (`applySyncPromise` would
 * serialise them). Two one-way messages cost less than isolated-vm's promise-returning `apply`,
 * which also captures a 10-frame stack trace and builds promise resolvers on both sides for every
 * call (decision record 004), and no host promise is ever handed to isolated-vm. The host checks
 * everything again: the limits here only spare a useless crossing.
 */
import { callError, captureCallSite, type CallSite, type ToolCallError } from './errors.js';
import type { Send, Wire } from './host-ref.js';
import { MESSAGE, REPLY } from './protocol.js';
import {
  JSONParse,
  JSONStringify,
  ObjectCreate,
  PromiseCtor,
  promiseResolve,
  promiseThen,
  stringSlice,
} from './primordials.js';
import { capLength, thrownText } from './text.js';

/** A `tools` function: the program calls it, it calls {@link CallTool} with itself. */
export type Binding = (args?: unknown) => Promise<unknown>;

/** Calls a tool; resolves with its JSON value or rejects with a `ToolCallError`. */
export type CallTool = (tool: string, args: unknown, binding: Binding) => Promise<unknown>;

/** The bridge of one run. */
export interface Bridge {
  callTool: CallTool;
  /** Receives the host's reply to call `id` (a tagged string); ignores unknown ids. Never throws. */
  deliver: (id: unknown, reply: unknown) => void;
}

/** Limits the isolate applies before crossing. */
export interface BridgeLimits {
  maxCalls: number;
  maxArgBytes: number;
}

/** A call waiting for its reply. */
interface Pending {
  tool: string;
  site: CallSite;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

const MAX_REPLY_TEXT = 4096;

/**
 * Creates the bridge around the host's dispatch reference. Once `wire.closed` (the program has
 * settled) calls reject at once without reaching the host, and replies still on their way are
 * dropped: their promises never settle, so no guest code resumes after the run.
 */
export function createBridge(send: Send, limits: BridgeLimits, wire: Wire): Bridge {
  let calls = 0;
  let lastId = 0;
  // Null prototype: ids are looked up as own properties only.
  const pending = ObjectCreate(null) as Record<number, Pending | undefined>;

  const fail = (call: Pending, code: string, message: string): void => {
    call.reject(callError(call.tool, code, message, call.site));
  };

  const deliver = (id: unknown, reply: unknown): void => {
    if (typeof id !== 'number') return;
    const call = pending[id];
    if (call === undefined) return;
    delete pending[id];
    if (wire.closed) return;
    try {
      if (typeof reply !== 'string' || reply.length === 0) {
        fail(call, 'INTERNAL_ERROR', 'the tool bridge returned an unreadable reply');
        return;
      }
      let parsed: unknown;
      try {
        parsed = JSONParse(stringSlice(reply, 1));
      } catch {
        fail(call, 'INTERNAL_ERROR', 'the tool bridge returned an unreadable reply');
        return;
      }
      if (reply[0] === REPLY.value) {
        call.resolve(parsed);
        return;
      }
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
      fail(call, code, message);
    } catch {
      // a guest getter cannot be involved here; nothing else can throw
    }
  };

  // A refusal's error carries the program's call site. The promise rejects one microtask later,
  // once the caller has attached its handler: isolated-vm scans its list of unhandled rejections
  // each time a handler is added to an already-rejected promise, which made 100,000 refused calls
  // quadratic (measured: >5 s of CPU instead of ~1 s).
  const settledTick = promiseResolve(undefined);
  const rejectLater = (error: ToolCallError): Promise<never> =>
    new PromiseCtor<never>((_resolve, reject) => {
      const fire = (): void => reject(error);
      void promiseThen(settledTick, fire, fire);
    });
  const refuse = (tool: string, binding: Binding, code: string, message: string): Promise<never> =>
    rejectLater(callError(tool, code, message, captureCallSite(binding)));
  // Past the call limit (or after the end) every call of a tool shares one error: a program that
  // fires 100,000 calls must not also allocate 100,000 stack traces (≈1 KB each).
  const shared = ObjectCreate(null) as Record<string, ToolCallError>;
  const refuseShared = (
    tool: string,
    binding: Binding,
    code: string,
    message: string,
  ): Promise<never> => {
    const key = code + ':' + tool;
    let error = shared[key];
    if (error === undefined) {
      error = callError(tool, code, message, captureCallSite(binding));
      shared[key] = error;
    }
    return rejectLater(error);
  };

  const callTool: CallTool = (tool, args, binding) => {
    if (wire.closed)
      return refuseShared(
        tool,
        binding,
        'ABORTED',
        'the program has already finished; tool calls are no longer accepted',
      );
    if (calls >= limits.maxCalls) {
      return refuseShared(
        tool,
        binding,
        'LIMIT_EXCEEDED',
        'too many tool calls in one program (limit ' + numberText(limits.maxCalls) + ')',
      );
    }
    let json: unknown;
    try {
      json = args === undefined ? '{}' : JSONStringify(args);
    } catch (e) {
      return refuse(
        tool,
        binding,
        'INVALID_ARGS',
        'the arguments of ' + tool + ' are not JSON: ' + capLength(thrownText(e), 512),
      );
    }
    if (typeof json !== 'string')
      return refuse(tool, binding, 'INVALID_ARGS', 'the arguments of ' + tool + ' are not JSON');
    // UTF-8 never takes fewer bytes than UTF-16 units: longer than the cap is certainly over it.
    if (json.length > limits.maxArgBytes) {
      return refuse(
        tool,
        binding,
        'LIMIT_EXCEEDED',
        'the arguments of ' + tool + ' exceed ' + numberText(limits.maxArgBytes) + ' bytes',
      );
    }
    calls++;
    // Captured now so that, if the call fails later, the error's stack shows the program's line.
    const site = captureCallSite(binding);
    const id = ++lastId;
    return new PromiseCtor<unknown>((resolve, reject) => {
      try {
        send([MESSAGE.call, id, tool, json]);
      } catch {
        reject(callError(tool, 'INTERNAL_ERROR', 'the tool bridge is unavailable', site));
        return;
      }
      wire.sent++;
      pending[id] = { tool, site, resolve, reject };
    });
  };

  return { callTool, deliver };
}

function numberText(n: number): string {
  return '' + n;
}
