/**
 * The one rule for text a human reads (decision record 028). Whatever a program, a tool, a model
 * or a request wrote is shown, never interpreted: a code point that a terminal or a browser would
 * act on (ESC and the other controls), that reorders text (bidi controls) or that is invisible
 * (zero-width, tags, fillers, noncharacters, lone surrogates) is written as an escape such as
 * `\u202E`, `\u001B` or `\u{E0041}`. Letters of every script, digits, punctuation, symbols,
 * emoji (with their joiners and variation selectors), combining marks and spaces are kept.
 *
 * No Node and no DOM here: the CLI, the MCP face, the audit sink and the web console (bundled from
 * this file by tsup) all use this module.
 */

/** How a text is shown. */
export type VisibleMode =
  /** Multi-line human text: line feeds and tabs kept; a backslash that could start an escape is doubled. */
  | 'text'
  /** One line: like `text`, but line feeds and tabs are escaped too. */
  | 'line'
  /**
   * Source code (a program, generated declarations, JSON): line feeds and tabs kept, backslashes
   * left alone (in a string literal `\u202E` means the character itself, so the escape keeps the
   * program's meaning). Not reversible: a viewer that needs to tell them apart marks the escapes.
   */
  | 'code';

/** A piece of shown text: `escaped` pieces are escapes this module wrote (a viewer may mark them). */
export interface VisiblePart {
  text: string;
  escaped: boolean;
}

/**
 * Code points never shown as themselves: controls (Cc), format characters (Cf: bidi controls,
 * zero-width characters, the BOM, soft hyphen, tag characters...), line and paragraph separators,
 * default-ignorable code points (Hangul fillers, variation selectors, CGJ...), lone surrogates and
 * noncharacters (U+FFFE, U+FFFF, U+FDD0–U+FDEF...). Some of these are kept in context (below).
 */
const HIDDEN =
  /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Default_Ignorable_Code_Point}\p{Cs}\p{Noncharacter_Code_Point}]/u;
/** Anything {@link visible} may change (the fast path's test): a hidden code point or a backslash. */
const MAY_CHANGE =
  /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Default_Ignorable_Code_Point}\p{Cs}\p{Noncharacter_Code_Point}\\]/u;
const PICTOGRAPHIC = /^[\p{Extended_Pictographic}\p{Emoji_Modifier}]$/u;
const EMOJI = /^\p{Emoji}$/u;
const IDEOGRAPH = /^\p{Ideographic}$/u;
const MONGOLIAN = /^\p{Script=Mongolian}$/u;
/**
 * Scripts whose shaping ZWJ and ZWNJ visibly change (cursive joining, conjuncts): between two
 * letters or marks of these, a joiner is part of the word (Persian `می‌خواهم`), not a hidden mark.
 */
const JOINING_SCRIPT =
  /^[\p{Script=Arabic}\p{Script=Syriac}\p{Script=Nko}\p{Script=Mongolian}\p{Script=Devanagari}\p{Script=Bengali}\p{Script=Gurmukhi}\p{Script=Gujarati}\p{Script=Oriya}\p{Script=Tamil}\p{Script=Telugu}\p{Script=Kannada}\p{Script=Malayalam}\p{Script=Sinhala}]$/u;
const LETTER_OR_MARK = /^[\p{L}\p{M}]$/u;

const ZWNJ = 0x200c;
const ZWJ = 0x200d;
const VS15 = 0xfe0e;
const VS16 = 0xfe0f;
const LF = 0x0a;
const CR = 0x0d;
const TAB = 0x09;
const BACKSLASH = 0x5c;

const isVariationSelector = (cp: number): boolean =>
  (cp >= 0xfe00 && cp <= 0xfe0f) ||
  (cp >= 0xe0100 && cp <= 0xe01ef) ||
  (cp >= 0x180b && cp <= 0x180d) ||
  cp === 0x180f;

const test = (re: RegExp, cp: number | undefined): boolean =>
  cp !== undefined && re.test(String.fromCodePoint(cp));

/** True for a code point of the hidden classes, regardless of context. */
export function isHiddenCodePoint(cp: number): boolean {
  return HIDDEN.test(String.fromCodePoint(cp));
}

/**
 * True when a variation selector belongs to the character before it: VS15/VS16 after an emoji
 * (text or emoji presentation), the ideographic selectors after a CJK ideograph, the Mongolian
 * free variation selectors after a Mongolian letter. One selector per base; a run of them (the
 * "emoji smuggling" of hidden bytes) shows every one after the first.
 */
function variationBelongs(cp: number, prev: number | undefined): boolean {
  if (prev === undefined || isVariationSelector(prev)) return false;
  if (cp === VS15 || cp === VS16) return test(EMOJI, prev);
  if (cp >= 0x180b && cp <= 0x180f) return test(MONGOLIAN, prev);
  return test(IDEOGRAPH, prev);
}

/** True when a ZWJ/ZWNJ joins what it sits between: an emoji sequence, or a word of a joining script. */
function joinerBelongs(cp: number, prev: number | undefined, next: number | undefined): boolean {
  if (prev === undefined || next === undefined) return false;
  if (cp === ZWJ && test(PICTOGRAPHIC, next) && (test(PICTOGRAPHIC, prev) || prev === VS16))
    return true;
  return (
    test(LETTER_OR_MARK, prev) &&
    test(LETTER_OR_MARK, next) &&
    test(JOINING_SCRIPT, prev) &&
    test(JOINING_SCRIPT, next)
  );
}

/**
 * True when code point `cp` (after `prev`, which was kept as itself, or `undefined` at the start or
 * after an escape; before `next`) is written as an escape in `mode`.
 */
function escapes(
  cp: number,
  prev: number | undefined,
  next: number | undefined,
  mode: VisibleMode,
): boolean {
  if (cp < 0x80) {
    if (cp === LF || cp === TAB) return mode === 'line';
    // CR LF is a line end (nothing is overwritten); a lone CR would let text overwrite the line.
    if (cp === CR) return mode === 'line' || next !== LF;
    return cp < 0x20 || cp === 0x7f;
  }
  if (!HIDDEN.test(String.fromCodePoint(cp))) return false;
  if (isVariationSelector(cp)) return !variationBelongs(cp, prev);
  if (cp === ZWJ || cp === ZWNJ) return !joinerBelongs(cp, prev, next);
  return true;
}

const hex = (n: number, width: number): string => n.toString(16).toUpperCase().padStart(width, '0');

/** `\u202E`, `\u001B`, `\u{E0041}` (astral code points in braces; a lone surrogate as itself). */
export function escapeCodePoint(cp: number): string {
  return cp > 0xffff ? `\\u{${hex(cp, 5)}}` : `\\u${hex(cp, 4)}`;
}

/** The JSON spelling: astral code points as their surrogate pair (`\uDB40\uDC41`). */
function jsonEscape(cp: number): string {
  if (cp <= 0xffff) return `\\u${hex(cp, 4)}`;
  const v = cp - 0x10000;
  return `\\u${hex(0xd800 + (v >> 10), 4)}\\u${hex(0xdc00 + (v & 0x3ff), 4)}`;
}

/** The code point that ends just before index `i` of `text`. */
function codePointBefore(text: string, i: number): number | undefined {
  if (i <= 0) return undefined;
  const low = text.charCodeAt(i - 1);
  if (low >= 0xdc00 && low <= 0xdfff && i >= 2) {
    const high = text.charCodeAt(i - 2);
    if (high >= 0xd800 && high <= 0xdbff) return text.codePointAt(i - 2);
  }
  return low;
}

function partsOf(text: string, mode: VisibleMode, spell: (cp: number) => string): VisiblePart[] {
  const parts: VisiblePart[] = [];
  let plain = '';
  const push = (escape: string): void => {
    if (plain !== '') parts.push({ text: plain, escaped: false });
    plain = '';
    parts.push({ text: escape, escaped: true });
  };
  let last = 0;
  /** Where the last escape ended: the code point before it was not kept as itself. */
  let escapedUpTo = -1;
  for (const match of text.matchAll(new RegExp(MAY_CHANGE.source, 'gu'))) {
    const i = match.index;
    const size = match[0].length;
    const cp = match[0].codePointAt(0)!;
    plain += text.slice(last, i);
    last = i + size;
    const prev = escapedUpTo === i ? undefined : codePointBefore(text, i);
    const next = text.codePointAt(i + size);
    if (escapes(cp, prev, next, mode)) {
      push(spell(cp));
      escapedUpTo = i + size;
    } else if (cp === BACKSLASH && mode !== 'code') {
      // Doubled when what follows would read as (the start of) an escape. The look-ahead passes no
      // code point after `next`, which can only make it double a backslash it need not (still exact).
      const quoted =
        next !== undefined &&
        (next === BACKSLASH || next === 0x75 /* u */ || escapes(next, cp, undefined, mode));
      if (quoted) push('\\\\');
      else plain += '\\';
    } else plain += match[0];
  }
  plain += text.slice(last);
  if (plain !== '') parts.push({ text: plain, escaped: false });
  return parts;
}

/**
 * `text` as pieces, the escapes marked (the console draws them in a box).
 * @param mode @default 'text'
 */
export function visibleParts(text: string, mode: VisibleMode = 'text'): VisiblePart[] {
  if (!MAY_CHANGE.test(text)) return text === '' ? [] : [{ text, escaped: false }];
  return partsOf(text, mode, escapeCodePoint);
}

/**
 * `text` as a human may safely read it: every hidden code point written as an escape.
 * In `text` and `line` modes the result is unambiguous ({@link fromVisible} gives `text` back):
 * a program that logs the six characters `\u202E` is shown `\\u202E`, the character U+202E `\u202E`.
 * @param mode @default 'text'
 */
export function visible(text: string, mode: VisibleMode = 'text'): string {
  if (!MAY_CHANGE.test(text)) return text;
  return partsOf(text, mode, escapeCodePoint)
    .map((p) => p.text)
    .join('');
}

/** The inverse of {@link visible} in `text` and `line` modes. */
export function fromVisible(shown: string): string {
  return shown.replace(
    /\\(?:\\|u\{([0-9A-F]{1,6})\}|u([0-9A-F]{4}))/g,
    (whole, astral?: string, bmp?: string) => {
      if (astral !== undefined) return String.fromCodePoint(parseInt(astral, 16));
      if (bmp !== undefined) return String.fromCharCode(parseInt(bmp, 16));
      return '\\';
    },
  );
}

/**
 * JSON a human may read (and a program may parse): `JSON.stringify(value, null, space)` with every
 * hidden code point inside a string written as a JSON escape. It parses to the same value.
 * `undefined` where `JSON.stringify` gives `undefined`; throws where it throws (cycles, BigInt).
 */
export function visibleJson(value: unknown, space?: number): string | undefined {
  const json = JSON.stringify(value, null, space);
  return json === undefined ? undefined : visibleJsonText(json);
}

/** {@link visibleJson}'s escaping applied to JSON text already serialized. */
export function visibleJsonText(json: string): string {
  if (!HIDDEN.test(json)) return json;
  return partsOf(json, 'code', jsonEscape)
    .map((p) => p.text)
    .join('');
}

/** {@link visibleJsonText} as pieces, the escapes it wrote marked. */
export function visibleJsonTextParts(json: string): VisiblePart[] {
  return HIDDEN.test(json) ? partsOf(json, 'code', jsonEscape) : [{ text: json, escaped: false }];
}

/** {@link visibleJson} as pieces, the escapes it wrote marked. */
export function visibleJsonParts(value: unknown, space?: number): VisiblePart[] | undefined {
  const json = JSON.stringify(value, null, space);
  if (json === undefined) return undefined;
  return HIDDEN.test(json) ? partsOf(json, 'code', jsonEscape) : [{ text: json, escaped: false }];
}

/**
 * `shown` (text already made visible) cut to at most `max` code units with an ellipsis: never
 * inside an escape this module wrote, never between the halves of a surrogate pair, never between
 * the CR and LF of a line break (a CR kept as itself only before its LF) nor after a joiner (kept
 * only between the characters it joins).
 */
export function clipVisible(shown: string, max: number): string {
  if (shown.length <= max) return shown;
  let cut = shown.slice(0, Math.max(0, max - 1));
  cut = cut
    .replace(/\\u(?:\{[0-9A-F]{0,6}|[0-9A-F]{0,3})$/, '')
    .replace(/[\ud800-\udbff]$/, '')
    .replace(/[\r\u200c\u200d]+$/, '');
  return `${cut}…`;
}
