/**
 * The ONE rule by which a program's returned value becomes JSON (decision record 018), and a bounded
 * preview of any value (for non-Error throws). One walk, guest hooks (getters, `toJSON`, proxy traps)
 * run once each, inside the walk's try/catch; types are told apart with the engine's brand checks
 * (captured intrinsics), never by `instanceof` or `Symbol.toStringTag`.
 *
 * The rule (strict mode):
 * - string, boolean, null, finite number: as they are; NaN and ±Infinity → null (as JSON.stringify);
 * - undefined: at the top → null; as an object property → the property is left out; in an array → null;
 * - an object with a `toJSON()` method → what it returns (as JSON.stringify);
 * - Date → its ISO string (an invalid Date → null); BigInt → its decimal string;
 * - Map → an object when every key is a string or a number (distinct as strings), otherwise an array
 *   of `[key, value]` pairs; Set → an array; a typed array → an array of numbers;
 * - Error → `{ name, message, ...its own enumerable properties }` (a ToolCallError keeps `code` and
 *   `toolName`); boxed primitives → the primitive; RegExp → its source text (`/a+/g`);
 * - refused, with a message naming the path (`result.items[3].when`): functions, symbols, promises
 *   (await them), cycles, class instances and other objects with a custom prototype (ArrayBuffer,
 *   WeakMap, ...), nesting deeper than {@link MAX_RESULT_DEPTH}, and a getter or `toJSON` that throws.
 *
 * Preview mode never refuses (functions, symbols, cycles and class instances become descriptive
 * strings) and stays valid JSON within about `maxChars`: long strings are cut and the entries past the
 * budget are replaced by one `"…"` marker.
 */
import { MAX_RESULT_DEPTH } from './protocol.js';
import {
  isArray,
  JSONStringify,
  ObjectCreate,
  ObjectGetPrototypeOf,
  ObjectKeys,
  objectTag,
  ReflectApply,
  StringCtor,
  stringSlice,
} from './primordials.js';
import { errorText } from './text.js';

/* eslint-disable @typescript-eslint/unbound-method -- intrinsics captured unbound, called through ReflectApply */
type Getter = (this: unknown) => unknown;
const getter = (proto: object, key: PropertyKey): Getter => {
  let o: object | null = proto;
  while (o !== null) {
    const d = Object.getOwnPropertyDescriptor(o, key);
    if (d !== undefined) return d.get as Getter;
    o = ObjectGetPrototypeOf(o) as object | null;
  }
  throw new Error('json-encode: no getter ' + StringCtor(key));
};
const ObjectPrototype = Object.prototype;
const DateGetTime = Date.prototype.getTime;
const DateToISOString = Date.prototype.toISOString;
const MapForEach = Map.prototype.forEach;
const MapSize = getter(Map.prototype, 'size');
const SetForEach = Set.prototype.forEach;
const SetSize = getter(Set.prototype, 'size');
const TypedArrayPrototype = ObjectGetPrototypeOf(Uint8Array.prototype) as object;
const TypedArrayTag = getter(TypedArrayPrototype, Symbol.toStringTag);
const TypedArrayLength = getter(TypedArrayPrototype, 'length');
const RegExpSource = getter(RegExp.prototype, 'source');
const RegExpToString = RegExp.prototype.toString;
const NumberValueOf = Number.prototype.valueOf;
const StringValueOf = String.prototype.valueOf;
const BooleanValueOf = Boolean.prototype.valueOf;
const BigIntValueOf = BigInt.prototype.valueOf;
/* eslint-enable @typescript-eslint/unbound-method */

/** What {@link encodeJson} produced. */
export type Encoded =
  | { ok: true; json: string }
  | { ok: false; tooLarge: true; length: number }
  | { ok: false; tooLarge: false; message: string };

/** Thrown inside the walk to stop it (compared by identity: no guest value can be either). */
const REFUSED = ObjectCreate(null) as object;
const FULL = ObjectCreate(null) as object;
/** Longest string kept whole in preview mode. */
const PREVIEW_STRING = 200;
const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

/** Calls `fn` on `target`; true when it did not throw (a brand check). */
function hasBrand(fn: Getter | ((...args: never[]) => unknown), target: object): boolean {
  try {
    ReflectApply(fn, target, []);
    return true;
  } catch {
    return false;
  }
}

/** The class name of an object for messages, read defensively (may run a guest getter). */
function className(value: object): string {
  try {
    const proto = ObjectGetPrototypeOf(value) as { constructor?: { name?: unknown } } | null;
    const name = proto?.constructor?.name;
    return typeof name === 'string' && name !== '' ? name : '';
  } catch {
    return '';
  }
}

/**
 * True when `value` is made only of strings, booleans, null, numbers, `undefined` and plain objects
 * and arrays without `toJSON` (within `budget` values and {@link MAX_RESULT_DEPTH} levels): then the
 * native `JSON.stringify` produces exactly what the rule does, about 14 times faster than the walk
 * (measured on 1.1 MB of objects). Anything else — and any guest throw — answers false, and the
 * walk decides. (On this path a getter runs twice: once here, once in the native stringify.)
 */
function isPlainJson(value: unknown, budget: number): boolean {
  let left = budget;
  const plain = (v: unknown, depth: number): boolean => {
    if (--left < 0) return false;
    const type = typeof v;
    if (type === 'string' || type === 'number' || type === 'boolean' || type === 'undefined')
      return true;
    if (type !== 'object') return false;
    if (v === null) return true;
    if (depth >= MAX_RESULT_DEPTH) return false;
    if (typeof (v as { toJSON?: unknown }).toJSON !== 'undefined') return false;
    if (isArray(v)) {
      for (let i = 0; i < v.length; i++) if (!plain(v[i], depth + 1)) return false;
      return true;
    }
    const proto = ObjectGetPrototypeOf(v) as object | null;
    if (proto !== ObjectPrototype && proto !== null) return false;
    const keys = ObjectKeys(v as object);
    for (let i = 0; i < keys.length; i++) {
      if (!plain((v as Record<string, unknown>)[keys[i] as string], depth + 1)) return false;
    }
    return true;
  };
  try {
    return plain(value, 0);
  } catch {
    return false;
  }
}

/**
 * Encodes `value` by the rule above (strict) or as a preview. `maxChars` bounds the JSON text
 * (strict: a longer text stops the walk with `tooLarge`; preview: entries past it become `"…"`).
 */
export function encodeJson(value: unknown, maxChars: number, preview = false): Encoded {
  if (!preview && isPlainJson(value, maxChars)) {
    try {
      const json = value === undefined ? 'null' : JSONStringify(value);
      if (typeof json === 'string')
        return json.length > maxChars
          ? { ok: false, tooLarge: true, length: json.length }
          : { ok: true, json };
    } catch {
      // changed under our feet (a getter): the walk decides
    }
  }
  let out = '';
  let full = false;
  let message = '';
  let depth = 0;
  // Ancestors and path segments by depth (null prototype: no inherited index setters).
  const stack = ObjectCreate(null) as Record<number, object>;
  const keys = ObjectCreate(null) as Record<number, string | number>;
  const kinds = ObjectCreate(null) as Record<number, number>;
  const KEY = 0;
  const MAP_KEY = 1;

  const pathTo = (level: number): string => {
    let p = 'result';
    for (let i = 1; i <= level; i++) {
      const k = keys[i] as string | number;
      if (kinds[i] === MAP_KEY) p += '.get(' + JSONStringify(k) + ')';
      else if (typeof k === 'number') p += '[' + StringCtor(k) + ']';
      else if (IDENTIFIER.test(k)) p += '.' + k;
      else p += '[' + JSONStringify(k) + ']';
    }
    return p;
  };
  const refuse = (what: string): never => {
    message = pathTo(depth) + ' ' + what;
    // eslint-disable-next-line @typescript-eslint/only-throw-error -- a sentinel, compared by identity
    throw REFUSED;
  };
  /** Preview: a description instead of a refusal. */
  const describe = (text: string): void => {
    out += JSONStringify(text);
  };
  const emit = (text: string): void => {
    out += text;
    if (out.length > maxChars) {
      // eslint-disable-next-line @typescript-eslint/only-throw-error -- a sentinel, compared by identity
      if (!preview) throw FULL;
      full = true;
    }
  };
  const string = (s: string): void => {
    emit(
      JSONStringify(
        preview && s.length > PREVIEW_STRING ? stringSlice(s, 0, PREVIEW_STRING) + '…' : s,
      ),
    );
  };

  /** Writes a value that is not `undefined` in an object (callers handle that). */
  const write = (v: unknown, key: string | number, callToJSON: boolean): void => {
    switch (typeof v) {
      case 'string':
        return string(v);
      case 'number':
        return emit(v === v && v !== Infinity && v !== -Infinity ? StringCtor(v) : 'null');
      case 'boolean':
        return emit(v ? 'true' : 'false');
      case 'bigint':
        return string(StringCtor(v));
      case 'undefined':
        return emit('null');
      case 'symbol':
        return preview ? describe(StringCtor(v)) : refuse('is a symbol, which has no JSON form');
      case 'function':
        return preview
          ? describe('[Function ' + (readName(v) || 'anonymous') + ']')
          : refuse(
              'is a function, which has no JSON form (did you mean to call it, or to return its result?)',
            );
      default:
        break;
    }
    if (v === null) return emit('null');
    const obj = v as object;
    // A plain subtree (see isPlainJson) is written by the native stringifier.
    if (!preview && callToJSON && isPlainJson(obj, maxChars - out.length)) {
      const json = JSONStringify(obj);
      if (typeof json === 'string') return emit(json);
    }
    if (callToJSON) {
      const toJSON = (obj as { toJSON?: unknown }).toJSON;
      if (typeof toJSON === 'function')
        return writeInner(ReflectApply(toJSON as Getter, obj, [StringCtor(key)]), key);
    }
    return writeObject(obj);
  };
  /** A value produced by `toJSON`: written without calling `toJSON` on it again. */
  const writeInner = (v: unknown, key: string | number): void => {
    if (v === undefined) return emit('null');
    return write(v, key, false);
  };

  const enter = (obj: object): boolean => {
    for (let i = 0; i < depth; i++) {
      if (stack[i] === obj) {
        if (preview) {
          describe('[Circular]');
          return false;
        }
        refuse('refers back to ' + pathTo(i) + ' (a cycle), which JSON cannot represent');
      }
    }
    if (depth >= MAX_RESULT_DEPTH) {
      if (preview) {
        describe('[Nested too deep]');
        return false;
      }
      refuse('nests arrays and objects more than ' + StringCtor(MAX_RESULT_DEPTH) + ' levels deep');
    }
    stack[depth] = obj;
    return true;
  };
  const at = (key: string | number, kind: number): void => {
    keys[depth] = key;
    kinds[depth] = kind;
  };

  const writeArrayLike = (length: number, item: (i: number) => unknown): void => {
    emit('[');
    for (let i = 0; i < length; i++) {
      if (i > 0) emit(',');
      if (full) {
        out += '"…"';
        break;
      }
      depth++;
      at(i, KEY);
      write(item(i), i, true);
      depth--;
    }
    emit(']');
  };

  const writeEntries = (
    names: ArrayLike<string>,
    value: (name: string) => unknown,
    kind: number,
  ): void => {
    emit('{');
    let first = true;
    for (let i = 0; i < names.length; i++) {
      const name = names[i] as string;
      depth++;
      at(name, kind);
      const item = value(name);
      if (item !== undefined) {
        if (!first) emit(',');
        if (full) {
          out += '"…":"…"';
          depth--;
          break;
        }
        first = false;
        emit(JSONStringify(name) + ':');
        write(item, name, true);
      }
      depth--;
    }
    emit('}');
  };

  const writeObject = (obj: object): void => {
    if (!enter(obj)) return;
    const proto = ObjectGetPrototypeOf(obj) as object | null;
    if (isArray(obj)) {
      const arr = obj;
      writeArrayLike(arr.length, (i) => arr[i]);
    } else if (proto === ObjectPrototype || proto === null) {
      const record = obj as Record<string, unknown>;
      writeEntries(
        ObjectKeys(obj),
        preview ? (name) => readOr(record, name) : (name) => record[name],
        KEY,
      );
    } else writeSpecial(obj);
    stack[depth] = REFUSED;
  };

  const writeSpecial = (obj: object): void => {
    if (hasBrand(DateGetTime, obj)) {
      const time = ReflectApply(DateGetTime, obj, []) as number;
      return time === time
        ? string(ReflectApply(DateToISOString, obj, []) as string)
        : emit('null');
    }
    if (hasBrand(MapSize, obj)) return writeMap(obj);
    if (hasBrand(SetSize, obj)) {
      const items = ObjectCreate(null) as Record<number, unknown>;
      let n = 0;
      ReflectApply(SetForEach, obj, [(item: unknown) => void (items[n++] = item)]);
      return writeArrayLike(n, (i) => items[i]);
    }
    const tag = ReflectApply(TypedArrayTag, obj, []);
    if (typeof tag === 'string') {
      const typed = obj as ArrayLike<number | bigint>;
      return writeArrayLike(ReflectApply(TypedArrayLength, obj, []) as number, (i) => typed[i]);
    }
    if (hasBrand(NumberValueOf, obj)) return write(ReflectApply(NumberValueOf, obj, []), 0, false);
    if (hasBrand(StringValueOf, obj)) return string(ReflectApply(StringValueOf, obj, []) as string);
    if (hasBrand(BooleanValueOf, obj))
      return write(ReflectApply(BooleanValueOf, obj, []), 0, false);
    if (hasBrand(BigIntValueOf, obj))
      return string(StringCtor(ReflectApply(BigIntValueOf, obj, [])));
    if (hasBrand(RegExpSource, obj)) return string(ReflectApply(RegExpToString, obj, []) as string);
    if (isErrorObject(obj)) return writeError(obj);
    if (typeof (obj as { then?: unknown }).then === 'function') {
      return preview
        ? describe('[Promise]')
        : refuse('is a Promise: await it before returning (e.g. `await Promise.all(list)`)');
    }
    const name = className(obj);
    if (preview) return describe('[' + (name === '' ? 'object' : name) + ']');
    refuse(
      (name === ''
        ? 'is an object with a custom prototype'
        : 'is an instance of ' + name + ' (not a plain object)') +
        ', which has no JSON form: return a plain object or array (e.g. `{ ...value }`, or pick its fields)',
    );
  };

  const writeMap = (map: object): void => {
    const mapKeys = ObjectCreate(null) as Record<number, unknown>;
    const values = ObjectCreate(null) as Record<number, unknown>;
    const seen = ObjectCreate(null) as Record<string, true>;
    let n = 0;
    let plain = true;
    ReflectApply(MapForEach, map, [
      (value: unknown, key: unknown) => {
        mapKeys[n] = key;
        values[n++] = value;
        if (!plain) return;
        const text =
          typeof key === 'string' || typeof key === 'number' ? StringCtor(key) : undefined;
        if (text === undefined || seen[text] === true) plain = false;
        else seen[text] = true;
      },
    ]);
    if (plain) {
      const names = ObjectCreate(null) as Record<number, string> & { length: number };
      const byName = ObjectCreate(null) as Record<string, unknown>;
      for (let i = 0; i < n; i++) {
        names[i] = StringCtor(mapKeys[i]);
        byName[names[i] as string] = values[i];
      }
      names.length = n;
      return writeEntries(names, (name) => byName[name], MAP_KEY);
    }
    // Keys that cannot all be property names: an array of [key, value] pairs.
    emit('[');
    for (let i = 0; i < n; i++) {
      if (i > 0) emit(',');
      if (full) {
        out += '"…"';
        break;
      }
      depth++;
      at(i, KEY);
      emit('[');
      write(mapKeys[i], 0, true);
      emit(',');
      write(values[i], 1, true);
      emit(']');
      depth--;
    }
    emit(']');
  };

  const writeError = (err: object): void => {
    const record = err as Record<string, unknown>;
    const own = ObjectKeys(err);
    const names = ObjectCreate(null) as Record<number, string> & { length: number };
    names[0] = 'name';
    names[1] = 'message';
    let n = 2;
    for (let i = 0; i < own.length; i++) {
      const k = own[i] as string;
      if (k !== 'name' && k !== 'message') names[n++] = k;
    }
    names.length = n;
    writeEntries(
      names,
      (name) =>
        name === 'name'
          ? readName(err) || 'Error'
          : name === 'message'
            ? readMessage(err)
            : record[name],
      KEY,
    );
  };

  try {
    write(value, '', true);
  } catch (e) {
    if (e === FULL) return { ok: false, tooLarge: true, length: out.length };
    if (e !== REFUSED) message = pathTo(depth) + ' could not be read: ' + describeThrow(e);
    return { ok: false, tooLarge: false, message };
  }
  return { ok: true, json: out };
}

/** Preview mode: a property whose getter throws reads as `"[unreadable]"`. */
function readOr(record: Record<string, unknown>, name: string): unknown {
  try {
    return record[name];
  } catch {
    return '[unreadable]';
  }
}

function isErrorObject(v: object): boolean {
  try {
    return objectTag(v) === '[object Error]';
  } catch {
    return false;
  }
}

function readName(v: object): string {
  try {
    const name = (v as { name?: unknown }).name;
    return typeof name === 'string' ? name : '';
  } catch {
    return '';
  }
}

function readMessage(v: object): string {
  try {
    const m = (v as { message?: unknown }).message;
    return typeof m === 'string' ? m : '';
  } catch {
    return '';
  }
}

function describeThrow(e: unknown): string {
  try {
    if (typeof e === 'object' && e !== null) return stringSlice(errorText(e), 0, 300);
    return stringSlice(StringCtor(e), 0, 300);
  } catch {
    return 'an exception';
  }
}
