/**
 * The isolate side of durable runs (docs/decisions/021-replay.md). Two things make a run
 * replayable after a crash:
 * - the clock and the dice: `Date.now()`, `new Date()` (no argument), `Date()`, `Math.random()`
 *   and the two APIs that read the time without a Date, `Intl.DateTimeFormat.prototype.format`
 *   and `formatToParts` called without a date, go through {@link installClock}'s wrappers. Outside a durable run they call the originals. In a
 *   durable run they first serve the values recorded by the run's earlier life, in order, then live
 *   ones, which are kept and shipped to the host with the next binding call (so the host stores
 *   them before that call's side effect can happen);
 * - the call site: each binding call of a durable run carries the stack of the program at the call
 *   (the host keeps the program's frames), so the host can key the call by site, arguments and
 *   occurrence.
 * Nothing here reaches guest code except the wrappers; the values are kept as number text (no
 * array a polluted prototype could intercept).
 */
import { MAX_RECORDED_VALUES } from './protocol.js';
import {
  ErrorCaptureStackTrace,
  JSONParse,
  ObjectCreate,
  ObjectDefineProperty,
  ReflectApply,
  ReflectConstruct,
  isArray,
  stringSlice,
} from './primordials.js';

/** Longest stack text a call carries. */
const MAX_SITE_TEXT = 4096;

const DateCtor = Date;
const dateNow = Date.now;
const mathRandom = Math.random;
const RangeErrorCtor = RangeError;
/* eslint-disable @typescript-eslint/unbound-method -- applied with ReflectApply */
const dateToString = Date.prototype.toString;
const weakMapGet = WeakMap.prototype.get;
const weakMapSet = WeakMap.prototype.set;
const DateTimeFormatPrototype = Intl.DateTimeFormat.prototype;
const ObjectGetOwnPropertyDescriptor = Object.getOwnPropertyDescriptor;
const formatGetter = ObjectGetOwnPropertyDescriptor(DateTimeFormatPrototype, 'format')?.get;
const formatToPartsIntrinsic = DateTimeFormatPrototype.formatToParts;
/* eslint-enable @typescript-eslint/unbound-method */

interface Tape {
  on: boolean;
  /** Values to serve first, and the next index in each. */
  clock: readonly unknown[];
  random: readonly unknown[];
  clockAt: number;
  randomAt: number;
  /** Live values since the last call, as comma-separated number text. */
  freshClock: string;
  freshRandom: string;
  /** Live values kept so far. */
  kept: number;
}

const tape = ObjectCreate(null) as Tape;
tape.on = false;
tape.clock = [];
tape.random = [];
tape.clockAt = 0;
tape.randomAt = 0;
tape.freshClock = '';
tape.freshRandom = '';
tape.kept = 0;

function keep(): void {
  if (tape.kept >= MAX_RECORDED_VALUES)
    throw new RangeErrorCtor(
      'a durable run may use at most ' +
        MAX_RECORDED_VALUES +
        ' values of Date.now(), new Date(), Intl date formatting and Math.random() together',
    );
  tape.kept++;
}

function nextClock(): number {
  if (!tape.on) return dateNow();
  const at = tape.clockAt;
  if (at < tape.clock.length) {
    tape.clockAt = at + 1;
    const v = tape.clock[at];
    if (typeof v === 'number') return v;
  }
  keep();
  const v = dateNow();
  tape.freshClock = tape.freshClock === '' ? '' + v : tape.freshClock + ',' + v;
  return v;
}

function nextRandom(): number {
  if (!tape.on) return mathRandom();
  const at = tape.randomAt;
  if (at < tape.random.length) {
    tape.randomAt = at + 1;
    const v = tape.random[at];
    if (typeof v === 'number') return v;
  }
  keep();
  const v = mathRandom();
  tape.freshRandom = tape.freshRandom === '' ? '' + v : tape.freshRandom + ',' + v;
  return v;
}

function define(target: object, key: PropertyKey, value: unknown): void {
  ObjectDefineProperty(target, key, {
    value,
    writable: true,
    enumerable: false,
    configurable: true,
  });
}

/**
 * Replaces `Date` (constructor, `Date()`, `Date.now`), `Math.random` and the date-less reads of
 * `Intl.DateTimeFormat` on this context's global by the recording wrappers. `instanceof Date`, `Date.prototype`, `Date.parse` and `Date.UTC`
 * behave as before. Runs once per context, before any guest code.
 */
export function installClock(): void {
  const global = globalThis as unknown as Record<string, unknown>;
  const prototype = DateCtor.prototype;
  // Rest parameters are built by the engine (no guest-mutable iterator is involved).
  const wrapper = function Date(this: unknown, ...args: unknown[]): unknown {
    if (new.target === undefined)
      return ReflectApply(dateToString, ReflectConstruct(DateCtor, [nextClock()]), []);
    return ReflectConstruct(
      DateCtor,
      args.length === 0 ? [nextClock()] : args,
      new.target as never,
    );
  };
  ObjectDefineProperty(wrapper, 'length', { value: 7 });
  ObjectDefineProperty(wrapper, 'prototype', {
    value: prototype,
    writable: false,
    enumerable: false,
    configurable: false,
  });
  define(prototype, 'constructor', wrapper);
  const now = function now(): number {
    return nextClock();
  };
  define(wrapper, 'now', now);
  define(wrapper, 'parse', DateCtor.parse);
  define(wrapper, 'UTC', DateCtor.UTC);
  define(global, 'Date', wrapper);
  define(Math, 'random', function random(): number {
    return nextRandom();
  });
  installIntlClock();
}

/**
 * `Intl.DateTimeFormat.prototype.format` and `formatToParts` read the current time when called
 * without a date (`new Intl.DateTimeFormat().format()`): in a durable run an undefined date
 * becomes the recorded clock's next value. Outside one, `format` hands out the engine's own bound
 * function (one `tape.on` test per property read, none per call) and `formatToParts` passes its
 * argument through. In a durable run `format` gives one wrapper per formatter (kept in a WeakMap
 * whose methods were captured before any guest code), so `f.format === f.format` still holds.
 */
function installIntlClock(): void {
  const getter = formatGetter;
  if (getter !== undefined) {
    const wrappers = new WeakMap<object, (date?: unknown) => string>();
    const get = function format(this: unknown): unknown {
      const bound = ReflectApply(getter, this, []) as (date?: unknown) => string;
      if (!tape.on) return bound;
      const self = this as object;
      let wrapper = ReflectApply(weakMapGet, wrappers, [self]) as
        ((date?: unknown) => string) | undefined;
      if (wrapper === undefined) {
        wrapper = function (date?: unknown): string {
          return bound(date === undefined ? nextClock() : date);
        };
        ObjectDefineProperty(wrapper, 'name', { value: '' });
        ReflectApply(weakMapSet, wrappers, [self, wrapper]);
      }
      return wrapper;
    };
    ObjectDefineProperty(get, 'name', { value: 'get format' });
    ObjectDefineProperty(DateTimeFormatPrototype, 'format', {
      get,
      enumerable: false,
      configurable: true,
    });
  }
  const formatToParts = function formatToParts(this: unknown, date?: unknown): unknown {
    return ReflectApply(formatToPartsIntrinsic, this, [
      date === undefined && tape.on ? nextClock() : date,
    ]);
  };
  define(DateTimeFormatPrototype, 'formatToParts', formatToParts);
}

/**
 * Starts durable mode for this context's run: `recorded` is 0 (not durable) or the JSON text of
 * `[clock[], random[]]`, the values to serve first. Returns false for a malformed value.
 */
export function startTape(recorded: unknown): boolean {
  if (recorded === 0) return true;
  if (typeof recorded !== 'string') return false;
  let parsed: unknown;
  try {
    parsed = JSONParse(recorded);
  } catch {
    return false;
  }
  if (!isArray(parsed) || parsed.length !== 2) return false;
  const clock: unknown = parsed[0];
  const random: unknown = parsed[1];
  if (!isArray(clock) || !isArray(random)) return false;
  tape.clock = clock;
  tape.random = random;
  tape.on = true;
  return true;
}

/** True in a durable run. */
export function durable(): boolean {
  return tape.on;
}

/**
 * What a binding call of a durable run carries: the stack at the call (below `binding`, capped)
 * and the live values since the previous call (JSON `[[clock…],[random…]]`, or `""` when none).
 */
export function callTrace(binding: (...args: never[]) => unknown): [string, string] {
  const holder = ObjectCreate(null) as { stack?: unknown };
  let site = '';
  try {
    ErrorCaptureStackTrace(holder, binding);
    const stack = holder.stack;
    if (typeof stack === 'string') site = stringSlice(stack, 0, MAX_SITE_TEXT);
  } catch {
    site = '';
  }
  let values = '';
  if (tape.freshClock !== '' || tape.freshRandom !== '') {
    values = '[[' + tape.freshClock + '],[' + tape.freshRandom + ']]';
    tape.freshClock = '';
    tape.freshRandom = '';
  }
  return [site, values];
}
