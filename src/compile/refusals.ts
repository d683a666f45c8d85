/**
 * Programs isocode refuses before compiling them, with one clear diagnostic each: a program that closes
 * its enclosing function early (found by the transpiler), and a program that names a module or a file
 * (found here by a small lexical scan, so the type-checker never resolves anything a program names).
 */

import { LineMap } from './positions.js';
import type { Diagnostic } from './types.js';

/** The message of the diagnostic for a program that closes its enclosing function early. */
export const ESCAPE_MESSAGE =
  "The program must be the body of one function: a '}' closes the enclosing function early (unbalanced braces).";

/** The message of the diagnostic for a program that imports a module or references a file. */
export const MODULE_MESSAGE =
  'Programs cannot import modules or reference files: `import(...)` (also in types), `import`/`export` declarations, `import x = require(...)`, `declare module "..."` and `/// <reference ...>` are refused. Call tools through the global `tools` object.';

export function escapeDiagnostic(): Diagnostic {
  return syntaxError(ESCAPE_MESSAGE, 1, 1);
}

function syntaxError(message: string, line: number, column: number): Diagnostic {
  return { kind: 'syntax', code: 0, category: 'error', message, line, column };
}

/** Keywords after which a `/` starts a regular expression, not a division. */
const BEFORE_REGEX = new Set([
  'return',
  'typeof',
  'instanceof',
  'in',
  'of',
  'new',
  'delete',
  'void',
  'throw',
  'case',
  'do',
  'else',
  'yield',
  'await',
]);
const TRIPLE_SLASH = /^\/\/\/\s*<\s*(reference|amd-module|amd-dependency)\b/i;
const WORD_CHAR = /[\w$\\\u0080-\uffff]/;
const UNICODE_ESCAPE = /\\u\{([0-9a-fA-F]+)\}|\\u([0-9a-fA-F]{4})/g;

/**
 * The first place where `program` names a module or a file (see {@link MODULE_MESSAGE}), as a diagnostic
 * at that position; `undefined` when there is none. Comments, strings, template texts and regular
 * expressions are skipped; `import`/`export` as a property name (`x.import`, `{ import: 1 }`) are allowed.
 * Identifiers written with Unicode escapes (`\u0069mport`) are decoded first, as the compiler does.
 */
export function moduleReference(program: string): Diagnostic | undefined {
  const offset = findModuleReference(program);
  if (offset === undefined) return undefined;
  const at = new LineMap(program).position(offset);
  return syntaxError(MODULE_MESSAGE, at.line, at.column);
}

function findModuleReference(text: string): number | undefined {
  const n = text.length;
  /** The last significant token: a word, or a punctuation character. */
  let previous = '';
  /** Brace depths at which an enclosing template literal's `${` substitution closes. */
  const templates: number[] = [];
  let depth = 0;
  let i = 0;
  const skipSpaceAndComments = (from: number): number => {
    let j = from;
    while (j < n) {
      const c = text[j] ?? '';
      if (/\s/.test(c)) j++;
      else if (c === '/' && text[j + 1] === '/') j = lineEnd(text, j);
      else if (c === '/' && text[j + 1] === '*') j = blockEnd(text, j);
      else break;
    }
    return j;
  };
  while (i < n) {
    const c = text[i] ?? '';
    if (c === ' ' || c === '\t' || isLineBreak(c) || /\s/.test(c)) {
      i++;
    } else if (c === '/' && text[i + 1] === '/') {
      const end = lineEnd(text, i);
      if (TRIPLE_SLASH.test(text.slice(i, end))) return i;
      i = end;
    } else if (c === '/' && text[i + 1] === '*') {
      i = blockEnd(text, i);
    } else if (c === '"' || c === "'") {
      i = stringEnd(text, i, c);
      previous = '"';
    } else if (c === '`' || (c === '}' && templates.at(-1) === depth)) {
      // A template's text, from its start or from the end of a `${...}` substitution.
      if (c === '}') templates.pop();
      const next = templateText(text, i + 1);
      i = next.end;
      if (next.substitution) {
        templates.push(depth);
        previous = '{';
      } else previous = '"';
    } else if (c === '/') {
      const division =
        /[\w$)\]}"]$/.test(previous) && !BEFORE_REGEX.has(previous) && previous !== '';
      i = division ? i + 1 : regexEnd(text, i);
      previous = division ? '/' : '"';
    } else if (c === '#' || WORD_CHAR.test(c)) {
      const end = wordEnd(text, i);
      const word = decodeEscapes(text.slice(i, end));
      const after = skipSpaceAndComments(end);
      if (refusedWord(word, previous, text, after)) return i;
      previous = word;
      i = end;
    } else {
      if (c === '{') depth++;
      else if (c === '}') depth--;
      previous = c;
      i++;
    }
  }
  return undefined;
}

/** `import`/`export` anywhere but as a property name; `module` before a string (`declare module "x"`). */
function refusedWord(word: string, previous: string, text: string, after: number): boolean {
  const next = text[after] ?? '';
  if (word === 'import' || word === 'export') {
    if (previous === '.') return false;
    const isKey = next === ':' || (next === '?' && text[after + 1] === ':');
    return !isKey;
  }
  return word === 'module' && (next === '"' || next === "'" || next === '`');
}

/** The end of the identifier (or private name) starting at `from`, Unicode escapes included. */
function wordEnd(text: string, from: number): number {
  let i = from + 1;
  if (text[from] === '\\') i = escapeEnd(text, from);
  while (i < text.length && WORD_CHAR.test(text[i] ?? '')) {
    i = text[i] === '\\' ? escapeEnd(text, i) : i + 1;
  }
  return i;
}

/** The end of a `\\uXXXX` or `\\u{...}` escape at `from` (a lone backslash is one character). */
function escapeEnd(text: string, from: number): number {
  if (text[from + 1] === 'u' && text[from + 2] === '{') {
    const close = text.indexOf('}', from + 3);
    return close < 0 ? text.length : close + 1;
  }
  return Math.min(text.length, from + 2);
}

function decodeEscapes(word: string): string {
  if (!word.includes('\\')) return word;
  return word.replace(UNICODE_ESCAPE, (_, braced: string | undefined, four: string | undefined) =>
    String.fromCodePoint(Number.parseInt(braced ?? four ?? '0', 16)),
  );
}

function isLineBreak(c: string | undefined): boolean {
  return c === '\n' || c === '\r' || c === '\u2028' || c === '\u2029';
}

function lineEnd(text: string, from: number): number {
  let i = from;
  while (i < text.length && !isLineBreak(text[i])) i++;
  return i;
}

function blockEnd(text: string, from: number): number {
  const end = text.indexOf('*/', from + 2);
  return end < 0 ? text.length : end + 2;
}

/** The end of a '...' or "..." string starting at `from` (an unterminated one ends at its line's end). */
function stringEnd(text: string, from: number, quote: string): number {
  let i = from + 1;
  while (i < text.length) {
    const c = text[i];
    if (c === '\\') i += 2;
    else if (c === quote) return i + 1;
    else if (isLineBreak(c)) return i;
    else i++;
  }
  return text.length;
}

/** Scans template text from `from` to the closing backtick or to a `${` (then `substitution`). */
function templateText(text: string, from: number): { end: number; substitution: boolean } {
  let i = from;
  while (i < text.length) {
    const c = text[i];
    if (c === '\\') i += 2;
    else if (c === '`') return { end: i + 1, substitution: false };
    else if (c === '$' && text[i + 1] === '{') return { end: i + 2, substitution: true };
    else i++;
  }
  return { end: text.length, substitution: false };
}

/** The end of a regular expression literal starting at `from` (classes may contain `/`). */
function regexEnd(text: string, from: number): number {
  let i = from + 1;
  let inClass = false;
  while (i < text.length) {
    const c = text[i];
    if (c === '\\') i += 2;
    else if (isLineBreak(c)) return i;
    else if (c === '/' && !inClass) return i + 1;
    else {
      if (c === '[') inClass = true;
      else if (c === ']') inClass = false;
      i++;
    }
  }
  return text.length;
}
