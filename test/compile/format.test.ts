import { describe, expect, it } from 'vitest';
import { formatDiagnostics } from '../../src/compile/index.js';
import type { Diagnostic } from '../../src/compile/index.js';

const diag = (over: Partial<Diagnostic>): Diagnostic => ({
  kind: 'typecheck',
  code: 2339,
  category: 'error',
  message: "Property 'x' does not exist on type 'T'.",
  line: 3,
  column: 5,
  ...over,
});

describe('formatDiagnostics', () => {
  it('renders one line per diagnostic with the TS code', () => {
    expect(formatDiagnostics([diag({})])).toBe(
      "line 3, col 5: TS2339 Property 'x' does not exist on type 'T'.",
    );
  });

  it('indents the detail lines of a message chain', () => {
    const text = formatDiagnostics([
      diag({ code: 2322, message: "Type 'A' is not assignable to type 'B'.\n  Types differ." }),
    ]);
    expect(text).toBe(
      "line 3, col 5: TS2322 Type 'A' is not assignable to type 'B'.\n    Types differ.",
    );
  });

  it('labels syntax errors without a TS code, internal problems, and non-error categories', () => {
    const text = formatDiagnostics([
      diag({ kind: 'syntax', code: 0, message: 'Unexpected token', line: 1, column: 9 }),
      diag({ line: 0, column: 0, code: 2304, message: 'Internal error in the tool SDK' }),
      diag({ category: 'warning', code: 6385, message: 'deprecated' }),
    ]);
    expect(text.split('\n')).toEqual([
      'line 1, col 9: syntax error: Unexpected token',
      'internal: TS2304 Internal error in the tool SDK',
      'line 3, col 5: warning TS6385 deprecated',
    ]);
  });

  it('shows at most `max` diagnostics and says how many were left out', () => {
    const many = Array.from({ length: 5 }, (_, i) => diag({ line: i + 1 }));
    const lines = formatDiagnostics(many, 2).split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[2]).toBe('... and 3 more diagnostics not shown');
    expect(formatDiagnostics(many.slice(0, 3), 2).split('\n')[2]).toBe(
      '... and 1 more diagnostic not shown',
    );
  });

  it('renders nothing for no diagnostics', () => {
    expect(formatDiagnostics([])).toBe('');
  });
});
