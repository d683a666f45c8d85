/**
 * `URL`: a WHATWG-conformant-enough parser and serializer, inside the isolate, for the URLs programs
 * handle: special schemes (http, https, ws, wss, ftp, file) with authority, percent-encoding, dot
 * segments, default ports, IPv4/IPv6 hosts; other schemes with an authority (`foo://h/p`) or an
 * opaque path (`data:`, `mailto:`); relative references resolved against a base; `searchParams`
 * kept in sync both ways.
 *
 * Not supported (documented in docs/decisions/018): internationalised domain names (IDNA/punycode:
 * a non-ASCII host is refused), Windows drive-letter quirks of `file:` URLs, `blob:` origins, and the
 * setters' state-override edge cases (setters re-parse the component with the same rules as the
 * constructor; a value that does not parse leaves the URL unchanged, as the standard says).
 */
/* eslint-disable no-control-regex -- URL parsing strips, refuses and encodes control characters */
import {
  FRAGMENT_SET,
  invalidUrl,
  parseHost,
  PATH_SET,
  percentEncode,
  QUERY_SET,
  SPECIAL_QUERY_SET,
  USERINFO_SET,
} from './url-host.js';
import { linkParams, resetParams, URLSearchParams } from './url-search-params.js';

const DEFAULT_PORTS: Readonly<Record<string, string>> = {
  http: '80',
  https: '443',
  ws: '80',
  wss: '443',
  ftp: '21',
  file: '',
};
const isSpecial = (scheme: string): boolean => Object.hasOwn(DEFAULT_PORTS, scheme);

/** A parsed URL (the WHATWG URL record). `path` is a string when opaque, else its segments. */
interface UrlRecord {
  scheme: string;
  username: string;
  password: string;
  host: string | null;
  port: string;
  path: string[] | string;
  query: string | null;
  fragment: string | null;
}

const SCHEME = /^([A-Za-z][A-Za-z0-9+\-.]*):/;

/** Parses `input` against an optional base record (throws a TypeError "Invalid URL"). */
function parse(raw: string, base: UrlRecord | undefined): UrlRecord {
  const input = raw.replace(/^[\0-\x20]+|[\0-\x20]+$/g, '').replace(/[\t\n\r]/g, '');
  const scheme = SCHEME.exec(input);
  if (scheme !== null) {
    const name = (scheme[1] as string).toLowerCase();
    const rest = input.slice(scheme[0].length);
    if (isSpecial(name)) {
      const slashed = /^[/\\]/.test(rest);
      if (base !== undefined && base.scheme === name && !slashed && name !== 'file')
        return relative(rest, base, raw);
      if (name === 'file') return fileUrl(rest, base?.scheme === 'file' ? base : undefined, raw);
      return withAuthority(name, rest.replace(/^[/\\]*/, ''), raw);
    }
    if (rest.startsWith('//')) return withAuthority(name, rest.slice(2), raw);
    if (rest.startsWith('/')) return pathQueryFragment(record(name, null), rest, raw);
    const [opaque, query, fragment] = splitTail(rest);
    const r = record(name, null);
    r.path = opaque.replace(/[\0-\x1f\x7f-\uffff]/g, (c) => percentEncode(c, () => true));
    setTail(r, query, fragment);
    return r;
  }
  if (base === undefined) throw invalidUrl(raw, 'a relative reference needs a base URL');
  return relative(input, base, raw);
}

function record(scheme: string, host: string | null): UrlRecord {
  return {
    scheme,
    username: '',
    password: '',
    host,
    port: '',
    path: [],
    query: null,
    fragment: null,
  };
}

/** `rest` split at the first `?` and the first `#`: [before, query | null, fragment | null]. */
function splitTail(rest: string): [string, string | null, string | null] {
  const hash = rest.indexOf('#');
  const fragment = hash >= 0 ? rest.slice(hash + 1) : null;
  const head = hash >= 0 ? rest.slice(0, hash) : rest;
  const q = head.indexOf('?');
  return q >= 0 ? [head.slice(0, q), head.slice(q + 1), fragment] : [head, null, fragment];
}

function setTail(r: UrlRecord, query: string | null, fragment: string | null): void {
  r.query =
    query === null
      ? null
      : percentEncode(query, isSpecial(r.scheme) ? SPECIAL_QUERY_SET : QUERY_SET);
  r.fragment = fragment === null ? null : percentEncode(fragment, FRAGMENT_SET);
}

/** A URL whose `rest` starts at its authority (after `//`). */
function withAuthority(scheme: string, rest: string, raw: string): UrlRecord {
  const special = isSpecial(scheme);
  const end = rest.search(special ? /[/\\?#]/ : /[/?#]/);
  const authority = end >= 0 ? rest.slice(0, end) : rest;
  const r = record(scheme, '');
  const at = authority.lastIndexOf('@');
  if (at >= 0) {
    const info = authority.slice(0, at);
    const colon = info.indexOf(':');
    r.username = percentEncode(colon >= 0 ? info.slice(0, colon) : info, USERINFO_SET);
    r.password = colon >= 0 ? percentEncode(info.slice(colon + 1), USERINFO_SET) : '';
  }
  setHostPort(r, authority.slice(at + 1), raw);
  if (special && r.host === '' && scheme !== 'file') throw invalidUrl(raw, 'empty host');
  return pathQueryFragment(r, end >= 0 ? rest.slice(end) : '', raw);
}

function setHostPort(r: UrlRecord, hostPort: string, raw: string): void {
  const m = /^(\[[^\]]*\]|[^:]*)(?::(.*))?$/.exec(hostPort);
  if (m === null) throw invalidUrl(raw, 'invalid host');
  const port = m[2] ?? '';
  if (port !== '') {
    if (!/^\d+$/.test(port) || Number(port) > 65535) throw invalidUrl(raw, 'invalid port');
    const normalized = String(Number(port));
    r.port = DEFAULT_PORTS[r.scheme] === normalized ? '' : normalized;
  } else r.port = '';
  const host = m[1] ?? '';
  r.host = host === '' ? '' : parseHost(host, isSpecial(r.scheme), raw);
}

/** Sets path, query and fragment from `rest` (which starts with the path, if any). */
function pathQueryFragment(r: UrlRecord, rest: string, raw: string): UrlRecord {
  const [path, query, fragment] = splitTail(rest);
  r.path = resolvePath([], path, isSpecial(r.scheme));
  if (!isSpecial(r.scheme) && r.host === null && path === '') r.path = [];
  setTail(r, query, fragment);
  void raw;
  return r;
}

const SINGLE_DOT = /^(?:\.|%2e)$/i;
const DOUBLE_DOT = /^(?:\.|%2e){2}$/i;

/** `input` (a path) applied to `base` segments: dot segments resolved, segments encoded. */
function resolvePath(base: string[], input: string, special: boolean): string[] {
  const segments = [...base];
  if (input === '') return segments.length === 0 && special ? [''] : segments;
  const parts = (special ? input.replace(/\\/g, '/') : input).split('/');
  if (parts[0] === '') parts.shift();
  parts.forEach((part, i) => {
    const last = i === parts.length - 1;
    if (DOUBLE_DOT.test(part)) {
      if (segments.length > 0) segments.pop();
      if (last) segments.push('');
    } else if (SINGLE_DOT.test(part)) {
      if (last) segments.push('');
    } else segments.push(percentEncode(part, PATH_SET));
  });
  return segments;
}

function relative(input: string, base: UrlRecord, raw: string): UrlRecord {
  const special = isSpecial(base.scheme);
  if (typeof base.path === 'string') {
    if (!input.startsWith('#'))
      throw invalidUrl(raw, 'the base URL cannot have relative references');
    const r = { ...base, fragment: null };
    setTail(r, null, input.slice(1));
    r.query = base.query;
    return r;
  }
  const slash = special ? /^[/\\]/ : /^\//;
  if (special ? /^[/\\]{2}/.test(input) : input.startsWith('//'))
    return withAuthority(base.scheme, input.slice(2), raw);
  const r: UrlRecord = { ...base, path: [...base.path], query: base.query, fragment: null };
  if (slash.test(input)) return pathQueryFragment(r, input, raw);
  const [path, query, fragment] = splitTail(input);
  if (path === '') {
    setTail(r, query ?? null, fragment);
    if (query === null) r.query = base.query;
    return r;
  }
  r.path = resolvePath((r.path as string[]).slice(0, -1), path, special);
  setTail(r, query, fragment);
  return r;
}

function fileUrl(rest: string, base: UrlRecord | undefined, raw: string): UrlRecord {
  const r = record('file', '');
  if (/^[/\\]{2}/.test(rest)) return withAuthority('file', rest.slice(2), raw);
  if (/^[/\\]/.test(rest)) {
    r.host = base?.host ?? '';
    return pathQueryFragment(r, rest, raw);
  }
  if (base !== undefined) return relative(rest, base, raw);
  return pathQueryFragment(r, '/' + rest, raw);
}

function serializePath(r: UrlRecord): string {
  if (typeof r.path === 'string') return r.path;
  const joined = r.path.map((s) => '/' + s).join('');
  return r.host === null && r.path.length > 1 && r.path[0] === '' ? '/.' + joined : joined;
}

function serialize(r: UrlRecord, fragment = true): string {
  let out = r.scheme + ':';
  if (r.host !== null) {
    out += '//';
    if (r.username !== '' || r.password !== '')
      out += r.username + (r.password !== '' ? ':' + r.password : '') + '@';
    out += r.host + (r.port !== '' ? ':' + r.port : '');
  }
  out += serializePath(r);
  if (r.query !== null) out += '?' + r.query;
  if (fragment && r.fragment !== null) out += '#' + r.fragment;
  return out;
}

/** A URL (WHATWG URL Standard, the subset described in this module's comment). */
export class URL {
  #r: UrlRecord;
  readonly #params: URLSearchParams;

  constructor(url: string | URL, base?: string | URL) {
    const baseRecord = base === undefined ? undefined : parse(String(base), undefined);
    this.#r = parse(String(url), baseRecord);
    this.#params = new URLSearchParams(this.#r.query ?? '');
    linkParams(this.#params, (query) => {
      this.#r.query = query === '' ? null : query;
    });
  }

  static canParse(url: string, base?: string): boolean {
    try {
      new URL(url, base);
      return true;
    } catch {
      return false;
    }
  }

  static parse(url: string, base?: string): URL | null {
    try {
      return new URL(url, base);
    } catch {
      return null;
    }
  }

  #reparse(text: string): void {
    this.#r = parse(text, undefined);
    resetParams(this.#params, this.#r.query ?? '');
  }
  /** Applies `change` to a copy; keeps the URL unchanged when the result does not parse. */
  #update(change: (r: UrlRecord) => void): void {
    const copy: UrlRecord = {
      ...this.#r,
      path: typeof this.#r.path === 'string' ? this.#r.path : [...this.#r.path],
    };
    try {
      change(copy);
      this.#reparse(serialize(copy));
    } catch {
      // an invalid value leaves the URL as it was
    }
  }

  get href(): string {
    return serialize(this.#r);
  }
  set href(value: string) {
    this.#reparse(String(value));
  }
  get origin(): string {
    const r = this.#r;
    if (r.scheme === 'file' || !isSpecial(r.scheme)) return 'null';
    return r.scheme + '://' + (r.host ?? '') + (r.port !== '' ? ':' + r.port : '');
  }
  get protocol(): string {
    return this.#r.scheme + ':';
  }
  set protocol(value: string) {
    const scheme = String(value).replace(/:.*$/s, '').toLowerCase();
    if (!/^[a-z][a-z0-9+\-.]*$/.test(scheme) || isSpecial(scheme) !== isSpecial(this.#r.scheme))
      return;
    this.#update((r) => {
      r.scheme = scheme;
      if (DEFAULT_PORTS[scheme] === r.port) r.port = '';
    });
  }
  get username(): string {
    return this.#r.username;
  }
  set username(value: string) {
    if (this.#r.host === null || this.#r.host === '') return;
    this.#r.username = percentEncode(String(value), USERINFO_SET);
  }
  get password(): string {
    return this.#r.password;
  }
  set password(value: string) {
    if (this.#r.host === null || this.#r.host === '') return;
    this.#r.password = percentEncode(String(value), USERINFO_SET);
  }
  get host(): string {
    return (this.#r.host ?? '') + (this.#r.port !== '' ? ':' + this.#r.port : '');
  }
  set host(value: string) {
    if (typeof this.#r.path === 'string') return;
    this.#update((r) => setHostPort(r, String(value).split(/[/\\?#]/)[0] ?? '', String(value)));
  }
  get hostname(): string {
    return this.#r.host ?? '';
  }
  set hostname(value: string) {
    if (typeof this.#r.path === 'string') return;
    const host = (String(value).split(/[/\\?#]/)[0] ?? '').replace(/:.*$/s, '');
    this.#update((r) => {
      r.host = host === '' ? '' : parseHost(host, isSpecial(r.scheme), host);
    });
  }
  get port(): string {
    return this.#r.port;
  }
  set port(value: string) {
    if (this.#r.host === null || this.#r.host === '' || this.#r.scheme === 'file') return;
    const digits = /^\d*/.exec(String(value))?.[0] ?? '';
    if (digits === '' && String(value) !== '') return;
    this.#update((r) => {
      if (digits !== '' && Number(digits) > 65535) throw new TypeError('port');
      const port = digits === '' ? '' : String(Number(digits));
      r.port = DEFAULT_PORTS[r.scheme] === port ? '' : port;
    });
  }
  get pathname(): string {
    return serializePath(this.#r);
  }
  set pathname(value: string) {
    if (typeof this.#r.path === 'string') return;
    const special = isSpecial(this.#r.scheme);
    this.#r.path = resolvePath(
      [],
      String(value).replace(/[?#]/g, (c) => (c === '?' ? '%3F' : '%23')),
      special,
    );
  }
  get search(): string {
    return this.#r.query === null || this.#r.query === '' ? '' : '?' + this.#r.query;
  }
  set search(value: string) {
    const text = String(value).replace(/^\?/, '');
    this.#r.query =
      text === ''
        ? null
        : percentEncode(text, isSpecial(this.#r.scheme) ? SPECIAL_QUERY_SET : QUERY_SET);
    resetParams(this.#params, text);
  }
  get searchParams(): URLSearchParams {
    return this.#params;
  }
  get hash(): string {
    return this.#r.fragment === null || this.#r.fragment === '' ? '' : '#' + this.#r.fragment;
  }
  set hash(value: string) {
    const text = String(value).replace(/^#/, '');
    this.#r.fragment = text === '' ? null : percentEncode(text, FRAGMENT_SET);
  }
  toString(): string {
    return this.href;
  }
  toJSON(): string {
    return this.href;
  }
}
