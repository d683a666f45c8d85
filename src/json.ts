/** JSON values and a strict plain-JSON check used at every trust boundary. */

/** A JSON value. */
export type JsonValue =
  null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };
/** A JSON object. */
export type JsonObject = { [key: string]: JsonValue };

/** Why a value is not plain JSON, with the path of the first offending member. */
export interface JsonProblem {
  path: string;
  problem: string;
}

/**
 * The deepest nesting of arrays and objects accepted in any JSON that crosses a trust boundary:
 * tool arguments, tool results, a program's return value. The executor and the sandbox both read
 * it from here, so a value that passes one is never refused by the other for its depth.
 */
export const MAX_JSON_DEPTH = 256;

/**
 * The most values (each array, object, string, number, boolean and null) a value may hold as JSON
 * writes it: a part reached twice counts twice. More than a 4 MiB JSON text can hold, and a bound
 * on the host's work for a value whose parts are shared level after level (40 levels of an object
 * naming the next one twice are 2^40 values as JSON: the check, and every later writer, would
 * never finish).
 */
export const MAX_JSON_VALUES = 1_000_000;

/**
 * True when the JSON text `json` nests arrays and objects deeper than `max`. A linear scan of
 * the text (strings skipped), cheaper than parsing, for checks made before a value is parsed.
 */
export function jsonTooDeep(json: string, max: number = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  for (let i = 0; i < json.length; i++) {
    const c = json.charCodeAt(i);
    if (c === 0x22 /* " */) {
      for (i++; i < json.length; i++) {
        const d = json.charCodeAt(i);
        if (d === 0x5c /* \ */) i++;
        else if (d === 0x22) break;
      }
    } else if (c === 0x5b /* [ */ || c === 0x7b /* { */) {
      if (++depth > max) return true;
    } else if (c === 0x5d /* ] */ || c === 0x7d /* } */) depth--;
  }
  return false;
}

/**
 * Checks that `value` is plain JSON: null, booleans, finite numbers, strings, arrays and plain
 * objects (prototype `Object.prototype` or null) — no `undefined`, functions, symbols, BigInt,
 * non-finite numbers, cycles, sparse arrays, accessors or class instances — within
 * {@link MAX_JSON_DEPTH} and {@link MAX_JSON_VALUES}.
 * @returns undefined when the value is plain JSON, otherwise the first problem found.
 */
export function findJsonProblem(
  value: unknown,
  maxDepth = MAX_JSON_DEPTH,
): JsonProblem | undefined {
  const walked = walkJson(value, maxDepth, false);
  return 'problem' in walked ? walked.problem : undefined;
}

/**
 * The same check as {@link findJsonProblem}, and on success a copy of the value that shares nothing
 * with it (objects keep their prototype, `Object.prototype` or null): what one side of a boundary
 * hands the other, so that neither can change what the other holds (the executor copies a call's
 * arguments in and a tool's value out).
 */
export function copyJson(
  value: unknown,
  maxDepth = MAX_JSON_DEPTH,
): { value: JsonValue } | { problem: JsonProblem } {
  return walkJson(value, maxDepth, true);
}

/** One walk for both: checks, and copies when `copy`. */
function walkJson(
  value: unknown,
  maxDepth: number,
  copy: boolean,
): { value: JsonValue } | { problem: JsonProblem } {
  const seen = new Set<object>();
  let values = 0;
  let problem: JsonProblem | undefined;
  const fail = (path: string, what: string): undefined => {
    problem = { path, problem: what };
    return undefined;
  };
  // Returns the value (or its copy), or undefined with `problem` set.
  const visit = (v: unknown, path: string, depth: number): JsonValue | undefined => {
    if (depth > maxDepth) return fail(path, `nesting deeper than ${maxDepth}`);
    if (++values > MAX_JSON_VALUES)
      return fail(path, `more than ${MAX_JSON_VALUES} values (a shared part counts each time)`);
    switch (typeof v) {
      case 'string':
      case 'boolean':
        return v;
      case 'number':
        return Number.isFinite(v) ? v : fail(path, `non-finite number ${String(v)}`);
      case 'undefined':
        return fail(path, 'undefined is not JSON');
      case 'bigint':
        return fail(path, 'BigInt is not JSON');
      case 'function':
        return fail(path, 'a function is not JSON');
      case 'symbol':
        return fail(path, 'a symbol is not JSON');
      case 'object':
        break;
    }
    if (v === null) return null;
    const obj = v;
    if (seen.has(obj)) return fail(path, 'cycle');
    seen.add(obj);
    try {
      if (Array.isArray(obj)) {
        const out: JsonValue[] | undefined = copy ? new Array<JsonValue>(obj.length) : undefined;
        for (let i = 0; i < obj.length; i++) {
          if (!Object.prototype.hasOwnProperty.call(obj, i))
            return fail(`${path}[${i}]`, 'sparse array hole');
          const item = visit((obj as unknown[])[i], `${path}[${i}]`, depth + 1);
          if (item === undefined) return undefined;
          if (out) out[i] = item;
        }
        return out ?? (obj as JsonValue[]);
      }
      const proto: unknown = Object.getPrototypeOf(obj);
      if (proto !== Object.prototype && proto !== null) return fail(path, 'not a plain object');
      if (Object.getOwnPropertySymbols(obj).length > 0)
        return fail(path, 'symbol keys are not JSON');
      const out: Record<string, JsonValue> | undefined = copy
        ? (Object.create(proto) as Record<string, JsonValue>)
        : undefined;
      for (const key of Object.keys(obj)) {
        const desc = Object.getOwnPropertyDescriptor(obj, key);
        const child = `${path}.${key}`;
        if (!desc || !('value' in desc)) return fail(child, 'accessor property');
        const item = visit(desc.value, child, depth + 1);
        if (item === undefined) return undefined;
        // "__proto__" is defined as an own property, as JSON.parse makes it.
        if (out) {
          if (key === '__proto__') Object.defineProperty(out, key, DATA(item));
          else out[key] = item;
        }
      }
      return out ?? (obj as JsonValue);
    } finally {
      seen.delete(obj);
    }
  };
  const result = visit(value, '$', 0);
  return result === undefined ? { problem: problem as JsonProblem } : { value: result };
}

const DATA = (value: JsonValue): PropertyDescriptor => ({
  value,
  writable: true,
  enumerable: true,
  configurable: true,
});

/** True when `value` is plain JSON (see {@link findJsonProblem}). */
export function isJsonValue(value: unknown): value is JsonValue {
  return findJsonProblem(value) === undefined;
}
