/**
 * `URLSearchParams` (WHATWG URL Standard): `application/x-www-form-urlencoded` parsing and
 * serialization, the list operations, iteration, and the link to a `URL` (a change of either updates
 * the other). Plain JS on the run's heap; no host reference.
 */
import { utf8Decode, utf8Encode } from './text-encoding.js';
import { percentDecodeBytes } from './url-host.js';

type Init = string | URLSearchParams | Record<string, string> | Iterable<readonly [string, string]>;

/** The URL a params object updates, by params object (module-private: no guest code reaches it). */
const owners = new WeakMap<URLSearchParams, (query: string) => void>();
/** Each params object's list, module-private so that `resetParams` can replace it. */
const lists = new WeakMap<URLSearchParams, [string, string][]>();

/** Makes `params` call `update` with its serialization after every change. */
export function linkParams(params: URLSearchParams, update: (query: string) => void): void {
  owners.set(params, update);
}

/** Replaces the list of `params` by the parse of `query` (a URL's query changed). */
export function resetParams(params: URLSearchParams, query: string): void {
  lists.set(params, parseQuery(query));
}

const listOf = (p: URLSearchParams): [string, string][] => {
  const list = lists.get(p);
  if (list === undefined) throw new TypeError('Illegal invocation: not a URLSearchParams');
  return list;
};

function decodeComponent(s: string): string {
  return utf8Decode(percentDecodeBytes(s.replace(/\+/g, ' ')), false).text;
}

/** Parses `application/x-www-form-urlencoded` text (a leading `?` is ignored). */
function parseQuery(text: string): [string, string][] {
  const out: [string, string][] = [];
  const input = text.startsWith('?') ? text.slice(1) : text;
  for (const part of input.split('&')) {
    if (part === '') continue;
    const eq = part.indexOf('=');
    const name = eq >= 0 ? part.slice(0, eq) : part;
    const value = eq >= 0 ? part.slice(eq + 1) : '';
    out.push([decodeComponent(name), decodeComponent(value)]);
  }
  return out;
}

const HEX = '0123456789ABCDEF';
/** The urlencoded byte serializer. */
function encodeComponent(s: string): string {
  let out = '';
  for (const b of utf8Encode(s)) {
    if (
      b === 0x2a ||
      b === 0x2d ||
      b === 0x2e ||
      b === 0x5f ||
      (b >= 0x30 && b <= 0x39) ||
      (b >= 0x41 && b <= 0x5a) ||
      (b >= 0x61 && b <= 0x7a)
    )
      out += String.fromCharCode(b);
    else if (b === 0x20) out += '+';
    else out += '%' + HEX[b >> 4] + HEX[b & 15];
  }
  return out;
}

/** Query parameters. */
export class URLSearchParams {
  constructor(init: Init = '') {
    let list: [string, string][];
    if (typeof init === 'string') list = parseQuery(init);
    else if (init instanceof URLSearchParams) list = listOf(init).map(([n, v]) => [n, v]);
    else if (
      typeof init === 'object' &&
      init !== null &&
      typeof (init as Iterable<unknown>)[Symbol.iterator] === 'function'
    ) {
      list = [];
      for (const pair of init as Iterable<readonly [string, string]>) {
        const items = [...(pair as Iterable<unknown>)];
        if (items.length !== 2)
          throw new TypeError('URLSearchParams: each pair must have exactly two items');
        list.push([String(items[0]), String(items[1])]);
      }
    } else if (typeof init === 'object' && init !== null)
      list = Object.keys(init).map((k) => [k, String((init as Record<string, unknown>)[k])]);
    else list = parseQuery(String(init));
    lists.set(this, list);
  }

  #changed(): void {
    owners.get(this)?.(this.toString());
  }
  get size(): number {
    return listOf(this).length;
  }
  append(name: string, value: string): void {
    listOf(this).push([String(name), String(value)]);
    this.#changed();
  }
  delete(name: string, value?: string): void {
    const n = String(name);
    const v = value === undefined ? undefined : String(value);
    lists.set(
      this,
      listOf(this).filter(([k, x]) => !(k === n && (v === undefined || x === v))),
    );
    this.#changed();
  }
  get(name: string): string | null {
    const n = String(name);
    return listOf(this).find(([k]) => k === n)?.[1] ?? null;
  }
  getAll(name: string): string[] {
    const n = String(name);
    return listOf(this)
      .filter(([k]) => k === n)
      .map(([, v]) => v);
  }
  has(name: string, value?: string): boolean {
    const n = String(name);
    const v = value === undefined ? undefined : String(value);
    return listOf(this).some(([k, x]) => k === n && (v === undefined || x === v));
  }
  set(name: string, value: string): void {
    const n = String(name);
    const list = listOf(this);
    const at = list.findIndex(([k]) => k === n);
    if (at < 0) list.push([n, String(value)]);
    else {
      list[at] = [n, String(value)];
      lists.set(
        this,
        list.filter(([k], i) => k !== n || i === at),
      );
    }
    this.#changed();
  }
  sort(): void {
    // Stable sort by UTF-16 code units of the names.
    listOf(this).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    this.#changed();
  }
  forEach(
    callback: (value: string, name: string, params: URLSearchParams) => void,
    thisArg?: unknown,
  ): void {
    const list = listOf(this);
    for (let i = 0; i < list.length; i++) {
      const [name, value] = list[i] as [string, string];
      callback.call(thisArg, value, name, this);
    }
  }
  *entries(): IterableIterator<[string, string]> {
    const list = (): [string, string][] => listOf(this);
    for (let i = 0; i < list().length; i++) {
      const [name, value] = list()[i] as [string, string];
      yield [name, value];
    }
  }
  *keys(): IterableIterator<string> {
    for (const [name] of this.entries()) yield name;
  }
  *values(): IterableIterator<string> {
    for (const [, value] of this.entries()) yield value;
  }
  [Symbol.iterator](): IterableIterator<[string, string]> {
    return this.entries();
  }
  toString(): string {
    return listOf(this)
      .map(([n, v]) => encodeComponent(n) + '=' + encodeComponent(v))
      .join('&');
  }
}
