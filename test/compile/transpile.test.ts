import vm from 'node:vm';
import { describe, expect, it } from 'vitest';
import { positionMapper, transpileProgram } from '../../src/compile/index.js';
import type { TranspileResult } from '../../src/compile/index.js';

type Ok = Extract<TranspileResult, { ok: true }>;

function ok(program: string): Ok {
  const result = transpileProgram(program);
  if (!result.ok) throw new Error(`expected ok, got ${JSON.stringify(result.diagnostics)}`);
  return result;
}

/** Evaluates the transpiled expression as the script `program.js` (globals from `scope`) and calls it. */
async function run(js: string, scope: Record<string, unknown> = {}): Promise<unknown> {
  const fn = vm.runInNewContext(
    js,
    { ...scope },
    { filename: 'program.js' },
  ) as () => Promise<unknown>;
  return fn();
}

/** 1-based (line, column) of the first occurrence of `needle` in `text`. */
function positionOf(text: string, needle: string): { line: number; column: number } {
  const lines = text.split('\n');
  for (const [i, line] of lines.entries()) {
    const c = line.indexOf(needle);
    if (c >= 0) return { line: i + 1, column: c + 1 };
  }
  throw new Error(`${needle} not found`);
}

describe('transpileProgram', () => {
  it('produces an async function expression with strict mode, types stripped', async () => {
    const result = ok('const x: number = 2;\ninterface A { a: string }\nreturn x * 21;');
    expect(result.js.startsWith('(async function')).toBe(true);
    expect(result.js.endsWith('})')).toBe(true);
    expect(result.js).toMatch(/^\(async function\s*\(\)\s*\{\n\s*["']use strict["'];/);
    expect(result.js).not.toMatch(/;\s*$/);
    expect(result.js).not.toContain('interface');
    await expect(run(result.js)).resolves.toBe(42);
  });

  it('supports top-level await and return', async () => {
    const result = ok(
      'const v = await Promise.resolve(20);\nif (v > 10) {\n  return v + 1;\n}\nreturn 0;',
    );
    await expect(run(result.js)).resolves.toBe(21);
  });

  it('keeps strict-mode semantics', async () => {
    const result = ok('return (function (this: unknown) { return this; })();');
    await expect(run(result.js)).resolves.toBeUndefined();
  });

  it('transforms enums and calls bindings in scope', async () => {
    const result = ok(
      'enum Mode { A = "a", B = "b" }\nconst r = await tools.read({ mode: Mode.B });\nreturn r;',
    );
    const tools = { read: (input: { mode: string }) => Promise.resolve(`mode=${input.mode}`) };
    await expect(run(result.js, { tools })).resolves.toBe('mode=b');
  });

  it('reports syntax errors in program coordinates (UTF-16 columns)', () => {
    const result = transpileProgram('const a = 1;\nconst s = "é😀"; let y = ;');
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.diagnostics).toHaveLength(1);
    expect(result.diagnostics[0]).toMatchObject({
      kind: 'syntax',
      category: 'error',
      line: 2,
      column: 26,
    });
    // Not a TypeScript diagnostic: no code (never "TS0").
    expect(result.diagnostics[0]?.code).toBeUndefined();
  });

  it('reports an unclosed brace at the end of the program with a hint', () => {
    const result = transpileProgram('if (x) {\n  foo();\n');
    expect(result.ok).toBe(false);
    if (result.ok) return;
    const d = result.diagnostics[0];
    expect(d?.line).toBe(3);
    expect(d?.message).toContain('end of the program');
  });

  it('rejects a program that closes its wrapper early and runs code outside it', () => {
    for (const program of [
      '}, globalThis.escaped = 1, function () {',
      '}), evil(), (function () {',
    ]) {
      const result = transpileProgram(program);
      expect(result.ok).toBe(false);
      if (result.ok) continue;
      expect(result.diagnostics[0]).toMatchObject({ kind: 'syntax', line: 1, column: 1 });
      expect(result.diagnostics[0]?.message).toContain('body of one function');
    }
  });

  it('rejects import declarations', () => {
    expect(transpileProgram('import fs from "node:fs";\nreturn 1;').ok).toBe(false);
  });

  it('accepts a trailing line comment', async () => {
    await expect(run(ok('return 7 // done').js)).resolves.toBe(7);
  });

  it('maps a runtime error position back to the program line and column', async () => {
    const program =
      'const s: string = "é😀";\nconst n: number = s.length;\n\n  throw new Error("boom " + n);';
    const result = ok(program);
    let stack = '';
    try {
      await run(result.js);
    } catch (error) {
      stack = (error as Error).stack ?? '';
    }
    expect(stack).toContain('boom 3');
    // The stack trace's position in the generated script maps back to `new Error` on line 4 of the program.
    const frame = /program\.js:(\d+):(\d+)/.exec(stack);
    expect(frame).not.toBeNull();
    expect(result.mapPosition(Number(frame?.[1]), Number(frame?.[2]))).toEqual({
      line: 4,
      column: 9,
    });
    const at = positionOf(result.js, 'throw');
    expect(result.mapPosition(at.line, at.column)).toEqual({ line: 4, column: 3 });
    const errAt = positionOf(result.js, 'new Error');
    expect(result.mapPosition(errAt.line, errAt.column)).toEqual({ line: 4, column: 9 });
  });

  it('maps columns after non-ASCII text on the same line', () => {
    const program = 'foo("é😀", "😀😀", bar(1));';
    const result = ok(program);
    const at = positionOf(result.js, 'bar(');
    expect(result.mapPosition(at.line, at.column)).toEqual({
      line: 1,
      column: program.indexOf('bar(') + 1,
    });
  });

  it('maps every statement of a longer program with type-only lines removed and enums rewritten', () => {
    const program = [
      'interface Row { id: number }',
      'enum Kind { A, B }',
      'const rows: Row[] = [{ id: 1 }];',
      '  m_1(rows, Kind.B);',
      'type Alias = Row;',
      'for (const r of rows) {',
      '    m_2(r.id as number);',
      '}',
      'function helper(x: Alias): number { return m_3(x.id); }',
      'return [helper(rows[0]!), m_4()];',
    ].join('\n');
    const result = ok(program);
    const programLines = program.split('\n');
    for (const marker of ['m_1(', 'm_2(', 'm_3(', 'm_4(']) {
      const expectedLine = programLines.findIndex((l) => l.includes(marker)) + 1;
      const expectedColumn = (programLines[expectedLine - 1] ?? '').indexOf(marker) + 1;
      const at = positionOf(result.js, marker);
      expect(result.mapPosition(at.line, at.column)).toEqual({
        line: expectedLine,
        column: expectedColumn,
      });
    }
  });

  it('rebuilds the same position map from its serialised form (as another process would)', () => {
    const program =
      'interface R { id: number }\nconst r: R = { id: 1 };\n  m_1(r);\nreturn "é😀" + m_2(r.id);';
    const result = ok(program);
    const wire = JSON.parse(JSON.stringify(result.positions)) as typeof result.positions;
    expect(wire).toEqual(result.positions);
    const mapPosition = positionMapper(wire);
    for (const marker of ['m_1(', 'm_2(', 'return']) {
      const at = positionOf(result.js, marker);
      expect(mapPosition(at.line, at.column)).toEqual(result.mapPosition(at.line, at.column));
      expect(mapPosition(at.line, at.column)).toBeDefined();
    }
    expect(mapPosition(1, 1)).toBeUndefined();
    expect(mapPosition(99, 1)).toBeUndefined();
    expect(positionMapper({ mappings: '', prefixLines: 2, programLines: 1 })(3, 1)).toBeUndefined();
  });

  it('returns undefined for positions inside the wrapper or out of range', () => {
    const result = ok('return 1;');
    expect(result.mapPosition(1, 1)).toBeUndefined();
    expect(result.mapPosition(2, 2)).toBeUndefined();
    expect(result.mapPosition(99, 1)).toBeUndefined();
    expect(result.mapPosition(0.5, 1)).toBeUndefined();
  });

  it('rejects a non-string program', () => {
    expect(() => transpileProgram(42 as unknown as string)).toThrow(/program must be a string/);
  });
});
