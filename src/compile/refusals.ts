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

/** Deepest bracket nesting (`(`, `[`, `{`, `${`) a program may have: the compiler's time grows
 * superlinearly with it (measured: 1,000 nested `[` take 1.5 s to check, 2,000 take 5.8 s, 4,000 > 20 s). */
const MAX_NESTING = 128;

const NESTING_MESSAGE = `The program nests brackets more than ${MAX_NESTING} deep; flatten it (use variables or functions).`;

/**
 * A `/` right after the word `of` is a regular expression (`for (x of /re/g…)`) or a division (a
 * variable named `of`) depending on grammar this scan does not know: refused rather than guessed, so
 * the scan cannot read code the checker sees (docs/decisions/029-host-work.md).
 */
const AMBIGUOUS_SLASH_MESSAGE =
  "A '/' right after `of` is ambiguous here (regular expression or division): wrap the expression in parentheses, e.g. `of (/re/)` or `(of) / 2`.";

/** What a program can use instead of modules: the tail of every module refusal. */
const AVAILABLE =
  'Call tools through the global `tools` object (typed in the SDK); `console`, `URL`, `URLSearchParams`, `TextEncoder`, `TextDecoder`, `atob`, `btoa`, `structuredClone` and the standard JavaScript built-ins are globals. Nothing else can be loaded.';

/** The messages of the module refusals, by what the program wrote. */
export const MODULE_MESSAGES = {
  import: `Modules are not available: a run_code program cannot \`import\` anything (no imports, no \`import()\`). ${AVAILABLE}`,
  export: `A run_code program cannot \`export\`: it is the body of an async function. \`return\` the value instead (it comes back as JSON). ${AVAILABLE}`,
  require: `\`require\` is not available: a run_code program has no modules and no Node.js APIs. ${AVAILABLE}`,
  file: `A run_code program cannot reference files or declare modules (\`/// <reference ...>\`, \`declare module "..."\`). ${AVAILABLE}`,
} as const;

/** Deepest syntax tree a program may have (decided from a real parse: `ast-refusals.ts`), in nodes
 * from the wrapper down. Ordinary programs stay under ~60 (a 20-level JSON literal is ~45); 128
 * nested brackets (the lexical scan's limit) are 130–260 nodes, 250 nested arrays about 256. */
export const MAX_AST_DEPTH = 256;

/** The message of the refusal of a syntax tree deeper than {@link MAX_AST_DEPTH}. */
export const DEPTH_MESSAGE = `The program's syntax nests more than ${MAX_AST_DEPTH} levels deep (brackets, calls, blocks or type arguments); flatten it (use variables, functions or type aliases).`;

const REFUSALS: ReadonlySet<string> = new Set([
  ...Object.values(MODULE_MESSAGES),
  NESTING_MESSAGE,
  AMBIGUOUS_SLASH_MESSAGE,
  DEPTH_MESSAGE,
]);

/** True for a refusal's diagnostic: the program must never reach the checker. */
export function isRefusal(d: Diagnostic): boolean {
  return REFUSALS.has(d.message);
}

export function escapeDiagnostic(): Diagnostic {
  return syntaxError(ESCAPE_MESSAGE, 1, 1);
}

/** Prefix of the diagnostic for a program V8 rejects as a function body for another reason. */
const BODY_PREFIX = 'The program is not a valid body of an async function: ';

/**
 * The diagnostic for a program that oxc accepted but V8 rejects as the body of an async function:
 * {@link ESCAPE_MESSAGE} when V8 trips over a `}` (the program closes its wrapper early), otherwise
 * V8's own message (for example a construct oxc allows in a script and V8 not in a function).
 */
export function bodyDiagnostic(v8Message: string): Diagnostic {
  if (/'\}'/.test(v8Message)) return escapeDiagnostic();
  return syntaxError(BODY_PREFIX + v8Message.slice(0, 300), 1, 1);
}

/** True for the diagnostics of {@link bodyDiagnostic}: the program must not be type-checked either. */
export function isBodyRejection(d: Diagnostic): boolean {
  return d.message === ESCAPE_MESSAGE || d.message.startsWith(BODY_PREFIX);
}

/** A syntax diagnostic of isocode's own (no TypeScript code). */
function syntaxError(message: string, line: number, column: number): Diagnostic {
  return { kind: 'syntax', category: 'error', message, line, column };
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
const UNICODE_ESCAPE = /\\u\{([0-9a-fA-F]+)\}|\\u([0-9a-fA-F]{4})/g;

/**
 * Why `program` is refused before compiling, as ONE diagnostic at the first offending place: it
 * imports, exports, requires a module or names a file (see {@link MODULE_MESSAGES}: each says what is
 * available instead), or it nests brackets deeper than {@link MAX_NESTING};
 * `undefined` when it is not refused. Comments, strings, template texts and regular
 * expressions are skipped; `import`/`export` as a property name (`x.import`, `{ import: 1 }`) are allowed.
 * Identifiers written with Unicode escapes (`\u0069mport`) are decoded first, as the compiler does.
 */
export function programRefusal(program: string): Diagnostic | undefined {
  const found = findRefusal(program);
  if (found === undefined) return undefined;
  const at = new LineMap(program).position(found.offset);
  return syntaxError(found.message, at.line, at.column);
}

function findRefusal(text: string): { offset: number; message: string } | undefined {
  const refused = (offset: number, message: string): { offset: number; message: string } => ({
    offset,
    message,
  });
  const n = text.length;
  /** The last significant token: `WORD` (at `wordStart..wordEnd`), `VALUE` (string, regex) or a char code. */
  let previous = 0;
  let previousAt = -1;
  let wordStart = 0;
  let wordEnd = 0;
  /** Brace depths at which an enclosing template literal's `${` substitution closes. */
  const templates: number[] = [];
  let depth = 0;
  /** Open `(`, `[`, `{` and `${`. */
  let nesting = 0;
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    const next = text.charCodeAt(i + 1);
    if (isSpace(c)) {
      i++;
    } else if (c === SLASH && next === SLASH) {
      const end = lineEnd(text, i);
      if (text.charCodeAt(i + 2) === SLASH && TRIPLE_SLASH.test(text.slice(i, end)))
        return refused(i, MODULE_MESSAGES.file);
      i = end;
    } else if (c === SLASH && next === STAR) {
      i = blockEnd(text, i);
    } else if (c === DQUOTE || c === SQUOTE) {
      i = stringEnd(text, i, c);
      previous = VALUE;
    } else if (c === BACKTICK || (c === RBRACE && templates.at(-1) === depth)) {
      // A template's text, from its start or from the end of a `${...}` substitution.
      if (c === RBRACE) templates.pop();
      const rest = templateText(text, i + 1);
      i = rest.end;
      if (c === RBRACE) nesting--;
      if (rest.substitution) {
        templates.push(depth);
        if (++nesting > MAX_NESTING) return refused(i, NESTING_MESSAGE);
      }
      previous = rest.substitution ? LBRACE : VALUE;
    } else if (c === SLASH) {
      if (previous === WORD && wordEnd - wordStart === 2 && text.startsWith('of', wordStart))
        return refused(i, AMBIGUOUS_SLASH_MESSAGE);
      const division =
        previous === VALUE ||
        previous === RPAREN ||
        previous === RBRACKET ||
        previous === RBRACE ||
        // After a postfix `++`/`--` a `/` divides (a prefix one before a regex is a syntax error).
        ((previous === PLUS || previous === MINUS) &&
          text.charCodeAt(previousAt - 1) === previous) ||
        (previous === WORD && !BEFORE_REGEX.has(text.slice(wordStart, wordEnd)));
      i = division ? i + 1 : regexEnd(text, i);
      previous = division ? SLASH : VALUE;
    } else if (c === HASH || isWordCode(c)) {
      const { end, escaped } = scanWord(text, i);
      // Only `import`, `export`, `module`, `require` (or a word with escapes) can be refused: skip
      // the rest cheaply.
      const candidate =
        escaped || (end - i === 6 && CANDIDATE_START.has(c)) || (end - i === 7 && c === LOWER_R);
      const message = candidate
        ? refusedWord(text, i, end, previous === DOT && previousAt)
        : undefined;
      if (message !== undefined) return refused(i, message);
      previous = WORD;
      wordStart = i;
      wordEnd = end;
      i = end;
    } else {
      if (c === LBRACE) depth++;
      else if (c === RBRACE) depth--;
      if (c === LBRACE || c === LPAREN || c === LBRACKET) {
        if (++nesting > MAX_NESTING) return refused(i, NESTING_MESSAGE);
      } else if (c === RBRACE || c === RPAREN || c === RBRACKET) nesting--;
      previous = c;
      previousAt = i;
      i++;
    }
  }
  return undefined;
}

/** First letters of the refused words (`import`, `export`, `module`). */
const CANDIDATE_START = new Set([105, 101, 109]);
const LOWER_R = 114;
const WORD = -1;
const VALUE = -2;
const SLASH = 47;
const STAR = 42;
const DQUOTE = 34;
const SQUOTE = 39;
const BACKTICK = 96;
const LBRACE = 123;
const RBRACE = 125;
const RPAREN = 41;
const LPAREN = 40;
const LBRACKET = 91;
const RBRACKET = 93;
const HASH = 35;
const DOT = 46;
const PLUS = 43;
const MINUS = 45;
const BACKSLASH = 92;

function isSpace(c: number): boolean {
  return c === 32 || (c >= 9 && c <= 13) || (c > 127 && /\s/.test(String.fromCharCode(c)));
}

function isWordCode(c: number): boolean {
  return (
    (c >= 97 && c <= 122) ||
    (c >= 65 && c <= 90) ||
    (c >= 48 && c <= 57) ||
    c === 95 ||
    c === 36 ||
    c === BACKSLASH ||
    (c > 127 && !isSpace(c))
  );
}

/**
 * Why the word at `start..end` is refused (a message of {@link MODULE_MESSAGES}), or `undefined`:
 * `import`/`export` anywhere but as a property name (`x.import`, `x?.import`, `{ import: 1 }`; a
 * spread `...import(...)` is refused), `require` called with a literal (`require('fs')`, not as a
 * property), `module` before a string (`declare module "x"`). `dotAt`: where the `.` before the word
 * is, or `false`.
 */
function refusedWord(
  text: string,
  start: number,
  end: number,
  dotAt: number | false,
): string | undefined {
  const word = decodeEscapes(text.slice(start, end));
  const after = skipSpaceAndComments(text, end);
  const next = text.charCodeAt(after);
  const isProperty = dotAt !== false && text.charCodeAt(dotAt - 1) !== DOT;
  if (word === 'import' || word === 'export') {
    if (isProperty) return undefined;
    const isKey = next === 58 || (next === 63 && text.charCodeAt(after + 1) === 58); // ':' or '?:'
    return isKey ? undefined : MODULE_MESSAGES[word];
  }
  if (word === 'require') {
    if (isProperty || next !== LPAREN) return undefined;
    const quote = text.charCodeAt(skipSpaceAndComments(text, after + 1));
    return quote === DQUOTE || quote === SQUOTE || quote === BACKTICK
      ? MODULE_MESSAGES.require
      : undefined;
  }
  return word === 'module' && (next === DQUOTE || next === SQUOTE || next === BACKTICK)
    ? MODULE_MESSAGES.file
    : undefined;
}

function skipSpaceAndComments(text: string, from: number): number {
  let j = from;
  while (j < text.length) {
    const c = text.charCodeAt(j);
    if (isSpace(c)) j++;
    else if (c === SLASH && text.charCodeAt(j + 1) === SLASH) j = lineEnd(text, j);
    else if (c === SLASH && text.charCodeAt(j + 1) === STAR) j = blockEnd(text, j);
    else break;
  }
  return j;
}

/** The end of the identifier (or private name) starting at `from`, and whether it has Unicode escapes. */
function scanWord(text: string, from: number): { end: number; escaped: boolean } {
  let escaped = text.charCodeAt(from) === BACKSLASH;
  let i = escaped ? escapeEnd(text, from) : from + 1;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c === BACKSLASH) {
      escaped = true;
      i = escapeEnd(text, i);
    } else if (isWordCode(c)) i++;
    else break;
  }
  return { end: i, escaped };
}

/** The end of a `\uXXXX` or `\u{...}` escape at `from` (a lone backslash is one character). */
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

function isLineBreak(c: number): boolean {
  return c === 10 || c === 13 || c === 0x2028 || c === 0x2029;
}

function lineEnd(text: string, from: number): number {
  let i = from;
  while (i < text.length && !isLineBreak(text.charCodeAt(i))) i++;
  return i;
}

function blockEnd(text: string, from: number): number {
  const end = text.indexOf('*/', from + 2);
  return end < 0 ? text.length : end + 2;
}

/** The end of a '...' or "..." string starting at `from` (an unterminated one ends at its line's end). */
function stringEnd(text: string, from: number, quote: number): number {
  let i = from + 1;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c === BACKSLASH) i += 2;
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
    const c = text.charCodeAt(i);
    if (c === BACKSLASH) i += 2;
    else if (c === BACKTICK) return { end: i + 1, substitution: false };
    else if (c === 36 && text.charCodeAt(i + 1) === LBRACE)
      return { end: i + 2, substitution: true };
    else i++;
  }
  return { end: text.length, substitution: false };
}

/** The end of a regular expression literal starting at `from` (classes may contain `/`). */
function regexEnd(text: string, from: number): number {
  let i = from + 1;
  let inClass = false;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c === BACKSLASH) i += 2;
    else if (isLineBreak(c)) return i;
    else if (c === SLASH && !inClass) return i + 1;
    else {
      if (c === LBRACKET) inClass = true;
      else if (c === RBRACKET) inClass = false;
      i++;
    }
  }
  return text.length;
}
