// The web globals a run_code program can use, implemented inside the sandbox (sdk-templates/isolate/globals.ts).
// The type-checker loads this file next to every SDK; it is not part of the SDK text shown to the model.
/** A URL (WHATWG URL Standard). Not supported: international domain names, blob: origins. */
declare class URL {
  constructor(url: string | URL, base?: string | URL);
  static canParse(url: string, base?: string): boolean;
  static parse(url: string, base?: string): URL | null;
  href: string;
  readonly origin: string;
  protocol: string;
  username: string;
  password: string;
  host: string;
  hostname: string;
  port: string;
  pathname: string;
  search: string;
  readonly searchParams: URLSearchParams;
  hash: string;
  toString(): string;
  toJSON(): string;
}

/** Query parameters (`application/x-www-form-urlencoded`). */
declare class URLSearchParams {
  constructor(
    init?: string | URLSearchParams | Record<string, string> | Iterable<readonly [string, string]>,
  );
  readonly size: number;
  append(name: string, value: string): void;
  delete(name: string, value?: string): void;
  get(name: string): string | null;
  getAll(name: string): string[];
  has(name: string, value?: string): boolean;
  set(name: string, value: string): void;
  sort(): void;
  forEach(
    callback: (value: string, name: string, params: URLSearchParams) => void,
    thisArg?: unknown,
  ): void;
  entries(): IterableIterator<[string, string]>;
  keys(): IterableIterator<string>;
  values(): IterableIterator<string>;
  [Symbol.iterator](): IterableIterator<[string, string]>;
  toString(): string;
}

/** UTF-8 encoder. */
declare class TextEncoder {
  readonly encoding: 'utf-8';
  encode(input?: string): Uint8Array;
  encodeInto(source: string, destination: Uint8Array): { read: number; written: number };
}

/** UTF-8 decoder (other encodings throw a RangeError). */
declare class TextDecoder {
  constructor(label?: string, options?: { fatal?: boolean; ignoreBOM?: boolean });
  readonly encoding: 'utf-8';
  readonly fatal: boolean;
  readonly ignoreBOM: boolean;
  decode(input?: ArrayBuffer | ArrayBufferView, options?: { stream?: boolean }): string;
}

/** The error web APIs throw (`InvalidCharacterError`, `DataCloneError`, ...). */
declare class DOMException extends Error {
  constructor(message?: string, name?: string);
  readonly code: number;
}

/** Base64 of a binary string (each character at most U+00FF). */
declare function btoa(data: string): string;
/** The binary string of base64 text. */
declare function atob(data: string): string;
/** A deep copy: JSON-like values, Date, RegExp, Map, Set, ArrayBuffer, typed arrays, Error; cycles kept. */
declare function structuredClone<T>(value: T, options?: { transfer?: never[] }): T;
