/**
 * Runs the program function and reports its outcome to the host as one tagged string (see
 * `OUTCOME`). The returned value is JSON-encoded here with the captured `JSON.stringify`, so
 * `toJSON` tricks and thenables can only affect the program's own result; the host receives a
 * string, never a guest object or promise.
 */
import { isToolCallError } from './errors.js';
import { MAX_ERROR_TEXT, MAX_STACK_TEXT, OUTCOME, type ThrownDescription } from './protocol.js';
import { JSONStringify, ObjectCreate, PromiseCtor, promiseResolve, promiseThen, ReflectApply } from './primordials.js';
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
  return OUTCOME.exception + (typeof json === 'string' ? json : '{"kind":"value","name":"","message":"","stack":""}');
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

/**
 * Makes the function the host calls with the program. `onSettled` runs as soon as the program's
 * promise settles (before its value is encoded), which closes the bridge.
 */
export function createRunner(maxResultBytes: number, onSettled: () => void): (program: unknown) => Promise<string> {
  let started = false;
  return (program: unknown): Promise<string> =>
    new PromiseCtor<string>((resolve) => {
      if (started || typeof program !== 'function') {
        resolve(encodeThrown('the program is not a function'));
        return;
      }
      started = true;
      let returned: unknown;
      try {
        returned = ReflectApply(program as () => unknown, undefined, []);
      } catch (e) {
        onSettled();
        resolve(encodeThrown(e));
        return;
      }
      void promiseThen(
        promiseResolve(returned),
        (value) => {
          onSettled();
          resolve(encodeResult(value, maxResultBytes));
        },
        (e) => {
          onSettled();
          resolve(encodeThrown(e));
        },
      );
    });
}
