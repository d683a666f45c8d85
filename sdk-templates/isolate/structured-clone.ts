/**
 * `structuredClone` for what a program can hold: JSON-like values plus Date, RegExp, Map, Set,
 * ArrayBuffer, typed arrays, DataView, Error, boxed primitives and BigInt; cycles and shared
 * references are preserved; class instances become plain objects (their own enumerable
 * properties), as in browsers. Functions, symbols, promises, WeakMap/WeakSet/WeakRef throw a
 * `DataCloneError`; `transfer` is not supported. Plain JS on the run's heap; no host reference.
 */
import { DOMException } from './base64.js';

/* eslint-disable @typescript-eslint/unbound-method -- brand checks through Reflect.apply */
const DateGetTime = Date.prototype.getTime;
const MapGetSize = Object.getOwnPropertyDescriptor(Map.prototype, 'size')?.get as () => number;
const SetGetSize = Object.getOwnPropertyDescriptor(Set.prototype, 'size')?.get as () => number;
const BufferByteLength = Object.getOwnPropertyDescriptor(ArrayBuffer.prototype, 'byteLength')
  ?.get as () => number;
const RegExpSource = Object.getOwnPropertyDescriptor(RegExp.prototype, 'source')
  ?.get as () => string;
const WeakMapHas = WeakMap.prototype.has;
const WeakSetHas = WeakSet.prototype.has;
const WeakRefDeref = WeakRef.prototype.deref;
const PromiseThen = Promise.prototype.then;
const NumberValueOf = Number.prototype.valueOf;
const StringValueOf = String.prototype.valueOf;
const BooleanValueOf = Boolean.prototype.valueOf;
const BigIntValueOf = BigInt.prototype.valueOf;
/* eslint-enable @typescript-eslint/unbound-method */
const noop = (): void => {};

function brand(fn: (...args: never[]) => unknown, v: object, args: unknown[] = []): boolean {
  try {
    Reflect.apply(fn, v, args);
    return true;
  } catch {
    return false;
  }
}

const ERRORS: Readonly<Record<string, ErrorConstructor>> = {
  Error,
  EvalError,
  RangeError,
  ReferenceError,
  SyntaxError,
  TypeError,
  URIError,
};

const uncloneable = (what: string): DOMException =>
  new DOMException(`structuredClone: ${what} could not be cloned`, 'DataCloneError');

/** A deep copy of `value` (see the module comment). */
export function structuredClone<T>(value: T, options?: { transfer?: unknown[] }): T {
  if (arguments.length === 0)
    throw new TypeError('structuredClone: 1 argument required, but only 0 present');
  if (options?.transfer !== undefined && options.transfer.length > 0)
    throw new DOMException('structuredClone: transfer is not supported', 'DataCloneError');
  const memory = new Map<object, unknown>();

  const clone = (v: unknown): unknown => {
    if (typeof v === 'symbol') throw uncloneable(String(v));
    if (typeof v === 'function') throw uncloneable(`function ${v.name || 'anonymous'}`);
    if (typeof v !== 'object' || v === null) return v;
    if (memory.has(v)) return memory.get(v);
    if (Array.isArray(v)) {
      const out: unknown[] = new Array<unknown>(v.length);
      memory.set(v, out);
      for (const key of Object.keys(v))
        (out as unknown as Record<string, unknown>)[key] = clone(
          (v as unknown as Record<string, unknown>)[key],
        );
      return out;
    }
    const proto = Object.getPrototypeOf(v) as object | null;
    if (proto !== Object.prototype && proto !== null) {
      const special = cloneSpecial(v);
      if (special !== NOT_SPECIAL) return special;
    }
    const out: Record<string, unknown> = {};
    memory.set(v, out);
    for (const key of Object.keys(v)) out[key] = clone((v as Record<string, unknown>)[key]);
    return out;
  };

  const NOT_SPECIAL = memory; // a unique marker no clone can be
  const cloneSpecial = (v: object): unknown => {
    let out: unknown;
    if (brand(DateGetTime, v)) out = new Date(Reflect.apply(DateGetTime, v, []));
    else if (brand(RegExpSource, v)) {
      const r = v as RegExp;
      out = new RegExp(r.source, r.flags);
    } else if (brand(BufferByteLength, v)) out = (v as ArrayBuffer).slice(0);
    else if (ArrayBuffer.isView(v)) {
      const buffer = clone(v.buffer) as ArrayBuffer;
      const Ctor = (v instanceof DataView ? DataView : v.constructor) as new (
        b: ArrayBuffer,
        o: number,
        l: number,
      ) => ArrayBufferView;
      const length = v instanceof DataView ? v.byteLength : (v as Uint8Array).length;
      out = new Ctor(buffer, v.byteOffset, length);
    } else if (brand(MapGetSize, v)) {
      const map = new Map<unknown, unknown>();
      memory.set(v, map);
      const entries: [unknown, unknown][] = [];
      (v as Map<unknown, unknown>).forEach((value, key) => entries.push([key, value]));
      for (const [key, value] of entries) map.set(clone(key), clone(value));
      return map;
    } else if (brand(SetGetSize, v)) {
      const set = new Set<unknown>();
      memory.set(v, set);
      const items: unknown[] = [];
      (v as Set<unknown>).forEach((item) => items.push(item));
      for (const item of items) set.add(clone(item));
      return set;
    } else if (brand(NumberValueOf, v)) out = Object(Reflect.apply(NumberValueOf, v, []));
    else if (brand(StringValueOf, v)) out = Object(Reflect.apply(StringValueOf, v, []));
    else if (brand(BooleanValueOf, v)) out = Object(Reflect.apply(BooleanValueOf, v, []));
    else if (brand(BigIntValueOf, v)) out = Object(Reflect.apply(BigIntValueOf, v, []));
    else if (Object.prototype.toString.call(v) === '[object Error]') {
      const e = v as Error;
      const Ctor = ERRORS[String(e.name)] ?? Error;
      const copy = new Ctor(String(e.message));
      memory.set(v, copy);
      if (typeof e.stack === 'string')
        Object.defineProperty(copy, 'stack', {
          value: e.stack,
          writable: true,
          configurable: true,
        });
      if ('cause' in e)
        Object.defineProperty(copy, 'cause', {
          value: clone(e.cause),
          writable: true,
          configurable: true,
        });
      return copy;
    } else if (brand(WeakMapHas, v, [{}])) throw uncloneable('a WeakMap');
    else if (brand(WeakSetHas, v, [{}])) throw uncloneable('a WeakSet');
    else if (brand(WeakRefDeref, v)) throw uncloneable('a WeakRef');
    else if (brand(PromiseThen, v, [noop, noop])) throw uncloneable('a Promise');
    else return NOT_SPECIAL;
    memory.set(v, out);
    return out;
  };

  return clone(value) as T;
}
