/**
 * Errors a model can act on (issue 12 item 4), through the runtime with the type-checker on: fences,
 * module refusals, non-Error throws, the return-value rule (decision record 018) and diagnostics.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  createRuntime,
  defineTool,
  type Runtime,
  type RunCodeValue,
  type ToolResult,
} from '../../src/index.js';
import { DIAGNOSTICS_BUDGET_CHARS } from '../../src/compile/index.js';

let rt: Runtime;
beforeAll(async () => {
  rt = await createRuntime({
    tools: [
      defineTool({
        name: 'users.get',
        description: 'Gets a user.',
        input: z.object({ id: z.number() }),
        output: z.object({ id: z.number(), name: z.string() }),
        isConcurrencySafe: true,
        execute: ({ id }: { id: number }) => ({ id, name: `user-${id}` }),
      }),
      defineTool({
        name: 'fail',
        description: 'Always fails.',
        input: z.object({}),
        execute: () => {
          throw new Error('the upstream said no');
        },
      }),
    ],
    scopes: { default: { mode: 'code' } },
    codeMode: { limits: { maxResultBytes: 64 * 1024 } },
  });
});
afterAll(() => rt.close());

const run = (code: string): Promise<ToolResult> =>
  rt.execute({ name: 'run_code', args: { code, description: 'model errors' } });
const ok = async (code: string): Promise<RunCodeValue> => {
  const r = await run(code);
  if (!r.ok) throw new Error(`run failed: ${r.error.message}`);
  return r.value as unknown as RunCodeValue;
};
interface Failure {
  code: string;
  message: string;
  details: {
    kind: string;
    diagnostics?: { kind: string; code?: number; line: number; hint?: string; message: string }[];
    thrown?: unknown;
    notes?: string[];
    line?: number;
    frames?: { line: number; column: number; fn?: string }[];
  };
}
const failed = async (code: string): Promise<Failure> => {
  const r = await run(code);
  if (r.ok) throw new Error(`expected a failure, got ${JSON.stringify(r.value)}`);
  return r.error as unknown as Failure;
};

describe('Markdown fences', () => {
  it('a fenced program runs, with a note (not an error)', async () => {
    const v = await ok('```ts\nconst u = await tools.users.get({ id: 2 });\nreturn u.name;\n```');
    expect(v.result).toBe('user-2');
    expect(v.notes).toEqual([expect.stringContaining('Markdown code fence')]);
    const unfenced = await ok('return 1;');
    expect(unfenced.notes).toBeUndefined();
  });

  it("diagnostics of a fenced program keep the model's line numbers", async () => {
    const f = await failed('```typescript\nconst a = 1;\nconst b: string = a;\nreturn b;\n```');
    expect(f.details.kind).toBe('typecheck');
    expect(f.details.diagnostics?.[0]).toMatchObject({ code: 2322, line: 3 });
    expect(f.message).toContain('line 3, col 7: TS2322');
    expect(f.message).toContain('  3 | const b: string = a;');
    expect(f.details.notes).toEqual([expect.stringContaining('Markdown code fence')]);
  });

  it('an exception in a fenced program reports the line the model wrote', async () => {
    const f = await failed('```ts\nconst x = 1;\nthrow new Error("boom " + x);\n```');
    expect(f.details).toMatchObject({ kind: 'exception', line: 3 });
  });

  it('an exception carries the program frames of its stack, innermost first, in program lines', async () => {
    const f = await failed(
      [
        'function inner(n: number): number {',
        "  if (n > 2) throw new Error('too deep');",
        '  return inner(n + 1);',
        '}',
        'const outer = () => inner(0);',
        'outer();',
      ].join('\n'),
    );
    expect(f.details).toMatchObject({ kind: 'exception', line: 2 });
    const frames = f.details.frames ?? [];
    expect(frames.map((fr) => fr.line)).toEqual([2, 3, 3, 3, 5, 6]);
    expect(frames.slice(0, 4).map((fr) => fr.fn)).toEqual(['inner', 'inner', 'inner', 'inner']);
    expect(frames[4]?.fn).toBe('outer');
    expect(frames[0]?.column).toBeGreaterThan(0);
  });

  it('a stack deeper than ten program frames carries the innermost ten', async () => {
    const f = await failed(
      "function down(n: number): number { if (n === 0) throw new Error('bottom'); return down(n - 1); }\ndown(50);",
    );
    expect(f.details.frames).toHaveLength(10);
    expect(f.details.frames?.every((fr) => fr.line === 1 && fr.fn === 'down')).toBe(true);
  });

  it('a frame carries at most 100 characters of its function’s name', async () => {
    const name = `f${'x'.repeat(300)}`;
    const f = await failed(`function ${name}(): never { throw new Error('long'); }\n${name}();`);
    expect(f.details.frames?.[0]?.fn).toBe(name.slice(0, 100));
  });

  it('prose around a block is not unwrapped', async () => {
    const f = await failed('Here you go:\n```ts\nreturn 1;\n```');
    expect(['syntax', 'typecheck']).toContain(f.details.kind);
    expect(f.details.notes).toBeUndefined();
  });
});

describe('modules: one diagnostic that says what is available', () => {
  it.each([
    [
      'import',
      "import fs from 'node:fs';\nreturn fs.readFileSync('/etc/passwd', 'utf8');",
      'cannot `import`',
    ],
    ['export default', 'const r = 1;\nexport default r;', 'cannot `export`'],
    [
      'require',
      "const fs = require('fs');\nreturn fs.readFileSync('x');",
      '`require` is not available',
    ],
  ])('%s', async (_name, code, text) => {
    const f = await failed(code);
    expect(f.details.kind).toBe('syntax');
    expect(f.details.diagnostics).toHaveLength(1);
    const d = f.details.diagnostics?.[0];
    expect(d?.message).toContain(text);
    expect(d?.message).toContain('global `tools` object');
    expect(d?.code).toBeUndefined();
    expect(f.message).not.toMatch(/unbalanced braces|TS0/);
  });
});

describe('non-Error throws report their JSON', () => {
  it.each([
    [
      'throw { code: 42, reason: "nope" };',
      { code: 42, reason: 'nope' },
      '{"code":42,"reason":"nope"}',
    ],
    ["throw 'x';", 'x', '"x"'],
    ['throw 42;', 42, '42'],
    ['throw null;', null, 'null'],
    [
      'throw [1, { a: undefined, f: () => 1 }];',
      [1, { f: '[Function f]' }],
      '[1,{"f":"[Function f]"}]',
    ],
  ])('%s', async (code, thrown, text) => {
    const f = await failed(code);
    expect(f.details.kind).toBe('exception');
    expect(f.details.thrown).toEqual(thrown);
    expect(f.message).toContain(`Uncaught non-Error value: ${text}`);
  });

  it('a huge or cyclic thrown value is bounded, valid JSON', async () => {
    const f = await failed(
      'const o: Record<string, unknown> = {}; o.self = o; o.big = "y".repeat(100000); o.list = Array.from({ length: 5000 }, (_, i) => i); o.after = 1; throw o;',
    );
    const text = JSON.stringify(f.details.thrown);
    expect(text.length).toBeLessThan(3000);
    expect(f.details.thrown).toMatchObject({ self: '[Circular]' });
    expect((f.details.thrown as { big: string }).big.length).toBeLessThanOrEqual(201);
    expect((f.details.thrown as { list: unknown[] }).list.at(-1)).toBe('…');
    expect(f.details.thrown).toMatchObject({ '…': '…' });
  });

  it('a long thrown message is cut, never between the halves of a surrogate pair', async () => {
    // The isolate keeps 4,096 characters of a message and the host 4,000 of the error's: cut
    // positions around both, on either half of a pair.
    for (const k of [3_975, 3_976, 3_977, 3_978, 3_979, 3_980, 3_981, 3_982, 4_094, 4_095]) {
      const f = await failed(`throw new Error("a".repeat(${k}) + "\\u{1F600}".repeat(100));`);
      expect(f.details.kind, `k=${k}`).toBe('exception');
      expect(f.message.length, `k=${k}`).toBeLessThanOrEqual(4_000);
      expect(f.message, `k=${k}`).toMatch(/more characters\)$/);
      expect(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/.test(f.message), `k=${k}`).toBe(false);
    }
  });

  it('Error throws keep their message and line', async () => {
    const f = await failed('\nthrow new TypeError("bad input");');
    expect(f.message).toContain('TypeError: bad input');
    expect(f.details).toMatchObject({ line: 2 });
    expect(f.details.thrown).toBeUndefined();
  });
});

describe('the return-value rule', () => {
  it.each([
    ['undefined at the top → null', 'return undefined;', null],
    ['no return → null', 'const a = 1;', null],
    [
      'undefined in objects dropped, in arrays null',
      'return { a: undefined, b: [undefined, 1] };',
      { b: [null, 1] },
    ],
    ['NaN and Infinity → null', 'return [NaN, Infinity, -Infinity, 1.5];', [null, null, null, 1.5]],
    [
      'Date → ISO string, invalid Date → null',
      'return [new Date(0), new Date("nope")];',
      ['1970-01-01T00:00:00.000Z', null],
    ],
    [
      'BigInt → decimal string',
      'return { n: 12345678901234567890n };',
      { n: '12345678901234567890' },
    ],
    [
      'Map with string keys → object',
      "return new Map<string, unknown>([['a', 1], ['b', new Set([2])]]);",
      { a: 1, b: [2] },
    ],
    [
      'Map with number keys → object',
      'return new Map([[1, "x"], [2, "y"]]);',
      { '1': 'x', '2': 'y' },
    ],
    [
      'Map with other keys → entries',
      'return new Map<unknown, number>([[{ k: 1 }, 1], [true, 2]]);',
      [
        [{ k: 1 }, 1],
        [true, 2],
      ],
    ],
    [
      'Map whose keys collide as strings → entries',
      "return new Map<unknown, number>([[1, 1], ['1', 2]]);",
      [
        [1, 1],
        ['1', 2],
      ],
    ],
    ['Set → array', 'return new Set(["a", "b", "a"]);', ['a', 'b']],
    ['typed array → numbers', 'return new Uint16Array([1, 65535]);', [1, 65535]],
    ['RegExp → source text', 'return /a+b/gi;', '/a+b/gi'],
    [
      'boxed primitives → primitives',
      'return [Object(1), Object("s"), Object(true)];',
      [1, 's', true],
    ],
    [
      'Error → name and message',
      'return new RangeError("too big");',
      { name: 'RangeError', message: 'too big' },
    ],
    ['toJSON is honoured', 'return { t: { toJSON: () => "custom" } };', { t: 'custom' }],
    ['shared references are copied', 'const x = { a: 1 }; return [x, x];', [{ a: 1 }, { a: 1 }]],
  ])('%s', async (_name, code, expected) => {
    expect((await ok(code)).result).toEqual(expected);
  });

  it('a ToolCallError keeps its code and tool name', async () => {
    const v = await ok('try { await tools.fail({}); } catch (e) { return { e }; }');
    expect((v.result as { e: unknown }).e).toMatchObject({
      name: 'ToolCallError',
      toolName: 'fail',
      code: 'TOOL_ERROR',
    });
  });

  it.each([
    ['a function', 'return { items: [1, { f: () => 1 }] };', 'result.items[1].f is a function'],
    ['a symbol', 'return { s: Symbol("x") };', 'result.s is a symbol'],
    ['a promise', 'return { p: tools.users.get({ id: 1 }) };', 'result.p is a Promise: await it'],
    [
      'a class instance',
      'class When { t = 1; }\nreturn { items: [0, 1, 2, { when: new When() }] };',
      'result.items[3].when is an instance of When',
    ],
    [
      'a cycle',
      'const a: Record<string, unknown> = {}; a.self = a; return { a };',
      'result.a.self refers back to result.a (a cycle)',
    ],
    ['a Map value', 'return { m: new Map([["k", () => 1]]) };', 'result.m.get("k") is a function'],
    ['an odd key', 'return { "a b": [() => 1] };', 'result["a b"][0] is a function'],
    ['a WeakMap', 'return { w: new WeakMap() };', 'result.w is an instance of WeakMap'],
    ['an ArrayBuffer', 'return new ArrayBuffer(4);', 'result is an instance of ArrayBuffer'],
    [
      'a throwing getter',
      'return { get x(): number { throw new Error("nope"); } };',
      'result.x could not be read: Error: nope',
    ],
    [
      'too deep',
      'let v: unknown = 1; for (let i = 0; i < 300; i++) v = [v]; return v;',
      'more than 256 levels deep',
    ],
  ])('refuses %s, naming the path', async (_name, code, text) => {
    const f = await failed(code);
    expect(f.details.kind).toBe('invalid-output');
    expect(f.message).toContain(text);
  });

  it('a result over the limit is output-limit, not a crash', async () => {
    const f = await failed('return "x".repeat(100000);');
    expect(f.details.kind).toBe('output-limit');
  });
});

describe('diagnostics', () => {
  it('are deduplicated, capped to the budget, each with its program line and a hint', async () => {
    const lines = Array.from(
      { length: 60 },
      (_, i) => `const v${i}: number = (await tools.users.get({ id: ${i} })).nmae;`,
    );
    const f = await failed(`${lines.join('\n')}\nreturn 1;`);
    expect(f.details.kind).toBe('typecheck');
    const text = f.message;
    expect(text.length).toBeLessThan(DIAGNOSTICS_BUDGET_CHARS + 400);
    // The same finding on many lines is shown once, with the other lines.
    expect(text.match(/Property 'nmae' does not exist/g)).toHaveLength(1);
    expect(text).toMatch(/\(also lines 2, 3, 4, .*\.\.\.\)/);
    expect(text).toContain('  1 | const v0: number = (await tools.users.get({ id: 0 })).nmae;');
    expect(text).toContain('  hint: ');
    expect(f.details.diagnostics?.[0]?.hint).toBeDefined();
  });

  it('different findings beyond the budget end with "and N more"', async () => {
    const lines = Array.from(
      { length: 60 },
      (_, i) =>
        `const v${i}: number = (await tools.users.get({ id: ${i} })).missing_${i}_${'x'.repeat(60)};`,
    );
    const f = await failed(`${lines.join('\n')}\nreturn 1;`);
    expect(f.message).toMatch(/\.\.\. and \d+ more diagnostics not shown/);
    expect(f.message.length).toBeLessThan(DIAGNOSTICS_BUDGET_CHARS + 400);
  });

  it('syntax errors have no TS code', async () => {
    const f = await failed('const a = ;\nreturn a;');
    expect(f.details.kind).toBe('syntax');
    expect(f.details.diagnostics?.[0]?.code).toBeUndefined();
    expect(f.message).toContain('syntax error:');
    expect(f.message).not.toContain('TS0');
  });

  it('runtime.check returns no code for syntax errors either', async () => {
    const diags = await rt.check('return 1;\n}', 'default');
    expect(diags.length).toBeGreaterThan(0);
    for (const d of diags) expect(d.code).toBeUndefined();
  });
});
