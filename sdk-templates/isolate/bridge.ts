/**
 * The isolate side of the bridge. `callTool(tool, args, binding)` JSON-encodes the arguments here
 * (guest `toJSON`/getters run in the isolate, at call time) and sends `[call, id, tool, json]` to
 * the host's port as a one-way message (`applyIgnored`); the host answers by calling
 * {@link Bridge.deliver} with `(id, reply)`, also one-way. Calls overlap (`applySyncPromise` would
 * serialise them). Two one-way messages cost less than isolated-vm's promise-returning `apply`,
 * which also captures a 10-frame stack trace and builds promise resolvers on both sides for every
 * call (decision record 004), and no host promise is ever handed to isolated-vm. The host checks
 * everything again: the limits here only spare a useless crossing.
 *
 * The success path allocates no closure and captures no stack: the program gets the promise
 * derived (with the captured `then`) from an inner promise that `deliver` settles; a failure
 * becomes a `ToolCallError` in the shared rejection handler, whose stack is then the program's
 * `await` (V8's async frames).
 */
import { toolCallError, type ToolCallError } from './errors.js';
import type { Send, Wire } from './host-ref.js';
import { MESSAGE, REPLY, type RunLimits } from './protocol.js';
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

/** A call waiting for its reply. */
interface Pending {
  tool: string;
  resolve: (value: unknown) => void;
  reject: (failure: Failure) => void;
}

/** What a failed call's inner promise rejects with (never seen by the program). */
interface Failure {
  tool: string;
  code: string;
  message: string;
}

const MAX_REPLY_TEXT = 4096;

/**
 * Turns a failure into the program's `ToolCallError` (shared by every call; runs as the rejection
 * reaction of the promise the program holds).
 */
const rejected = function rejected(failure: Failure): never {
  throw toolCallError(failure.tool, failure.code, failure.message, rejected);
};

// The executor of each inner promise stores its resolvers here (no closure per call).
let nextResolve: (value: unknown) => void = () => {};
let nextReject: (failure: Failure) => void = () => {};
const captureResolvers = (
  resolve: (value: unknown) => void,
  reject: (f: Failure) => void,
): void => {
  nextResolve = resolve;
  nextReject = reject;
};

/**
 * Creates the bridge around the run's port (`limits` are read at each call). In a durable run
 * (`durable()`) each call also carries `callTrace(binding)`: the stack at the call and the values
 * of the clock and the dice since the previous call (see `durable.ts`). Once `wire.closed`
 * (the program has settled) calls reject at once without reaching the host, and replies still on
 * their way are dropped: their promises never settle, so no guest code resumes after the run.
 */
export function createBridge(
  send: Send,
  limits: RunLimits,
  wire: Wire,
  durable: () => boolean,
  callTrace: (binding: Binding) => [string, string],
): Bridge {
  let calls = 0;
  let lastId = 0;
  // Null prototype: ids are looked up as own properties only.
  const pending = ObjectCreate(null) as Record<number, Pending | undefined>;

  const fail = (call: Pending, code: string, message: string): void => {
    call.reject({ tool: call.tool, code, message });
  };

  const deliver = (id: unknown, reply: unknown): void => {
    if (typeof id !== 'number') return;
    const call = pending[id];
    if (call === undefined) return;
    delete pending[id];
    if (wire.closed) return;
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
    fail(
      call,
      typeof failure.code === 'string' ? capLength(failure.code, 64) : 'INTERNAL_ERROR',
      typeof failure.message === 'string'
        ? capLength(failure.message, MAX_REPLY_TEXT)
        : 'tool call failed',
    );
  };

  // A refusal is decided inside the call, so its error's stack starts at the program's call. The
  // promise rejects one microtask later, once the caller has attached its handler: isolated-vm
  // scans its list of unhandled rejections each time a handler is added to an already-rejected
  // promise, which made 100,000 refused calls quadratic (measured: >5 s of CPU instead of ~1 s).
  const settledTick = promiseResolve(undefined);
  const rejectLater = (error: ToolCallError): Promise<never> =>
    new PromiseCtor<never>((_resolve, reject) => {
      const fire = (): void => reject(error);
      void promiseThen(settledTick, fire, fire);
    });
  const refuse = (tool: string, binding: Binding, code: string, message: string): Promise<never> =>
    rejectLater(toolCallError(tool, code, message, binding));
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
      error = toolCallError(tool, code, message, binding);
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
    const id = ++lastId;
    try {
      if (durable()) {
        const trace = callTrace(binding);
        send([MESSAGE.call, id, tool, json, trace[0], trace[1]]);
      } else send([MESSAGE.call, id, tool, json]);
    } catch {
      return refuse(tool, binding, 'INTERNAL_ERROR', 'the tool bridge is unavailable');
    }
    wire.sent++;
    const inner = new PromiseCtor<unknown>(captureResolvers);
    pending[id] = { tool, resolve: nextResolve, reject: nextReject };
    // The promise `then` derives (the captured intrinsic; `Promise[Symbol.species]` is locked) is
    // the program's; values pass through, failures become a ToolCallError in `rejected`.
    return promiseThen(inner, passThrough, rejected as (reason: unknown) => never);
  };

  return { callTool, deliver };
}

function passThrough(value: unknown): unknown {
  return value;
}

function numberText(n: number): string {
  return '' + n;
}
