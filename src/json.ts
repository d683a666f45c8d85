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
  const seen = new Set<object>();
  let values = 0;
  const visit = (v: unknown, path: string, depth: number): JsonProblem | undefined => {
    if (depth > maxDepth) return { path, problem: `nesting deeper than ${maxDepth}` };
    if (++values > MAX_JSON_VALUES)
      return {
        path,
        problem: `more than ${MAX_JSON_VALUES} values (a shared part counts each time)`,
      };
    switch (typeof v) {
      case 'string':
      case 'boolean':
        return undefined;
      case 'number':
        return Number.isFinite(v) ? undefined : { path, problem: `non-finite number ${String(v)}` };
      case 'undefined':
        return { path, problem: 'undefined is not JSON' };
      case 'bigint':
        return { path, problem: 'BigInt is not JSON' };
      case 'function':
        return { path, problem: 'a function is not JSON' };
      case 'symbol':
        return { path, problem: 'a symbol is not JSON' };
      case 'object':
        break;
    }
    if (v === null) return undefined;
    const obj = v;
    if (seen.has(obj)) return { path, problem: 'cycle' };
    seen.add(obj);
    try {
      if (Array.isArray(obj)) {
        for (let i = 0; i < obj.length; i++) {
          if (!Object.prototype.hasOwnProperty.call(obj, i))
            return { path: `${path}[${i}]`, problem: 'sparse array hole' };
          const p = visit((obj as unknown[])[i], `${path}[${i}]`, depth + 1);
          if (p) return p;
        }
        return undefined;
      }
      const proto: unknown = Object.getPrototypeOf(obj);
      if (proto !== Object.prototype && proto !== null)
        return { path, problem: 'not a plain object' };
      if (Object.getOwnPropertySymbols(obj).length > 0)
        return { path, problem: 'symbol keys are not JSON' };
      for (const key of Object.keys(obj)) {
        const desc = Object.getOwnPropertyDescriptor(obj, key);
        const child = `${path}.${key}`;
        if (!desc || !('value' in desc)) return { path: child, problem: 'accessor property' };
        const p = visit(desc.value, child, depth + 1);
        if (p) return p;
      }
      return undefined;
    } finally {
      seen.delete(obj);
    }
  };
  return visit(value, '$', 0);
}

/** True when `value` is plain JSON (see {@link findJsonProblem}). */
export function isJsonValue(value: unknown): value is JsonValue {
  return findJsonProblem(value) === undefined;
}
