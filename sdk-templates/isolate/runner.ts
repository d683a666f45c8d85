/**
 * Runs the program function and reports its outcome to the host as one tagged string (see
 * `OUTCOME`). The returned value is JSON-encoded here with the captured `JSON.stringify`, so
 * `toJSON` tricks and thenables can only affect the program's own result; the host receives a
 * string, never a guest object or promise.
 */
import { isToolCallError } from './errors.js';
import { encodeJson } from './json-encode.js';
import {
  MAX_ERROR_TEXT,
  MAX_STACK_TEXT,
  MAX_THROWN_JSON,
  MESSAGE,
  OUTCOME,
  OUTCOME_SEPARATOR,
  type RunLimits,
  type ThrownDescription,
} from './protocol.js';
import type { Send, Wire } from './host-ref.js';
import {
  ErrorCtor,
  JSONStringify,
  ObjectCreate,
  objectTag,
  promiseResolve,
  promiseThen,
  ReflectApply,
} from './primordials.js';
import { capLength, formatValue } from './text.js';

function readText(obj: object, key: string): string {
  try {
    const v: unknown = (obj as Record<string, unknown>)[key];
    return typeof v === 'string' ? v : '';
  } catch {
    return '';
  }
}

/**
 * Describes a thrown value without trusting it: every read is guarded, every text capped, and the
 * description has a null prototype (a polluted `Object.prototype.toJSON` cannot rewrite it).
 */
export function describeThrown(thrown: unknown): ThrownDescription {
  const description = ObjectCreate(null) as ThrownDescription;
  if (typeof thrown !== 'object' || thrown === null || !isErrorObject(thrown)) {
    description.kind = 'value';
    description.name = '';
    description.message = capLength(formatValue(thrown), MAX_ERROR_TEXT);
    description.stack = '';
    const preview = encodeJson(thrown, MAX_THROWN_JSON, true);
    if (preview.ok) description.json = preview.json;
    return description;
  }
  description.kind = 'error';
  description.name = capLength(readText(thrown, 'name'), MAX_ERROR_TEXT);
  description.message = capLength(readText(thrown, 'message'), MAX_ERROR_TEXT);
  description.stack = capLength(readText(thrown, 'stack'), MAX_STACK_TEXT);
  if (isToolCallError(thrown)) {
    description.toolName = capLength(readText(thrown, 'toolName'), 256);
    description.code = capLength(readText(thrown, 'code'), 64);
  }
  return description;
}

function isErrorObject(v: object): boolean {
  try {
    return objectTag(v) === '[object Error]';
  } catch {
    return false;
  }
}

function encodeThrown(thrown: unknown): string {
  let json: unknown;
  try {
    json = JSONStringify(describeThrown(thrown));
  } catch {
    json = undefined;
  }
  return (
    OUTCOME.exception +
    (typeof json === 'string' ? json : '{"kind":"value","name":"","message":"","stack":""}')
  );
}

/**
 * Encodes the returned value by the rule of `json-encode.ts` (Date → ISO string, Map → object, ...);
 * a value the rule refuses → `I` with a message naming the path; certainly too large → `L`.
 */
export function encodeResult(value: unknown, maxResultBytes: number): string {
  // UTF-8 never takes fewer bytes than UTF-16 units: longer than the cap is certainly over it.
  const encoded = encodeJson(value, maxResultBytes);
  if (encoded.ok) return OUTCOME.result + encoded.json;
  if (encoded.tooLarge) return OUTCOME.tooLarge + encoded.length;
  return (
    OUTCOME.invalid +
    'the returned value cannot be sent as JSON: ' +
    capLength(encoded.message, 900)
  );
}

/**
 * Sends the outcome to the host (one message, no reply). Never throws: if the port is gone the
 * host has stopped listening anyway.
 */
export function sendOutcome(send: Send, text: string): void {
  try {
    send([MESSAGE.outcome, text]);
  } catch {
    // the host's wall-clock limit ends the run
  }
}

/**
 * Makes the function that starts the program and reports its outcome. It receives a thunk of the
 * program's function expression (see `PROGRAM_HOOK`), evaluates it and calls the function. As soon
 * as the program's promise settles (before its value is encoded) the wire closes: no more calls or
 * logs are sent, and replies still on their way are dropped. The outcome is
 * `<wire.sent>:<tag><payload>` (see `OUTCOME`), sent once through the port.
 *
 * The program's script runs with `runIgnored`, so isolated-vm's rule that a host→isolate call fails
 * when a promise rejection is left unhandled during it never applies: an unhandled rejection never
 * changes the outcome (which is what the program returns or throws), before or after an `await`.
 */
export function createRunner(send: Send, limits: RunLimits, wire: Wire): (thunk: unknown) => void {
  let started = false;
  return (thunk: unknown): void => {
    if (started) return;
    started = true;
    const settle = (encode: () => string): void => {
      if (wire.closed) return;
      wire.closed = true;
      const sent = wire.sent;
      sendOutcome(send, sent + OUTCOME_SEPARATOR + encode());
    };
    let returned: unknown;
    try {
      if (typeof thunk !== 'function') throw new ErrorCtor('the program is not a function');
      const program: unknown = ReflectApply(thunk as () => unknown, undefined, []);
      if (typeof program !== 'function') {
        settle(() => encodeThrown('the program is not a function'));
        return;
      }
      returned = ReflectApply(program as () => unknown, undefined, []);
    } catch (e) {
      settle(() => encodeThrown(e));
      return;
    }
    void promiseThen(
      promiseResolve(returned),
      (value) => settle(() => encodeResult(value, limits.maxResultBytes)),
      (e) => settle(() => encodeThrown(e)),
    );
  };
}
