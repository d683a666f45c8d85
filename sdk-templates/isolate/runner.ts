/**
 * Runs the program function and reports its outcome to the host as one tagged string (see
 * `OUTCOME`). The returned value is JSON-encoded here with the captured `JSON.stringify`, so
 * `toJSON` tricks and thenables can only affect the program's own result; the host receives a
 * string, never a guest object or promise.
 */
import { isToolCallError } from './errors.js';
import {
  MAX_ERROR_TEXT,
  MAX_STACK_TEXT,
  OUTCOME,
  OUTCOME_SEPARATOR,
  type ThrownDescription,
} from './protocol.js';
import type { HostRef, Wire } from './host-ref.js';
import {
  JSONStringify,
  nullRecord,
  ObjectCreate,
  PromiseCtor,
  promiseResolve,
  promiseThen,
  ReflectApply,
} from './primordials.js';
import { capLength, formatValue, thrownText } from './text.js';

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
  if (typeof thrown !== 'object' || thrown === null) {
    description.kind = 'value';
    description.name = '';
    description.message = capLength(formatValue(thrown), MAX_ERROR_TEXT);
    description.stack = '';
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

/** Encodes the returned value: `undefined` → `null`; not JSON → `I`; certainly too large → `L`. */
export function encodeResult(value: unknown, maxResultBytes: number): string {
  let json: unknown;
  try {
    json = value === undefined ? 'null' : JSONStringify(value);
  } catch (e) {
    return OUTCOME.invalid + 'the returned value is not JSON: ' + capLength(thrownText(e), 512);
  }
  if (typeof json !== 'string') {
    return OUTCOME.invalid + 'the returned value is not JSON (a ' + typeof value + ')';
  }
  // UTF-8 never takes fewer bytes than UTF-16 units: longer than the cap is certainly over it.
  if (json.length > maxResultBytes) return OUTCOME.tooLarge + json.length;
  return OUTCOME.result + json;
}

const TICK_OPTIONS = nullRecord({ result: nullRecord({ promise: true, copy: true }) });

/**
 * Makes the function the host calls with the program. As soon as the program's promise settles
 * (before its value is encoded) the wire closes: no more calls or logs are sent. The outcome is
 * `<wire.sent>:<tag><payload>` (see `OUTCOME`).
 *
 * The program does not start inside the host's call: the runner first waits for one round trip to
 * the host (`tickRef`). isolated-vm fails a host→isolate call with any promise rejection left
 * unhandled during it, but not the isolate's later tasks; starting after the round trip makes the
 * rule uniform — an unhandled rejection never changes the outcome (which is what the program
 * returns or throws) — instead of depending on whether it happened before the first `await`.
 */
export function createRunner(
  tickRef: HostRef,
  maxResultBytes: number,
  wire: Wire,
): (program: unknown) => Promise<string> {
  // eslint-disable-next-line @typescript-eslint/unbound-method -- called through ReflectApply with tickRef
  const tickApply = tickRef.apply;
  let started = false;
  return (program: unknown): Promise<string> =>
    new PromiseCtor<string>((resolve) => {
      if (started || typeof program !== 'function') {
        resolve('0' + OUTCOME_SEPARATOR + encodeThrown('the program is not a function'));
        return;
      }
      const settle = (encode: () => string): void => {
        wire.closed = true;
        const sent = wire.sent;
        resolve(sent + OUTCOME_SEPARATOR + encode());
      };
      started = true;
      const start = (): void => {
        let returned: unknown;
        try {
          returned = ReflectApply(program as () => unknown, undefined, []);
        } catch (e) {
          settle(() => encodeThrown(e));
          return;
        }
        void promiseThen(
          promiseResolve(returned),
          (value) => settle(() => encodeResult(value, maxResultBytes)),
          (e) => settle(() => encodeThrown(e)),
        );
      };
      let tick: Promise<unknown>;
      try {
        tick = ReflectApply(tickApply, tickRef, [undefined, [], TICK_OPTIONS]) as Promise<unknown>;
      } catch {
        tick = promiseResolve(undefined);
      }
      void promiseThen(tick, start, start);
    });
}
