import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNativeChecker } from '../../src/compile/index.js';
import type { Diagnostic, TypeChecker } from '../../src/compile/index.js';
import { READ_SDK, WRITE_SDK } from './helpers.js';

let checker: TypeChecker;

beforeAll(async () => {
  checker = createNativeChecker();
  await checker.warmup(READ_SDK);
});

afterAll(async () => {
  await checker.close();
});

const codes = (diags: Diagnostic[]): number[] => diags.map((d) => d.code ?? 0);

describe('native checker: programs', () => {
  it('passes a correct program', async () => {
    const program = [
      'const r = await tools.read_file({ path: "notes.txt" });',
      'const dir = await tools.list_dir({ path: "." });',
      'console.log(r.size, dir.entries.filter((e) => e.isDir).length);',
      'return { length: r.content.length, names: dir.entries.map((e) => e.name) };',
    ].join('\n');
    await expect(checker.check(program, READ_SDK)).resolves.toEqual([]);
  });

  it('reports a wrong property at its program line and column', async () => {
    const diags = await checker.check(
      'const r = await tools.read_file({ path: "a" });\nreturn r.contnt;',
      READ_SDK,
    );
    expect(diags).toHaveLength(1);
    expect(diags[0]).toMatchObject({
      kind: 'typecheck',
      code: 2551,
      category: 'error',
      line: 2,
      column: 10,
    });
    expect(diags[0]?.message).toContain("Property 'contnt' does not exist");
    expect(diags[0]).toMatchObject({ endLine: 2, endColumn: 16 });
  });

  it('reports a wrong argument type at the offending property', async () => {
    const diags = await checker.check('// read it\nawait tools.read_file({ path: 42 });', READ_SDK);
    expect(codes(diags)).toEqual([2322]);
    expect(diags[0]).toMatchObject({ line: 2, column: 25 });
    expect(diags[0]?.message).toContain("Type 'number' is not assignable to type 'string'");
  });

  it('reports a missing await with the hint', async () => {
    const diags = await checker.check(
      'const r = tools.read_file({ path: "a" });\nreturn r.content;',
      READ_SDK,
    );
    expect(codes(diags)).toEqual([2339]);
    expect(diags[0]).toMatchObject({ line: 2, column: 10 });
    expect(diags[0]?.message).toContain("Did you forget to use 'await'?");
  });

  it('reports an unknown tool', async () => {
    const diags = await checker.check(
      '\n  await tools.write_file({ path: "a", content: "b" });',
      READ_SDK,
    );
    expect(codes(diags)).toEqual([2339]);
    expect(diags[0]).toMatchObject({ line: 2, column: 15 });
    expect(diags[0]?.message).toContain("Property 'write_file' does not exist on type 'Tools'");
  });

  it('refuses bracket nesting deeper than 128 before compiling, at the offending bracket', async () => {
    const nest = (n: number, open: string, close: string): string =>
      `return ${open.repeat(n)}1${close.repeat(n)};`;
    await expect(checker.check(nest(128, '[', ']'), READ_SDK)).resolves.toEqual([]);
    for (const [open, close] of [
      ['[', ']'],
      ['(', ')'],
      ['{ a: ', ' }'],
      ['`${', '}`'],
    ]) {
      const diags = await checker.check(nest(2000, open ?? '', close ?? ''), READ_SDK);
      expect(diags).toHaveLength(1);
      expect(diags[0]).toMatchObject({ kind: 'syntax', line: 1 });
      expect(diags[0]?.code).toBeUndefined();
      expect(diags[0]?.message).toContain('nests brackets more than 128 deep');
      const width = (open ?? '').length;
      expect(diags[0]?.column).toBeGreaterThanOrEqual(8 + 128 * width);
      expect(diags[0]?.column).toBeLessThanOrEqual(8 + 129 * width);
    }
    // Sequential brackets and brackets in strings and comments do not count.
    const flat = `const s = "${'['.repeat(300)}"; // ${'('.repeat(300)}\nreturn [${'[1],'.repeat(300)}];`;
    await expect(checker.check(flat, READ_SDK)).resolves.toEqual([]);
  });

  it('accepts top-level await, any return value, and no return at all', async () => {
    for (const program of [
      'const n = await Promise.resolve(1);\nif (n > 0) return "text";\nreturn [n, { nested: true }];',
      'await tools.list_dir({ path: "." });',
      'return;',
    ]) {
      await expect(checker.check(program, READ_SDK)).resolves.toEqual([]);
    }
  });

  it('flattens message chains into indented lines', async () => {
    const diags = await checker.check(
      'let f: (x: string) => void = (x: number) => {};\nf("a");',
      READ_SDK,
    );
    expect(codes(diags)).toEqual([2322]);
    expect(diags[0]?.message).toBe(
      [
        "Type '(x: number) => void' is not assignable to type '(x: string) => void'.",
        "  Types of parameters 'x' and 'x' are incompatible.",
        "    Type 'string' is not assignable to type 'number'.",
      ].join('\n'),
    );
  });

  it('reports syntax errors (and only those) with TS codes in program coordinates', async () => {
    const diags = await checker.check(
      'const a: number = "x";\nconst s = "é😀"; let y = ;',
      READ_SDK,
    );
    expect(diags).toEqual([
      expect.objectContaining({ kind: 'syntax', code: 1109, line: 2, column: 26 }),
    ]);
  });

  it('uses UTF-16 columns after non-ASCII text', async () => {
    const diags = await checker.check('const s = "😀😀"; const n: number = s;', READ_SDK);
    expect(diags[0]).toMatchObject({ code: 2322, line: 1, column: 25 });
  });

  it('does not let program declarations merge into or break the SDK globals', async () => {
    const shadowing = [
      'interface Tools { extra(): Promise<void> }',
      'interface ReadFileInput { other: number }',
      'const mine: ReadFileInput = { other: 1 };',
      'const r = await tools.read_file({ path: "a" });',
      'return [mine.other, r.size];',
    ].join('\n');
    await expect(checker.check(shadowing, READ_SDK)).resolves.toEqual([]);
    // The local interface did not merge into the global Tools.
    const merged = await checker.check(
      'interface Tools { extra(): Promise<void> }\nawait tools.extra();',
      READ_SDK,
    );
    expect(codes(merged)).toEqual([2339]);
    expect(merged[0]?.line).toBe(2);
    const constant = await checker.check('const tools = 1;\nreturn tools + 1;', READ_SDK);
    expect(constant).toEqual([]);
    // And the SDK is intact for the next program.
    await expect(
      checker.check('return (await tools.read_file({ path: "a" })).content;', READ_SDK),
    ).resolves.toEqual([]);
  });

  it('rejects a program that closes its wrapper to declare globals, without affecting later checks', async () => {
    const escape =
      '}\ndeclare global { interface Tools { evil(): Promise<void> } }\nfunction x() {';
    const diags = await checker.check(escape, READ_SDK);
    expect(diags.length).toBeGreaterThan(0);
    expect(diags[0]?.kind).toBe('syntax');
    const after = await checker.check('await tools.evil();', READ_SDK);
    expect(codes(after)).toEqual([2339]);
  });

  it('never returns the previous program results (consecutive checks)', async () => {
    const good = 'return (await tools.read_file({ path: "a" })).size;';
    const bad = (i: number): string =>
      `const r = await tools.read_file({ path: "a" });\nreturn r.missing_${i};`;
    for (let i = 0; i < 6; i++) {
      const diags = await checker.check(bad(i), READ_SDK);
      expect(diags).toHaveLength(1);
      expect(diags[0]?.message).toContain(`missing_${i}`);
      await expect(checker.check(good, READ_SDK)).resolves.toEqual([]);
    }
  });

  it('checks against the right SDK when two SDKs are in use', async () => {
    const write = 'return (await tools.write_file({ path: "a", content: "b" })).written;';
    const read = 'return (await tools.read_file({ path: "a" })).size;';
    for (let i = 0; i < 3; i++) {
      await expect(checker.check(write, WRITE_SDK)).resolves.toEqual([]);
      expect(codes(await checker.check(write, READ_SDK))).toEqual([2339]);
      await expect(checker.check(read, READ_SDK)).resolves.toEqual([]);
      expect(codes(await checker.check(read, WRITE_SDK))).toEqual([2339]);
    }
    expect(checker.stats().cachedSdks).toBe(2);
  });

  it('uses the new text when a hash comes back with a different SDK text', async () => {
    const sdkA = { hash: 'same-hash', text: WRITE_SDK.text };
    const sdkB = { hash: 'same-hash', text: READ_SDK.text };
    const program = 'await tools.read_file({ path: "a" });';
    expect(codes(await checker.check(program, sdkA))).toEqual([2339]);
    await expect(checker.check(program, sdkB)).resolves.toEqual([]);
  });

  it('gives every one of 20 concurrent checks its own result', async () => {
    // Mixed SDKs and programs: every fifth is a correct write_file program, the others name a unique property.
    const cases = Array.from({ length: 20 }, (_, i) =>
      i % 5 === 0
        ? {
            sdk: WRITE_SDK,
            program: `return (await tools.write_file({ path: "${i}", content: "" })).written + ${i};`,
          }
        : {
            sdk: READ_SDK,
            program: `const r = await tools.read_file({ path: "${i}" });\n${'\n'.repeat(i % 3)}return r.prop_${i};`,
          },
    );
    const results = await Promise.all(cases.map((c) => checker.check(c.program, c.sdk)));
    results.forEach((diags, i) => {
      if (i % 5 === 0) {
        expect(diags).toEqual([]);
      } else {
        expect(diags).toHaveLength(1);
        expect(diags[0]?.message).toContain(`'prop_${i}'`);
        expect(diags[0]?.line).toBe(2 + (i % 3));
      }
    });
  });

  it('reports SDK errors as internal diagnostics at line 0', async () => {
    const broken = {
      hash: 'broken',
      text: `${READ_SDK.text}\ninterface Tools { broken(): Promise<Missing> }\n`,
    };
    const diags = await checker.check('return 1;', broken);
    expect(diags).toHaveLength(1);
    expect(diags[0]).toMatchObject({ kind: 'typecheck', code: 2304, line: 0, column: 0 });
    expect(diags[0]?.message).toMatch(
      /Internal error in the tool SDK \(sdk\.d\.ts line \d+, col \d+\), not in your program/,
    );
  });

  it('limits the number of diagnostics and sorts them by position', async () => {
    const program = Array.from({ length: 30 }, (_, i) => `const v${i}: number = "${i}";`).join(
      '\n',
    );
    const diags = await checker.check(program, READ_SDK);
    expect(diags).toHaveLength(20);
    expect(diags.map((d) => d.line)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
  });

  it('rejects invalid arguments', async () => {
    await expect(checker.check(1 as unknown as string, READ_SDK)).rejects.toMatchObject({
      code: 'INVALID_ARGS',
    });
    await expect(checker.check('return 1', { text: 'x', hash: '' })).rejects.toMatchObject({
      code: 'INVALID_ARGS',
    });
  });

  it('rejects an already aborted check', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(
      checker.check('return 1', READ_SDK, { signal: controller.signal }),
    ).rejects.toMatchObject({
      code: 'ABORTED',
    });
  });
});
