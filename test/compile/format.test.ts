import { describe, expect, it } from 'vitest';
import { DIAGNOSTICS_BUDGET_CHARS, formatDiagnostics, hintFor } from '../../src/compile/index.js';
import type { Diagnostic } from '../../src/compile/index.js';

const diag = (over: Partial<Record<keyof Diagnostic, unknown>>): Diagnostic => {
  const d = {
    kind: 'typecheck',
    code: 2339,
    category: 'error',
    message: "Property 'x' does not exist on type 'T'.",
    line: 3,
    column: 5,
    ...over,
  } as Diagnostic;
  if (d.code === undefined) delete d.code;
  return d;
};

describe('formatDiagnostics', () => {
  it('renders one line per diagnostic with the TS code', () => {
    expect(formatDiagnostics([diag({})], { hints: false })).toBe(
      "line 3, col 5: TS2339 Property 'x' does not exist on type 'T'.",
    );
  });

  it('indents the detail lines of a message chain', () => {
    const text = formatDiagnostics([
      diag({ code: 2322, message: "Type 'A' is not assignable to type 'B'.\n  Types differ." }),
    ]);
    expect(text.split('\n').slice(0, 2)).toEqual([
      "line 3, col 5: TS2322 Type 'A' is not assignable to type 'B'.",
      '    Types differ.',
    ]);
  });

  it('labels syntax errors without a TS code (never TS0), internal problems, and non-error categories', () => {
    const text = formatDiagnostics([
      diag({ kind: 'syntax', code: undefined, message: 'Unexpected token', line: 1, column: 9 }),
      diag({ kind: 'syntax', code: 0, message: 'Unexpected end', line: 2, column: 1 }),
      diag({ line: 0, column: 0, code: 2304, message: 'Internal error in the tool SDK' }),
      diag({ category: 'warning', code: 6385, message: 'deprecated' }),
    ]);
    expect(text.split('\n')).toEqual([
      'line 1, col 9: syntax error: Unexpected token',
      'line 2, col 1: syntax error: Unexpected end',
      'internal: TS2304 Internal error in the tool SDK',
      'line 3, col 5: warning TS6385 deprecated',
    ]);
    expect(text).not.toContain('TS0');
  });

  it('shows the program line under each diagnostic and a hint for common codes', () => {
    const program = 'const r = await tools.get({ id: 1 });\nreturn r.nmae;';
    const text = formatDiagnostics(
      [diag({ message: "Property 'nmae' does not exist on type 'User'.", line: 2, column: 10 })],
      { program },
    );
    expect(text.split('\n')).toEqual([
      "line 2, col 10: TS2339 Property 'nmae' does not exist on type 'User'.",
      '  2 | return r.nmae;',
      `  hint: ${hintFor({ code: 2339, message: '' })}`,
    ]);
  });

  it('cuts a long program line around the column', () => {
    const program = `${'x'.repeat(500)}.foo;`;
    const text = formatDiagnostics([diag({ line: 1, column: 501 })], { program, hints: false });
    const shown = text.split('\n')[1] ?? '';
    expect(shown.length).toBeLessThan(180);
    expect(shown).toContain('.foo;');
  });

  it('shows the same finding at several places once, with the other lines', () => {
    const text = formatDiagnostics(
      [
        diag({ line: 3 }),
        diag({ line: 3 }), // an exact duplicate
        diag({ line: 7, column: 2 }),
        diag({ line: 9 }),
        diag({ code: 2304, message: "Cannot find name 'y'.", line: 4 }),
      ],
      { hints: false },
    );
    expect(text.split('\n')).toEqual([
      "line 3, col 5: TS2339 Property 'x' does not exist on type 'T'. (also lines 7, 9)",
      "line 4, col 5: TS2304 Cannot find name 'y'.",
    ]);
  });

  it('shows at most `max` diagnostics and says how many were left out', () => {
    const many = Array.from({ length: 5 }, (_, i) => diag({ message: `m${i}`, line: i + 1 }));
    const lines = formatDiagnostics(many, 2).split('\n');
    expect(lines.filter((l) => l.startsWith('line '))).toHaveLength(2);
    expect(lines.at(-1)).toBe('... and 3 more diagnostics not shown');
    expect(formatDiagnostics(many.slice(0, 3), 2).split('\n').at(-1)).toBe(
      '... and 1 more diagnostic not shown',
    );
  });

  it('caps the text to its character budget, counting what was left out', () => {
    const many = Array.from({ length: 200 }, (_, i) =>
      diag({
        code: 2322,
        message: `Type 'A${i}' is not assignable to type 'B'. ${'x'.repeat(80)}`,
        line: i + 1,
      }),
    );
    const text = formatDiagnostics(many, { max: 1000 });
    expect(text.length).toBeLessThanOrEqual(DIAGNOSTICS_BUDGET_CHARS + 60);
    const shown = text.split('\n').filter((l) => l.startsWith('line ')).length;
    expect(shown).toBeGreaterThan(3);
    expect(text.split('\n').at(-1)).toBe(`... and ${200 - shown} more diagnostics not shown`);
    // One huge diagnostic is still shown, cut to the budget.
    const huge = formatDiagnostics([diag({ message: 'y'.repeat(10_000) })], { budgetChars: 500 });
    expect(huge.length).toBeLessThanOrEqual(500);
  });

  it('renders nothing for no diagnostics', () => {
    expect(formatDiagnostics([])).toBe('');
  });
});
