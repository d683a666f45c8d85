/**
 * Text helpers that must survive hostile values: every guest hook they may trigger (`toJSON`,
 * getters, `Symbol.toStringTag`, proxy traps) runs inside try/catch, so a program cannot break
 * the console or the bridge by logging or throwing a booby-trapped object.
 */
import { charCodeAt, JSONStringify, objectTag, stringSlice, StringCtor } from './primordials.js';

/** UTF-8 byte length of `s`, counting a lone surrogate as 3 bytes (as Node's `Buffer.byteLength`). */
export function utf8Length(s: string): number {
  let bytes = 0;
  const len = s.length;
  for (let i = 0; i < len; i++) {
    const c = charCodeAt(s, i);
    if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < len) {
      const d = charCodeAt(s, i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        bytes += 4;
        i++;
      } else bytes += 3;
    } else bytes += 3;
  }
  return bytes;
}

/** The longest prefix of `s` whose UTF-8 encoding fits in `maxBytes` (never splits a surrogate pair). */
export function truncateUtf8(s: string, maxBytes: number): string {
  if (maxBytes <= 0) return '';
  let bytes = 0;
  const len = s.length;
  for (let i = 0; i < len; i++) {
    const c = charCodeAt(s, i);
    let width = 3;
    let units = 1;
    if (c < 0x80) width = 1;
    else if (c < 0x800) width = 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < len) {
      const d = charCodeAt(s, i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        width = 4;
        units = 2;
      }
    }
    if (bytes + width > maxBytes) return stringSlice(s, 0, i);
    bytes += width;
    i += units - 1;
  }
  return s;
}

/**
 * `s` cut to at most `max` UTF-16 units, never between the halves of a surrogate pair (the
 * isolate's copy of the host's rule in src/text/clip.ts: this side cannot import host modules).
 */
export function capLength(s: string, max: number): string {
  if (s.length <= max) return s;
  const last = max > 0 ? charCodeAt(s, max - 1) : 0;
  return stringSlice(s, 0, last >= 0xd800 && last <= 0xdbff ? max - 1 : max);
}

function readString(obj: object, key: string): string | undefined {
  try {
    const v: unknown = (obj as Record<string, unknown>)[key];
    return typeof v === 'string' ? v : undefined;
  } catch {
    return undefined;
  }
}

function isErrorObject(v: object): boolean {
  try {
    return objectTag(v) === '[object Error]';
  } catch {
    return false;
  }
}

/** `Name: message` of an error object, read defensively. */
export function errorText(e: object): string {
  const name = readString(e, 'name') ?? 'Error';
  const message = readString(e, 'message') ?? '';
  return message === '' ? name : name + ': ' + message;
}

/**
 * Formats one console argument: strings as they are, primitives with `String`, errors as
 * `Name: message`, functions as `[Function: name]`, other objects as JSON, falling back to
 * `[object Tag]` when JSON fails. Never throws.
 */
export function formatValue(v: unknown): string {
  try {
    switch (typeof v) {
      case 'string':
        return v;
      case 'number':
      case 'boolean':
      case 'undefined':
      case 'symbol':
        return StringCtor(v);
      case 'bigint':
        return StringCtor(v) + 'n';
      case 'function':
        return '[Function: ' + (readString(v, 'name') || 'anonymous') + ']';
      default:
        break;
    }
    if (v === null) return 'null';
    const obj = v as object;
    if (isErrorObject(obj)) return errorText(obj);
    try {
      const json: unknown = JSONStringify(obj);
      if (typeof json === 'string') return json;
    } catch {
      // fall through to the tag
    }
    return objectTag(obj);
  } catch {
    return '[unprintable value]';
  }
}

/** The arguments of one console call, formatted and joined with spaces. */
export function formatArgs(args: readonly unknown[]): string {
  let out = '';
  for (let i = 0; i < args.length; i++) {
    if (i > 0) out += ' ';
    out += formatValue(args[i]);
  }
  return out;
}

/** A short description of a thrown value, for messages such as "arguments are not JSON: …". */
export function thrownText(e: unknown): string {
  if (typeof e === 'object' && e !== null) {
    const message = readString(e, 'message');
    if (message !== undefined) return message;
  }
  return formatValue(e);
}
