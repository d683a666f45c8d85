/**
 * `TextEncoder` and `TextDecoder` (UTF-8 only, WHATWG Encoding semantics: lone surrogates encode as
 * U+FFFD, invalid bytes decode as U+FFFD per maximal subpart or throw with `fatal`, `ignoreBOM`,
 * `stream`), plus the UTF-8 helpers URL parsing shares. Plain JS inside the isolate: buffers and
 * strings live on the run's V8 heap and count against its memory limit.
 *
 * These run as guest-callable code: they may use ordinary built-ins (a program that patches them
 * only changes its own results); they hold no host reference.
 */

/** UTF-8 bytes of `s` (lone surrogates → U+FFFD). */
export function utf8Encode(s: string): Uint8Array {
  const out = new Uint8Array(s.length * 3);
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    let c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdfff) {
      const d = i + 1 < s.length ? s.charCodeAt(i + 1) : 0;
      if (c <= 0xdbff && d >= 0xdc00 && d <= 0xdfff) {
        c = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00);
        i++;
      } else c = 0xfffd;
    }
    n = writeCodePoint(out, n, c);
  }
  return out.slice(0, n);
}

function writeCodePoint(out: Uint8Array, n: number, c: number): number {
  if (c < 0x80) out[n++] = c;
  else if (c < 0x800) {
    out[n++] = 0xc0 | (c >> 6);
    out[n++] = 0x80 | (c & 0x3f);
  } else if (c < 0x10000) {
    out[n++] = 0xe0 | (c >> 12);
    out[n++] = 0x80 | ((c >> 6) & 0x3f);
    out[n++] = 0x80 | (c & 0x3f);
  } else {
    out[n++] = 0xf0 | (c >> 18);
    out[n++] = 0x80 | ((c >> 12) & 0x3f);
    out[n++] = 0x80 | ((c >> 6) & 0x3f);
    out[n++] = 0x80 | (c & 0x3f);
  }
  return n;
}

/** Strings built from code units in chunks (no huge argument lists). */
class StringBuilder {
  private parts: string[] = [];
  private units: number[] = [];
  push(c: number): void {
    if (c >= 0x10000) {
      c -= 0x10000;
      this.units.push(0xd800 + (c >> 10), 0xdc00 + (c & 0x3ff));
    } else this.units.push(c);
    if (this.units.length >= 8192) this.flush();
  }
  private flush(): void {
    this.parts.push(String.fromCharCode.apply(null, this.units));
    this.units = [];
  }
  toString(): string {
    this.flush();
    return this.parts.join('');
  }
}

/**
 * Decodes UTF-8 from `bytes[from..]`. Returns the text and, with `stream`, the index where an
 * incomplete trailing sequence starts (kept for the next call). `fatal` throws a TypeError on
 * invalid bytes instead of writing U+FFFD.
 */
export function utf8Decode(
  bytes: Uint8Array,
  fatal: boolean,
  stream = false,
): { text: string; rest: number } {
  const out = new StringBuilder();
  const n = bytes.length;
  let i = 0;
  while (i < n) {
    const b = bytes[i] as number;
    if (b < 0x80) {
      out.push(b);
      i++;
      continue;
    }
    let need = 0;
    let cp = 0;
    let lower = 0x80;
    let upper = 0xbf;
    if (b >= 0xc2 && b <= 0xdf) {
      need = 1;
      cp = b & 0x1f;
    } else if (b >= 0xe0 && b <= 0xef) {
      need = 2;
      cp = b & 0x0f;
      if (b === 0xe0) lower = 0xa0;
      if (b === 0xed) upper = 0x9f;
    } else if (b >= 0xf0 && b <= 0xf4) {
      need = 3;
      cp = b & 0x07;
      if (b === 0xf0) lower = 0x90;
      if (b === 0xf4) upper = 0x8f;
    } else {
      if (fatal) throw new TypeError('The encoded data was not valid for encoding utf-8');
      out.push(0xfffd);
      i++;
      continue;
    }
    let j = 1;
    for (; j <= need; j++) {
      if (i + j >= n) break;
      const c = bytes[i + j] as number;
      if (c < lower || c > upper) break;
      lower = 0x80;
      upper = 0xbf;
      cp = (cp << 6) | (c & 0x3f);
    }
    if (j > need) {
      out.push(cp);
      i += need + 1;
    } else if (i + j >= n && stream) {
      return { text: out.toString(), rest: i };
    } else {
      if (fatal) throw new TypeError('The encoded data was not valid for encoding utf-8');
      out.push(0xfffd);
      i += j;
    }
  }
  return { text: out.toString(), rest: n };
}

/** The bytes of an ArrayBuffer, a typed array or a DataView (a view, not a copy). */
export function bytesOf(input: unknown, what: string): Uint8Array {
  if (input instanceof ArrayBuffer) return new Uint8Array(input);
  if (ArrayBuffer.isView(input))
    return new Uint8Array(input.buffer, input.byteOffset, input.byteLength);
  throw new TypeError(`${what}: the input must be an ArrayBuffer, a typed array or a DataView`);
}

/** UTF-8 encoder. */
export class TextEncoder {
  get encoding(): 'utf-8' {
    return 'utf-8';
  }
  encode(input: string = ''): Uint8Array {
    return utf8Encode(String(input));
  }
  encodeInto(source: string, destination: Uint8Array): { read: number; written: number } {
    if (!(destination instanceof Uint8Array))
      throw new TypeError('TextEncoder.encodeInto: the destination must be a Uint8Array');
    const s = String(source);
    const tmp = new Uint8Array(4);
    let read = 0;
    let written = 0;
    for (let i = 0; i < s.length; i++) {
      let c = s.charCodeAt(i);
      let units = 1;
      if (c >= 0xd800 && c <= 0xdfff) {
        const d = i + 1 < s.length ? s.charCodeAt(i + 1) : 0;
        if (c <= 0xdbff && d >= 0xdc00 && d <= 0xdfff) {
          c = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00);
          units = 2;
        } else c = 0xfffd;
      }
      const len = writeCodePoint(tmp, 0, c);
      if (written + len > destination.length) break;
      destination.set(tmp.subarray(0, len), written);
      written += len;
      read += units;
      i += units - 1;
    }
    return { read, written };
  }
}

const LABELS = new Set([
  'utf-8',
  'utf8',
  'unicode-1-1-utf-8',
  'unicode11utf8',
  'unicode20utf8',
  'x-unicode20utf8',
]);

/** UTF-8 decoder (other encodings throw a RangeError). */
export class TextDecoder {
  readonly #fatal: boolean;
  readonly #ignoreBOM: boolean;
  #pending: Uint8Array = new Uint8Array(0);
  #bomSeen = false;

  constructor(label: string = 'utf-8', options: { fatal?: boolean; ignoreBOM?: boolean } = {}) {
    const name = String(label).trim().toLowerCase();
    if (!LABELS.has(name))
      throw new RangeError(`TextDecoder: the encoding "${name}" is not supported (only utf-8)`);
    this.#fatal = Boolean(options?.fatal);
    this.#ignoreBOM = Boolean(options?.ignoreBOM);
  }
  get encoding(): 'utf-8' {
    return 'utf-8';
  }
  get fatal(): boolean {
    return this.#fatal;
  }
  get ignoreBOM(): boolean {
    return this.#ignoreBOM;
  }
  decode(input?: ArrayBuffer | ArrayBufferView, options: { stream?: boolean } = {}): string {
    const stream = Boolean(options?.stream);
    let bytes = input === undefined ? new Uint8Array(0) : bytesOf(input, 'TextDecoder.decode');
    if (this.#pending.length > 0) {
      const joined = new Uint8Array(this.#pending.length + bytes.length);
      joined.set(this.#pending, 0);
      joined.set(bytes, this.#pending.length);
      bytes = joined;
    }
    let decoded: { text: string; rest: number };
    try {
      decoded = utf8Decode(bytes, this.#fatal, stream);
    } catch (e) {
      this.#pending = new Uint8Array(0);
      this.#bomSeen = false;
      throw e;
    }
    this.#pending = bytes.slice(decoded.rest);
    let text = decoded.text;
    if (!this.#ignoreBOM && !this.#bomSeen && text.length > 0) {
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
      this.#bomSeen = true;
    }
    if (!stream) {
      this.#pending = new Uint8Array(0);
      this.#bomSeen = false;
    }
    return text;
  }
}
