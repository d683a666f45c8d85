/**
 * The web globals inside the sandbox (issue 12 item 5), through the runtime with the type-checker on:
 * behaviour (URL compared with Node's WHATWG URL on the same inputs), and that none of them reaches
 * the host: constructor chains end in the blocked `Function`, prototype pollution stays in the run,
 * huge inputs fail the run with kind `memory` (or `timeout`), and the next run is healthy.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createRuntime,
  defineTool,
  type Runtime,
  type RunCodeValue,
  type ToolResult,
} from '../../src/index.js';
import { z } from 'zod';

let rt: Runtime;
beforeAll(async () => {
  rt = await createRuntime({
    tools: [
      defineTool({
        name: 'echo',
        description: 'Echoes its input.',
        input: z.object({ v: z.string() }),
        execute: ({ v }: { v: string }) => v,
      }),
    ],
    scopes: { default: { mode: 'code' } },
    codeMode: { limits: { memoryMb: 32, cpuMs: 2_000, wallMs: 10_000 } },
  });
});
afterAll(() => rt.close());

const run = (code: string): Promise<ToolResult> =>
  rt.execute({ name: 'run_code', args: { code, description: 'globals' } });
const result = async (code: string): Promise<unknown> => {
  const r = await run(code);
  if (!r.ok) throw new Error(`run failed: ${r.error.message}`);
  return (r.value as unknown as RunCodeValue).result;
};
const kind = (r: ToolResult): string | undefined =>
  r.ok ? 'ok' : (r.error.details as { kind?: string } | undefined)?.kind;

/** Inputs [url, base?] compared field by field with Node's URL (both parse, or both throw). */
const URL_CASES: [string, string?][] = [
  ['https://example.com'],
  ['HTTPS://User:Pa%20ss@Example.COM:443/a/./b/../c?q=1 2&x=é#frag ment'],
  ['http://example.com:8080/path with spaces/ä?a=<b>'],
  ['http://example.com:80/'],
  ['ws://h:81/x'],
  ['http://192.168.0.1/'],
  ['http://0x7f.1/'],
  ['http://3232235521/'],
  ['http://[::1]:3000/x'],
  ['http://[2001:db8:0:0:1:0:0:1]/'],
  ['http://[::ffff:192.168.1.1]/'],
  ['file:///etc/passwd'],
  ['file:///C:/dir/file.txt'],
  ['data:text/plain;base64,SGVsbG8='],
  ['mailto:someone@example.com?subject=hi'],
  ['foo://host/p/../q?x#y'],
  ['urn:isbn:0451450523'],
  ['../d/e?f#g', 'http://a/b/c/d;p?q'],
  ['g', 'http://a/b/c/d;p?q'],
  ['./g', 'http://a/b/c/d;p?q'],
  ['g/', 'http://a/b/c/d;p?q'],
  ['/g', 'http://a/b/c/d;p?q'],
  ['//g', 'http://a/b/c/d;p?q'],
  ['?y', 'http://a/b/c/d;p?q'],
  ['#s', 'http://a/b/c/d;p?q'],
  ['', 'http://a/b/c/d;p?q'],
  ['../../../g', 'http://a/b/c/d;p?q'],
  ['g;x=1/../y', 'http://a/b/c/d;p?q'],
  ['http:g', 'http://a/b/c/d;p?q'],
  ['\\\\server\\share', 'http://a/b'],
  ['  http://trim.me/\t\n ok  '],
  ['http://example.com/%7Efoo/%2e%2E/bar'],
  ['not a url'],
  ['http://'],
  ['http://exa mple.com/'],
  ['http://example.com:99999/'],
  ['http://[::1/'],
  ['http://1.2.3.4.5/'],
  ['/relative-without-base'],
];

describe('URL', () => {
  it("matches Node's WHATWG URL on the cases it supports", async () => {
    const fields = [
      'href',
      'protocol',
      'username',
      'password',
      'host',
      'hostname',
      'port',
      'pathname',
      'search',
      'hash',
      'origin',
    ] as const;
    const expected = URL_CASES.map(([url, base]) => {
      try {
        const u = new URL(url, base);
        return fields.map((f) => u[f]);
      } catch {
        return 'invalid';
      }
    });
    const actual = await result(`
      const cases: [string, string?][] = ${JSON.stringify(URL_CASES)};
      const fields = ${JSON.stringify(fields)} as const;
      return cases.map(([url, base]) => {
        try {
          const u = new URL(url, base);
          return fields.map((f) => u[f]);
        } catch (e) {
          return e instanceof TypeError && /^Invalid URL/.test(e.message) ? 'invalid' : String(e);
        }
      });`);
    const rows = URL_CASES.map((c, i) => ({
      c,
      actual: (actual as unknown[])[i],
      expected: expected[i],
    }));
    for (const row of rows) expect(row.actual, JSON.stringify(row.c)).toEqual(row.expected);
  });

  it('setters, searchParams in sync both ways, canParse, toJSON', async () => {
    expect(
      await result(`
      const u = new URL('https://example.com/a?x=1');
      const p = u.searchParams;
      p.append('y', 'a b&c');
      const afterAppend = u.href;
      u.search = '?z=9';
      const same = p === u.searchParams;
      u.pathname = '/new path';
      u.hash = 'top';
      u.port = '8443';
      u.hostname = 'other.org';
      return [afterAppend, same, p.get('z'), p.has('x'), u.href, URL.canParse('nope'), URL.canParse('/x', 'http://h'), JSON.stringify({ u })];`),
    ).toEqual([
      'https://example.com/a?x=1&y=a+b%26c',
      true,
      '9',
      false,
      'https://other.org:8443/new%20path?z=9#top',
      false,
      true,
      '{"u":"https://other.org:8443/new%20path?z=9#top"}',
    ]);
  });

  it('refuses international domain names with a clear message', async () => {
    expect(
      await result(
        `try { new URL('http://bücher.de/'); return 'parsed'; } catch (e) { return (e as Error).message; }`,
      ),
    ).toContain('international domain names are not supported');
  });
});

describe('URLSearchParams', () => {
  it('matches Node on parsing, serialization and the list operations', async () => {
    const program = (P: typeof URLSearchParams) => {
      const p = new P('?a=1&b=x+y&a=%E2%82%AC&c&=e&d=%zz');
      p.append('sp ace', 'ä/ö?&=');
      p.set('b', 'new');
      p.delete('c');
      const sorted = new P(p);
      sorted.sort();
      return [
        p.toString(),
        sorted.toString(),
        p.getAll('a'),
        p.get('missing'),
        p.has('a', '1'),
        p.size,
        [...p.keys()],
        [...new P({ x: '1', y: '2' })],
        new P([['k', 'v']]).toString(),
      ];
    };
    const expected = program(URLSearchParams);
    const actual = await result(`return (${program.toString()})(URLSearchParams);`);
    expect(actual).toEqual(JSON.parse(JSON.stringify(expected)));
  });
});

describe('TextEncoder / TextDecoder', () => {
  it('encode and decode UTF-8 like Node, with fatal, ignoreBOM and stream', async () => {
    const program = (E: typeof TextEncoder, D: typeof TextDecoder) => {
      const bytes = new E().encode('héllo €😀 \uD800 end');
      const bad = new Uint8Array([0x61, 0xff, 0xe2, 0x82, 0x62, 0xf0, 0x9f, 0x98]);
      let fatal = 'no error';
      try {
        new D('utf-8', { fatal: true }).decode(bad);
      } catch (e) {
        fatal = e instanceof Error ? e.name : 'other';
      }
      const bom = new Uint8Array([0xef, 0xbb, 0xbf, 0x41]);
      const stream = new D();
      const euro = new E().encode('€');
      const streamed =
        stream.decode(euro.subarray(0, 1), { stream: true }) + stream.decode(euro.subarray(1));
      const into = new Uint8Array(5);
      const r = new E().encodeInto('a€b', into);
      return [
        Array.from(bytes),
        new D().decode(bytes),
        new D().decode(bad),
        fatal,
        new D().decode(bom),
        new D('utf8', { ignoreBOM: true }).decode(bom).length,
        streamed,
        [r.read, r.written],
        new D().decode(new Uint8Array([0x41, 0x42]).buffer),
        new D().encoding,
      ];
    };
    const expected = program(TextEncoder, TextDecoder);
    const actual = await result(`return (${program.toString()})(TextEncoder, TextDecoder);`);
    expect(actual).toEqual(JSON.parse(JSON.stringify(expected)));
    expect(
      await result(
        `try { new TextDecoder('latin1'); return 'ok'; } catch (e) { return (e as Error).name; }`,
      ),
    ).toBe('RangeError');
  });
});

describe('atob / btoa', () => {
  it('match Node, including forgiving decoding and errors', async () => {
    const program = () => {
      // No annotations: the function's text runs in Node and, transpiled, in the sandbox.
      const attempt = (f = () => '') => {
        try {
          return f();
        } catch (e) {
          return e instanceof Error ? e.name : 'other';
        }
      };
      return [
        btoa(''),
        btoa('a'),
        btoa('ab'),
        btoa('abc'),
        btoa('\u00ff\u0000x'),
        atob('YWJj'),
        atob(' Y W\nJ j '),
        atob('YQ'),
        atob('YWI='),
        attempt(() => btoa('€')),
        attempt(() => atob('a')),
        attempt(() => atob('Y*==')),
        btoa(String.fromCharCode(...Array.from({ length: 256 }, (_, i) => i))),
      ];
    };
    const expected = program();
    const actual = await result(`return (${program.toString()})();`);
    expect(actual).toEqual(expected);
  });
});

describe('structuredClone', () => {
  it('clones JSON-like values, Date, Map, Set, RegExp, buffers, typed arrays and cycles', async () => {
    expect(
      await result(`
      const buf = new Uint8Array([1, 2, 3]);
      const a: Record<string, unknown> = { d: new Date(5), m: new Map([['k', { x: 1 }]]), s: new Set([1, 2]), r: /x+/gi, view: buf, view2: buf.subarray(1), n: null, big: 5n, e: new RangeError('r') };
      a.self = a;
      class K { v = 1; get g() { return 2; } }
      a.k = new K();
      const c = structuredClone(a) as typeof a & { self: unknown; view: Uint8Array; view2: Uint8Array; m: Map<string, { x: number }>; s: Set<number>; r: RegExp; d: Date; k: unknown; e: RangeError; big: bigint };
      c.view[1] = 9;
      return [c.self === c, c.d instanceof Date && c.d.getTime(), c.m.get('k'), c.m.get('k') !== (a.m as Map<string, unknown>).get('k'), [...c.s], c.r.source + '/' + c.r.flags, Array.from(c.view), Array.from(c.view2), buf[1], c.big === 5n, c.e instanceof RangeError && c.e.message, Object.getPrototypeOf(c.k) === Object.prototype, c.k];`),
    ).toEqual([
      true,
      5,
      { x: 1 },
      true,
      [1, 2],
      'x+/gi',
      [1, 9, 3],
      [9, 3],
      2,
      true,
      'r',
      true,
      { v: 1 },
    ]);
  });

  it('throws DataCloneError for functions, symbols, promises and weak collections', async () => {
    expect(
      await result(`
      const names = [() => 1, Symbol('s'), Promise.resolve(1), new WeakMap(), { nested: [() => 2] }].map((v) => {
        try { structuredClone(v); return 'cloned'; } catch (e) { return e instanceof DOMException ? e.name : 'other ' + String(e); }
      });
      return names;`),
    ).toEqual([
      'DataCloneError',
      'DataCloneError',
      'DataCloneError',
      'DataCloneError',
      'DataCloneError',
    ]);
  });
});

describe('the globals cannot reach the host', () => {
  it('constructor chains end in the blocked Function constructor', async () => {
    expect(
      await result(`
      const probes: unknown[] = [new URL('http://h'), new URL('http://h').searchParams, new TextEncoder(), new TextDecoder(), atob, btoa, structuredClone, new DOMException('x'), new URLSearchParams().entries()];
      return probes.map((p) => {
        try {
          const F = (p as { constructor: { constructor: (s: string) => () => unknown } }).constructor.constructor;
          return String(F('return globalThis.process')());
        } catch (e) { return (e as Error).name; }
      });`),
    ).toEqual(Array.from({ length: 9 }, () => 'EvalError'));
  });

  it('prototype pollution through the globals stays inside the run', async () => {
    const first = await result(`
      (URL.prototype as unknown as Record<string, unknown>).toString = () => 'owned';
      (Object.prototype as Record<string, unknown>).polluted = 1;
      (TextEncoder.prototype as unknown as { encode: unknown }).encode = () => 'evil';
      (globalThis as Record<string, unknown>).URL = 'replaced';
      return typeof (globalThis as Record<string, unknown>).URL;`);
    expect(first).toBe('string');
    // A fresh run sees pristine globals.
    expect(
      await result(
        `return [String(new URL('http://h/x')), ({} as Record<string, unknown>).polluted ?? 'clean', Array.from(new TextEncoder().encode('a'))];`,
      ),
    ).toEqual(['http://h/x', 'clean', [97]]);
  });

  it('none of them holds or returns a host reference (no isolated-vm Reference, no process)', async () => {
    expect(
      await result(`
      const seen: string[] = [];
      const walk = (o: unknown, depth: number): void => {
        if (depth > 3 || o === null || (typeof o !== 'object' && typeof o !== 'function')) return;
        for (const k of Reflect.ownKeys(o as object)) {
          let v: unknown;
          try { v = (o as Record<PropertyKey, unknown>)[k as string]; } catch { continue; }
          const tag = Object.prototype.toString.call(v);
          if (/Reference|ExternalCopy|Isolate|Context/.test(tag) || (typeof v === 'object' && v !== null && 'applySync' in v)) seen.push(String(k));
          walk(v, depth + 1);
        }
      };
      for (const g of [URL, URLSearchParams, TextEncoder, TextDecoder, atob, btoa, structuredClone, DOMException]) walk(g, 0);
      return [seen, typeof (globalThis as Record<string, unknown>).process];`),
    ).toEqual([[], 'undefined']);
  });

  it.each([
    [
      'TextEncoder on a huge string',
      'const s = "€".repeat(2 ** 24); return new TextEncoder().encode(s).length;',
    ],
    ['btoa of a huge string', 'return btoa("a".repeat(2 ** 25)).length;'],
    [
      'structuredClone of a large structure',
      'const a = Array.from({ length: 200000 }, (_, i) => ({ i, s: "x".repeat(50) })); const copies = []; for (let k = 0; k < 50; k++) copies.push(structuredClone(a)); return copies.length;',
    ],
    [
      'URLSearchParams with a huge query',
      'const p = new URLSearchParams("a=1&".repeat(3_000_000)); return p.size;',
    ],
  ])('%s fails the run by its limits, and the next run works', async (_name, code) => {
    const r = await run(code);
    // `memory` when the heap limit is hit; `exception` (a RangeError) when V8 refuses one buffer
    // allocation over the limit; `timeout` when the CPU limit comes first.
    expect(['memory', 'timeout', 'exception']).toContain(kind(r));
    if (kind(r) === 'exception')
      expect(r.ok ? '' : r.error.message).toMatch(/RangeError|allocation/i);
    expect(await result('return new URL("http://ok/").host;')).toBe('ok');
  });
});
