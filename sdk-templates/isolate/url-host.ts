/**
 * The pieces of WHATWG URL parsing that are not the URL record itself: percent-encode sets,
 * percent-decoding, and host parsing (domains, IPv4 in all its legacy forms, IPv6, opaque hosts).
 * Not supported: internationalised domain names (a non-ASCII host is refused, IDNA/punycode is not
 * implemented).
 */
/* eslint-disable no-control-regex -- URL parsing strips, refuses and encodes control characters */
import { utf8Decode, utf8Encode } from './text-encoding.js';

/** A percent-encode set: true for the code points (< 0x80) that must be encoded. */
export type EncodeSet = (c: number) => boolean;

const isC0 = (c: number): boolean => c < 0x20 || c > 0x7e;
/** C0 control percent-encode set. */
export const C0_SET: EncodeSet = isC0;
/** Fragment percent-encode set. */
export const FRAGMENT_SET: EncodeSet = (c) =>
  isC0(c) || c === 0x20 || c === 0x22 || c === 0x3c || c === 0x3e || c === 0x60;
/** Query percent-encode set. */
export const QUERY_SET: EncodeSet = (c) =>
  isC0(c) || c === 0x20 || c === 0x22 || c === 0x23 || c === 0x3c || c === 0x3e;
/** Special-query percent-encode set (http, https, ws, wss, ftp, file). */
export const SPECIAL_QUERY_SET: EncodeSet = (c) => QUERY_SET(c) || c === 0x27;
/** Path percent-encode set. */
export const PATH_SET: EncodeSet = (c) =>
  QUERY_SET(c) || c === 0x3f || c === 0x5e || c === 0x60 || c === 0x7b || c === 0x7d;
/** Userinfo percent-encode set. */
export const USERINFO_SET: EncodeSet = (c) =>
  PATH_SET(c) ||
  c === 0x2f ||
  c === 0x3a ||
  c === 0x3b ||
  c === 0x3d ||
  c === 0x40 ||
  (c >= 0x5b && c <= 0x5d) ||
  c === 0x7c;

const HEX = '0123456789ABCDEF';

/** `s` with the code points of `set` (and every non-ASCII one) percent-encoded as UTF-8. */
export function percentEncode(s: string, set: EncodeSet): string {
  let plain = true;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x80 || set(c)) {
      plain = false;
      break;
    }
  }
  if (plain) return s;
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80 && !set(c)) {
      out += s[i];
      continue;
    }
    const high = c >= 0xd800 && c <= 0xdbff && i + 1 < s.length;
    const bytes = utf8Encode(high ? s.slice(i, i + 2) : (s[i] ?? ''));
    if (high && bytes.length === 4) i++;
    for (const b of bytes) out += '%' + HEX[b >> 4] + HEX[b & 15];
  }
  return out;
}

const hexValue = (c: number): number =>
  c >= 0x30 && c <= 0x39
    ? c - 0x30
    : c >= 0x41 && c <= 0x46
      ? c - 55
      : c >= 0x61 && c <= 0x66
        ? c - 87
        : -1;

/** The bytes of `s` (UTF-8) with `%XX` sequences decoded. */
export function percentDecodeBytes(s: string): Uint8Array {
  const bytes = utf8Encode(s);
  const out = new Uint8Array(bytes.length);
  let n = 0;
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i] as number;
    if (b === 0x25 && i + 2 < bytes.length) {
      const h = hexValue(bytes[i + 1] as number);
      const l = hexValue(bytes[i + 2] as number);
      if (h >= 0 && l >= 0) {
        out[n++] = (h << 4) | l;
        i += 2;
        continue;
      }
    }
    out[n++] = b;
  }
  return out.subarray(0, n);
}

/** `s` percent-decoded and read as UTF-8 (invalid bytes → U+FFFD). */
export function percentDecode(s: string): string {
  return s.includes('%') ? utf8Decode(percentDecodeBytes(s), false).text : s;
}

/** The error of a URL that does not parse. */
export function invalidUrl(input: string, why: string): TypeError {
  const shown = input.length > 200 ? input.slice(0, 200) + '…' : input;
  return new TypeError(`Invalid URL: ${JSON.stringify(shown)} (${why})`);
}

const FORBIDDEN_HOST = /[\0\t\n\r #/:<>?@[\\\]^|]/;
const FORBIDDEN_DOMAIN = /[\0-\x1f #%/:<>?@[\\\]^|\x7f]/;

/** Parses a host: `[v6]`, then (special) a domain or IPv4, or (not special) an opaque host. */
export function parseHost(input: string, special: boolean, url: string): string {
  if (input.startsWith('[')) {
    if (!input.endsWith(']')) throw invalidUrl(url, 'unclosed IPv6 address');
    return '[' + serializeIPv6(parseIPv6(input.slice(1, -1), url)) + ']';
  }
  if (!special) {
    if (FORBIDDEN_HOST.test(input)) throw invalidUrl(url, 'forbidden host code point');
    return percentEncode(input, C0_SET);
  }
  const domain = percentDecode(input).toLowerCase();
  if (domain === '') throw invalidUrl(url, 'empty host');
  if (/[^\x00-\x7f]/.test(domain))
    throw invalidUrl(
      url,
      'international domain names are not supported: use the punycode (xn--) form',
    );
  if (FORBIDDEN_DOMAIN.test(domain)) throw invalidUrl(url, 'forbidden host code point');
  return endsInNumber(domain) ? serializeIPv4(parseIPv4(domain, url)) : domain;
}

function endsInNumber(domain: string): boolean {
  const labels = domain.split('.');
  if (labels[labels.length - 1] === '' && labels.length > 1) labels.pop();
  const last = labels[labels.length - 1] ?? '';
  return /^\d+$/.test(last) || /^0x[0-9a-f]*$/i.test(last);
}

function parseIPv4Number(part: string): number {
  if (part === '') return NaN;
  if (/^0x/i.test(part))
    return part.length === 2 ? 0 : /^0x[0-9a-f]+$/i.test(part) ? parseInt(part.slice(2), 16) : NaN;
  if (part.length > 1 && part.startsWith('0'))
    return /^[0-7]+$/.test(part) ? parseInt(part, 8) : NaN;
  return /^\d+$/.test(part) ? parseInt(part, 10) : NaN;
}

function parseIPv4(domain: string, url: string): number {
  const parts = domain.split('.');
  if (parts[parts.length - 1] === '' && parts.length > 1) parts.pop();
  if (parts.length > 4) throw invalidUrl(url, 'invalid IPv4 address');
  const numbers = parts.map(parseIPv4Number);
  if (numbers.some((n) => Number.isNaN(n))) throw invalidUrl(url, 'invalid IPv4 address');
  const last = numbers.pop() as number;
  if (numbers.some((n) => n > 255) || last >= 256 ** (5 - parts.length))
    throw invalidUrl(url, 'invalid IPv4 address');
  let ipv4 = last;
  numbers.forEach((n, i) => (ipv4 += n * 256 ** (3 - i)));
  return ipv4;
}

function serializeIPv4(address: number): string {
  const out: number[] = [];
  for (let i = 0; i < 4; i++) {
    out.unshift(address % 256);
    address = Math.floor(address / 256);
  }
  return out.join('.');
}

function parseIPv6(input: string, url: string): number[] {
  const bad = (): TypeError => invalidUrl(url, 'invalid IPv6 address');
  const pieces = [0, 0, 0, 0, 0, 0, 0, 0];
  let piece = 0;
  let compress = -1;
  let i = 0;
  if (input.startsWith(':')) {
    if (!input.startsWith('::')) throw bad();
    i = 2;
    compress = ++piece;
  }
  while (i < input.length) {
    if (piece === 8) throw bad();
    if (input[i] === ':') {
      if (compress !== -1) throw bad();
      i++;
      compress = ++piece;
      continue;
    }
    const start = i;
    let value = 0;
    while (i - start < 4 && i < input.length && hexValue(input.charCodeAt(i)) >= 0)
      value = value * 16 + hexValue(input.charCodeAt(i++));
    if (input[i] === '.') {
      // An embedded IPv4 address in the last two pieces.
      if (i === start || piece > 6) throw bad();
      const v4 = input.slice(start).split('.');
      if (v4.length !== 4 || v4.some((p) => !/^(0|[1-9]\d{0,2})$/.test(p) || Number(p) > 255))
        throw bad();
      pieces[piece++] = Number(v4[0]) * 256 + Number(v4[1]);
      pieces[piece++] = Number(v4[2]) * 256 + Number(v4[3]);
      i = input.length;
      break;
    }
    if (i === start) throw bad();
    if (input[i] === ':') {
      i++;
      if (i >= input.length) throw bad();
    } else if (i < input.length) throw bad();
    pieces[piece++] = value;
  }
  if (compress !== -1) {
    let swaps = piece - compress;
    piece = 7;
    while (piece !== 0 && swaps > 0) {
      const from = compress + swaps - 1;
      [pieces[piece], pieces[from]] = [pieces[from] as number, pieces[piece] as number];
      piece--;
      swaps--;
    }
  } else if (piece !== 8) throw bad();
  return pieces;
}

function serializeIPv6(pieces: number[]): string {
  let best = -1;
  let bestLength = 1;
  for (let i = 0; i < 8;) {
    let j = i;
    while (j < 8 && pieces[j] === 0) j++;
    if (j - i > bestLength) {
      best = i;
      bestLength = j - i;
    }
    i = j === i ? i + 1 : j;
  }
  let out = '';
  for (let i = 0; i < 8; i++) {
    if (i === best) {
      out += i === 0 ? '::' : ':';
      i += bestLength - 1;
      continue;
    }
    out += (pieces[i] as number).toString(16) + (i < 7 ? ':' : '');
  }
  return out;
}
