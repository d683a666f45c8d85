/**
 * A small TypeScript tokenizer for syntax highlighting. Not a parser: it splits a program into
 * runs of text with a kind, so that joining the tokens' text gives the source back exactly, for
 * any input (unterminated strings, comments and templates included). No DOM here: it is tested
 * under Node.
 */

/** What a token is, for colouring. */
export type TokenKind =
  | 'keyword'
  | 'literal'
  | 'string'
  | 'number'
  | 'comment'
  | 'regex'
  | 'type'
  | 'function'
  | 'ident'
  | 'punct'
  | 'space';

/** A run of source text and its kind. */
export interface Token {
  kind: TokenKind;
  text: string;
}

const KEYWORDS = new Set(
  (
    'abstract as async await break case catch class const continue debugger declare default delete do ' +
    'else enum export extends finally for from function get if implements import in instanceof interface ' +
    'keyof let new of package private protected public readonly return satisfies set static super switch ' +
    'throw try type typeof var void while with yield'
  ).split(' '),
);
const LITERALS = new Set(['true', 'false', 'null', 'undefined', 'this', 'NaN', 'Infinity']);
const TYPES = new Set([
  'string',
  'number',
  'boolean',
  'unknown',
  'never',
  'any',
  'object',
  'bigint',
  'symbol',
]);
/** After these keywords a `/` starts a regular expression, not a division. */
const REGEX_AFTER_WORD = new Set([
  'return',
  'typeof',
  'case',
  'do',
  'else',
  'in',
  'of',
  'new',
  'delete',
  'void',
  'throw',
  'yield',
  'await',
]);

const isIdStart = (c: string): boolean => /[A-Za-z_$\u00c0-\uffff]/.test(c);
const isIdPart = (c: string): boolean => /[A-Za-z0-9_$\u00c0-\uffff]/.test(c);
const isDigit = (c: string): boolean => c >= '0' && c <= '9';

/** Splits `source` into tokens; `tokens.map(t => t.text).join('') === source` always holds. */
export function tokenize(source: string): Token[] {
  const out: Token[] = [];
  const s = source;
  let i = 0;
  // Open template literals: for each, the brace depth inside its current `${ ... }`.
  const templates: number[] = [];
  let lastSignificant: Token | undefined;

  const push = (kind: TokenKind, text: string): void => {
    if (text === '') return;
    const prev = out[out.length - 1];
    if (prev && prev.kind === kind && (kind === 'space' || kind === 'punct' || kind === 'string'))
      prev.text += text;
    else out.push({ kind, text });
    if (kind !== 'space' && kind !== 'comment') lastSignificant = out[out.length - 1];
  };

  /** Reads template text from `start` (a backtick or a closing `}`; `i` just after it) to a backtick or `${`. */
  const templateText = (start: number): void => {
    while (i < s.length) {
      const c = s[i]!;
      if (c === '\\') i += 2;
      else if (c === '`') {
        i++;
        push('string', s.slice(start, Math.min(i, s.length)));
        return;
      } else if (c === '$' && s[i + 1] === '{') {
        i += 2;
        push('string', s.slice(start, i));
        templates.push(0);
        return;
      } else i++;
    }
    push('string', s.slice(start));
  };

  const regexAllowed = (): boolean => {
    const t = lastSignificant;
    if (!t) return true;
    if (t.kind === 'keyword') return REGEX_AFTER_WORD.has(t.text);
    if (t.kind === 'punct') return !/[)\]}]$/.test(t.text);
    return false;
  };

  while (i < s.length) {
    const c = s[i]!;
    const next = s[i + 1] ?? '';
    const start = i;
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r') {
      while (i < s.length && /[ \t\n\r]/.test(s[i]!)) i++;
      push('space', s.slice(start, i));
    } else if (c === '/' && next === '/') {
      while (i < s.length && s[i] !== '\n') i++;
      push('comment', s.slice(start, i));
    } else if (c === '/' && next === '*') {
      const end = s.indexOf('*/', i + 2);
      i = end < 0 ? s.length : end + 2;
      push('comment', s.slice(start, i));
    } else if (c === '"' || c === "'") {
      i++;
      while (i < s.length && s[i] !== c && s[i] !== '\n') i += s[i] === '\\' ? 2 : 1;
      if (i < s.length && s[i] === c) i++;
      i = Math.min(i, s.length);
      push('string', s.slice(start, i));
    } else if (c === '`') {
      i++;
      templateText(start);
    } else if (c === '}' && templates.length > 0 && templates[templates.length - 1] === 0) {
      templates.pop();
      i++;
      templateText(start);
    } else if (isDigit(c) || (c === '.' && isDigit(next))) {
      i++;
      while (i < s.length && /[0-9A-Za-z_.]/.test(s[i]!)) {
        // an exponent's sign: 1e-3
        if (/[eE]/.test(s[i]!) && /[+-]/.test(s[i + 1] ?? '') && !/^0[xX]/.test(s.slice(start)))
          i++;
        i++;
      }
      push('number', s.slice(start, i));
    } else if (isIdStart(c)) {
      while (i < s.length && isIdPart(s[i]!)) i++;
      const word = s.slice(start, i);
      const prev = lastSignificant;
      const afterDot = prev?.kind === 'punct' && prev.text.endsWith('.');
      let kind: TokenKind = 'ident';
      if (!afterDot && KEYWORDS.has(word)) kind = 'keyword';
      else if (!afterDot && LITERALS.has(word)) kind = 'literal';
      else if (TYPES.has(word) || /^[A-Z]/.test(word)) kind = 'type';
      else if (/^\s*\(/.test(s.slice(i, i + 40))) kind = 'function';
      push(kind, word);
    } else if (c === '/' && regexAllowed()) {
      i++;
      let inClass = false;
      while (i < s.length && s[i] !== '\n') {
        const d = s[i]!;
        if (d === '\\') i += 2;
        else {
          i++;
          if (d === '[') inClass = true;
          else if (d === ']') inClass = false;
          else if (d === '/' && !inClass) break;
        }
      }
      while (i < s.length && /[a-z]/.test(s[i]!)) i++;
      i = Math.min(i, s.length);
      push('regex', s.slice(start, i));
    } else {
      if (templates.length > 0) {
        const top = templates.length - 1;
        if (c === '{') templates[top] = templates[top]! + 1;
        else if (c === '}') templates[top] = templates[top]! - 1;
      }
      i++;
      push('punct', c);
    }
  }
  return out;
}
