/**
 * Intrinsics captured when the bootstrap modules evaluate, before any guest code runs. A program
 * may overwrite `JSON.stringify`, `Promise.prototype.then`, `String.prototype.slice`, … afterwards;
 * the bridge keeps using these originals. Rules for code that runs after the program starts:
 * call prototype methods only through these wrappers, never spread (`...` uses the guest-mutable
 * array iterator), never `for…of` over arrays, never template literals over non-strings.
 */

/** An intrinsic called through {@link ReflectApply}; typed loosely on purpose. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any function may be applied
type Applicable = (...args: any[]) => unknown;
/** `Reflect.apply`, typed loosely: callers cast the result. */
export const ReflectApply: (
  target: Applicable,
  thisArgument: unknown,
  args: ArrayLike<unknown>,
) => unknown = Reflect.apply;
export const ObjectCreate = Object.create;
export const ObjectDefineProperty = Object.defineProperty;
export const ObjectFreeze = Object.freeze;
export const ObjectGetPrototypeOf = Object.getPrototypeOf;
export const ObjectHasOwn = Object.hasOwn;
export const ObjectKeys = Object.keys;
export const JSONStringify = JSON.stringify;
export const JSONParse = JSON.parse;
export const StringCtor = String;
export const PromiseCtor = Promise;
export const ErrorCtor = Error;
/** `Error.captureStackTrace` (V8), captured before a program could replace it. */
export const ErrorCaptureStackTrace: (target: object, constructorOpt?: Applicable) => void = (
  Error as unknown as { captureStackTrace: (target: object, constructorOpt?: Applicable) => void }
).captureStackTrace;
export const EvalErrorCtor = EvalError;
export const TypeErrorCtor = TypeError;
/** `Reflect.construct`, typed loosely. */
export const ReflectConstruct: (
  target: Applicable,
  args: ArrayLike<unknown>,
  newTarget?: Applicable,
) => object = Reflect.construct as never;
export const MathMin = Math.min;
export const ProxyCtor = Proxy;
export const ReflectGet = Reflect.get;
export const ReflectHas = Reflect.has;
export const ReflectGetOwnPropertyDescriptor = Reflect.getOwnPropertyDescriptor;
export const ReflectIsExtensible = Reflect.isExtensible;
export const ReflectPreventExtensions = Reflect.preventExtensions;
export const ReflectDefineProperty = Reflect.defineProperty;
export const ReflectDeleteProperty = Reflect.deleteProperty;
export const ReflectSetPrototypeOf = Reflect.setPrototypeOf;

/* eslint-disable @typescript-eslint/unbound-method -- intrinsics are captured unbound on purpose and only called through ReflectApply */
const promiseThenIntrinsic = Promise.prototype.then;
const promiseResolveIntrinsic = Promise.resolve;
const promiseRejectIntrinsic = Promise.reject;
const stringSliceIntrinsic = String.prototype.slice;
const stringIndexOfIntrinsic = String.prototype.indexOf;
const charCodeAtIntrinsic = String.prototype.charCodeAt;
const objectToStringIntrinsic = Object.prototype.toString;
const arrayIsArrayIntrinsic = Array.isArray;
/* eslint-enable @typescript-eslint/unbound-method */

/** `p.then(onFulfilled, onRejected)` with the original `then`. */
export function promiseThen<T, R>(
  p: Promise<T>,
  onFulfilled: (value: T) => R,
  onRejected: (reason: unknown) => R,
): Promise<R> {
  return ReflectApply(promiseThenIntrinsic, p, [onFulfilled, onRejected]) as Promise<R>;
}

/** `Promise.resolve(value)` with the original constructor. */
export function promiseResolve(value: unknown): Promise<unknown> {
  return ReflectApply(promiseResolveIntrinsic, PromiseCtor, [value]) as Promise<unknown>;
}

/** `Promise.reject(reason)` with the original constructor. */
export function promiseReject(reason: unknown): Promise<never> {
  return ReflectApply(promiseRejectIntrinsic, PromiseCtor, [reason]) as Promise<never>;
}

/** `s.slice(start, end)` with the original method. */
export function stringSlice(s: string, start: number, end?: number): string {
  return ReflectApply(
    stringSliceIntrinsic,
    s,
    end === undefined ? [start] : [start, end],
  ) as string;
}

/** `s.indexOf(search, from)` with the original method. */
export function stringIndexOf(s: string, search: string, from: number): number {
  return ReflectApply(stringIndexOfIntrinsic, s, [search, from]) as number;
}

/** `s.charCodeAt(i)` with the original method. */
export function charCodeAt(s: string, i: number): number {
  return ReflectApply(charCodeAtIntrinsic, s, [i]) as number;
}

/** `Object.prototype.toString.call(v)`; may still run a guest `Symbol.toStringTag` getter. */
export function objectTag(v: unknown): string {
  return ReflectApply(objectToStringIntrinsic, v, []) as string;
}

/** `Array.isArray(v)` with the original function. */
export function isArray(v: unknown): v is unknown[] {
  return arrayIsArrayIntrinsic(v);
}

/** A frozen object with a null prototype, so no inherited (possibly polluted) property is read. */
export function nullRecord<T extends object>(fields: T): T {
  const out = ObjectCreate(null) as T;
  const keys = ObjectKeys(fields);
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i] as keyof T & string;
    ObjectDefineProperty(out, key, { value: fields[key], enumerable: true });
  }
  return ObjectFreeze(out);
}
