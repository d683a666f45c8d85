/**
 * `DOMException` (the minimal shape the web globals throw: `name`, `message`, `code`) and
 * `atob`/`btoa` (WHATWG forgiving-base64). Plain JS on the run's heap; no host reference.
 */

const LEGACY_CODES: Readonly<Record<string, number>> = {
  InvalidCharacterError: 5,
  DataCloneError: 25,
  SyntaxError: 12,
  NotSupportedError: 9,
};

/** The error web APIs throw (`InvalidCharacterError`, `DataCloneError`, ...). */
export class DOMException extends Error {
  readonly #name: string;
  constructor(message = '', name = 'Error') {
    super(String(message));
    this.#name = String(name);
  }
  override get name(): string {
    return this.#name;
  }
  get code(): number {
    return LEGACY_CODES[this.#name] ?? 0;
  }
}

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const VALUES = new Int16Array(128).fill(-1);
for (let i = 0; i < ALPHABET.length; i++) VALUES[ALPHABET.charCodeAt(i)] = i;

/** Base64 of a binary string (every code unit ≤ 0xFF, else `InvalidCharacterError`). */
export function btoa(data: unknown): string {
  if (arguments.length === 0) throw new TypeError('btoa: 1 argument required, but only 0 present');
  const s = String(data);
  const parts: string[] = [];
  let chunk = '';
  for (let i = 0; i < s.length; i += 3) {
    const a = s.charCodeAt(i);
    const b = i + 1 < s.length ? s.charCodeAt(i + 1) : 0;
    const c = i + 2 < s.length ? s.charCodeAt(i + 2) : 0;
    if (a > 0xff || b > 0xff || c > 0xff)
      throw new DOMException(
        'btoa: the string contains characters outside of the Latin1 range (encode it as UTF-8 first, e.g. with TextEncoder)',
        'InvalidCharacterError',
      );
    const n = (a << 16) | (b << 8) | c;
    chunk +=
      ALPHABET.charAt(n >> 18) +
      ALPHABET.charAt((n >> 12) & 63) +
      (i + 1 < s.length ? ALPHABET.charAt((n >> 6) & 63) : '=') +
      (i + 2 < s.length ? ALPHABET.charAt(n & 63) : '=');
    if (chunk.length >= 8192) {
      parts.push(chunk);
      chunk = '';
    }
  }
  parts.push(chunk);
  return parts.join('');
}

/** The binary string of base64 `data` (forgiving: ASCII whitespace ignored, padding optional). */
export function atob(data: unknown): string {
  if (arguments.length === 0) throw new TypeError('atob: 1 argument required, but only 0 present');
  let s = String(data).replace(/[\t\n\f\r ]/g, '');
  if (s.length % 4 === 0) s = s.replace(/==?$/, '');
  const invalid = (): DOMException =>
    new DOMException(
      'atob: the string to be decoded is not correctly encoded',
      'InvalidCharacterError',
    );
  if (s.length % 4 === 1) throw invalid();
  const out: number[] = [];
  const parts: string[] = [];
  let buffer = 0;
  let bits = 0;
  for (let i = 0; i < s.length; i++) {
    const code = s.charCodeAt(i);
    const v = code < 128 ? (VALUES[code] as number) : -1;
    if (v < 0) throw invalid();
    buffer = ((buffer << 6) | v) & 0x3fff;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push((buffer >> bits) & 0xff);
      if (out.length >= 8192) {
        parts.push(String.fromCharCode.apply(null, out));
        out.length = 0;
      }
    }
  }
  parts.push(String.fromCharCode.apply(null, out));
  return parts.join('');
}
