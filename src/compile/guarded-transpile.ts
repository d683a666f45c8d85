/**
 * The transpiler behind a nesting guard. oxc parses recursively on the native stack: tens of
 * thousands of nested brackets overflow it and end the process (SIGSEGV), which no exception
 * handler can catch. Programs are transpiled only in sandbox worker processes, so such a crash costs
 * a worker, not the host; this guard turns the common case into a diagnostic before oxc sees it.
 */
import { transpileProgram } from './transpile.js';
import type { Diagnostic, TranspileResult } from './types.js';

/** The deepest bracket nesting (`(`, `[`, `{`, `${`) a program may have. Real programs stay under 30. */
export const MAX_NESTING = 256;

/**
 * Where a program first nests brackets deeper than `max` (outside strings and comments), or
 * undefined. Linear in the program's length; regular expressions are read as code, which can only
 * overcount.
 */
export function excessiveNesting(
  code: string,
  max: number = MAX_NESTING,
): { line: number; column: number } | undefined {
  let depth = 0;
  let line = 1;
  let lineStart = 0;
  /** Depths at which an open template literal's `${` began. */
  const templates: number[] = [];
  let i = 0;
  const n = code.length;
  const skipString = (quote: string): void => {
    for (i++; i < n; i++) {
      const c = code[i];
      if (c === '\\') i++;
      else if (c === quote || c === '\n') return;
    }
  };
  /** Skips template text up to its end (returns false) or a `${` (returns true). */
  const skipTemplate = (): boolean => {
    for (i++; i < n; i++) {
      const c = code[i];
      if (c === '\\') i++;
      else if (c === '`') return false;
      else if (c === '$' && code[i + 1] === '{') {
        i++;
        return true;
      } else if (c === '\n') {
        line++;
        lineStart = i + 1;
      }
    }
    return false;
  };
  const open = (): boolean => {
    depth++;
    return depth > max;
  };
  for (; i < n; i++) {
    const c = code[i];
    if (c === '\n') {
      line++;
      lineStart = i + 1;
    } else if (c === '/' && code[i + 1] === '/') {
      while (i < n && code[i] !== '\n') i++;
      i--;
    } else if (c === '/' && code[i + 1] === '*') {
      const end = code.indexOf('*/', i + 2);
      const stop = end < 0 ? n : end + 2;
      for (let j = i; j < stop; j++) {
        if (code[j] === '\n') {
          line++;
          lineStart = j + 1;
        }
      }
      i = stop - 1;
    } else if (c === '"' || c === "'") skipString(c);
    else if (c === '`') {
      if (skipTemplate()) {
        templates.push(depth);
        if (open()) return { line, column: i - lineStart + 1 };
      }
    } else if (c === '(' || c === '[' || c === '{') {
      if (open()) return { line, column: i - lineStart + 1 };
    } else if (c === ')' || c === ']' || c === '}') {
      depth = Math.max(0, depth - 1);
      if (c === '}' && templates.length > 0 && templates[templates.length - 1] === depth) {
        templates.pop();
        if (skipTemplate()) {
          templates.push(depth);
          if (open()) return { line, column: i - lineStart + 1 };
        }
      }
    }
  }
  return undefined;
}

/** {@link transpileProgram}, after refusing programs nested deeper than {@link MAX_NESTING}. */
export function transpileGuarded(code: string): TranspileResult {
  const deep = excessiveNesting(code);
  if (deep === undefined) return transpileProgram(code);
  const diagnostic: Diagnostic = {
    kind: 'syntax',
    code: 0,
    category: 'error',
    message: `brackets are nested more than ${MAX_NESTING} levels deep; flatten the program (build deep values with a loop)`,
    line: deep.line,
    column: deep.column,
  };
  return { ok: false, diagnostics: [diagnostic] };
}
