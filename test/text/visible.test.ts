/**
 * The rule for text a human reads (src/text/visible.ts, decision 028), over every class of code
 * point: nothing of the dangerous classes survives, `text`/`line` output gives the input back
 * exactly, and plain text of any script (emoji, CJK, combining marks, joiners in words) is unchanged.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  clipVisible,
  fromVisible,
  visible,
  visibleJson,
  visibleParts,
  type VisibleMode,
} from '../../src/text/visible.js';

/**
 * The classes the rule promises never to emit as themselves, written out independently of the
 * module (which uses Unicode properties): C0 but LF/TAB, DEL, C1, bidi controls, zero-width and
 * invisible characters, tags, line/paragraph separators, lone surrogates, noncharacters.
 */
function alwaysDangerous(cp: number, mode: VisibleMode): boolean {
  if (cp === 0x0a || cp === 0x09) return mode === 'line';
  if (cp === 0x0d) return false; // checked by context below (CR LF is a line end)
  return (
    cp < 0x20 ||
    (cp >= 0x7f && cp <= 0x9f) ||
    (cp >= 0x202a && cp <= 0x202e) ||
    (cp >= 0x2066 && cp <= 0x2069) ||
    cp === 0x200e ||
    cp === 0x200f ||
    cp === 0x061c ||
    cp === 0x200b ||
    (cp >= 0x2060 && cp <= 0x2064) ||
    cp === 0xfeff ||
    (cp >= 0xfff9 && cp <= 0xfffb) ||
    cp === 0x00ad ||
    cp === 0x180e ||
    cp === 0x2028 ||
    cp === 0x2029 ||
    (cp >= 0xe0000 && cp <= 0xe007f) ||
    (cp >= 0xd800 && cp <= 0xdfff) ||
    cp === 0xfffe ||
    cp === 0xffff ||
    (cp >= 0xfdd0 && cp <= 0xfdef) ||
    cp === 0x3164 ||
    cp === 0x115f ||
    cp === 0x1160 ||
    cp === 0xffa0
  );
}

/** Every code point of `s` (a lone surrogate as itself). */
const codePoints = (s: string): number[] => Array.from(s, (c) => c.codePointAt(0)!);

/** Asserts that `shown` holds nothing dangerous; joiners and selectors only where they belong. */
function assertSafe(shown: string, mode: VisibleMode): void {
  const cps = codePoints(shown);
  cps.forEach((cp, i) => {
    if (alwaysDangerous(cp, mode))
      throw new Error(`U+${cp.toString(16)} at ${i} in ${JSON.stringify(shown)}`);
    if (cp === 0x0d && (mode === 'line' || cps[i + 1] !== 0x0a))
      throw new Error(`a lone CR in ${JSON.stringify(shown)}`);
    const prev = cps[i - 1];
    if (cp === 0x200d || cp === 0x200c) {
      expect(prev, 'a joiner has something before it').toBeDefined();
      expect(cps[i + 1], 'a joiner has something after it').toBeDefined();
      expect(
        /[\p{L}\p{M}\p{Extended_Pictographic}\p{Emoji_Modifier}\uFE0F]/u.test(
          String.fromCodePoint(prev!),
        ),
      ).toBe(true);
    }
    if ((cp >= 0xfe00 && cp <= 0xfe0f) || (cp >= 0xe0100 && cp <= 0xe01ef)) {
      expect(prev, 'a selector follows a base').toBeDefined();
      const p = prev!;
      expect((p >= 0xfe00 && p <= 0xfe0f) || (p >= 0xe0100 && p <= 0xe01ef)).toBe(false);
      const base = String.fromCodePoint(p);
      if (cp === 0xfe0e || cp === 0xfe0f) expect(/\p{Emoji}/u.test(base)).toBe(true);
      else expect(/\p{Ideographic}/u.test(base)).toBe(true);
    }
  });
}

/** Any code point at all, lone surrogates included, weighted towards the dangerous ranges. */
const anyCodePoint = fc.oneof(
  fc.integer({ min: 0, max: 0x10ffff }),
  fc.integer({ min: 0, max: 0xff }),
  fc.integer({ min: 0x2000, max: 0x206f }),
  fc.integer({ min: 0xd800, max: 0xdfff }),
  fc.integer({ min: 0xfdd0, max: 0xffff }),
  fc.integer({ min: 0xe0000, max: 0xe01ef }),
  fc.constantFrom(0x5c, 0x75, 0x7b, 0x0a, 0x0d, 0x09, 0x200d, 0x200c, 0xfe0f, 0x1f468, 0x0627),
);
const anyText = fc
  .array(anyCodePoint, { maxLength: 40 })
  .map((cps) => String.fromCodePoint(...cps));

/** Plain text: letters of any script, marks, digits, punctuation, symbols, spaces; no backslash. */
const plainCodePoint = fc
  .integer({ min: 0x20, max: 0x3ffff })
  .filter(
    (cp) =>
      cp !== 0x5c &&
      /^[\p{L}\p{M}\p{N}\p{P}\p{S}\p{Zs}]$/u.test(String.fromCodePoint(cp)) &&
      !/^\p{Default_Ignorable_Code_Point}$/u.test(String.fromCodePoint(cp)),
  );
const WORDS = [
  '👨‍👩‍👧‍👦',
  '❤️',
  '👍🏽',
  '🏳️‍🌈',
  '🧑🏾‍💻',
  '1️⃣',
  '🇫🇷',
  '☺︎',
  'می‌خواهم',
  'क्‍ष',
  '葛󠄀城',
  'Ελληνικά',
  'עברית',
  'ไทย',
  'e\u0301',
  'line\nbreak',
  'tab\there',
  'windows\r\nline',
];
const plainText = fc
  .array(
    fc.oneof(
      plainCodePoint.map((cp) => String.fromCodePoint(cp)),
      fc.constantFrom(...WORDS),
    ),
    {
      maxLength: 30,
    },
  )
  .map((xs) => xs.join(' '));

const MODES: VisibleMode[] = ['text', 'line', 'code'];
const RUNS = { numRuns: 2_000 };

describe('visible: the rule for text a human reads', () => {
  it('leaves nothing of the dangerous classes, in every mode', () => {
    fc.assert(
      fc.property(anyText, fc.constantFrom(...MODES), (s, mode) => {
        assertSafe(visible(s, mode), mode);
        assertSafe(
          visibleParts(s, mode)
            .map((p) => p.text)
            .join(''),
          mode,
        );
      }),
      RUNS,
    );
  });

  it('is reversible in text and line modes (so unambiguous: a typed \\u202E is not U+202E)', () => {
    fc.assert(
      fc.property(anyText, fc.constantFrom<VisibleMode>('text', 'line'), (s, mode) => {
        expect(fromVisible(visible(s, mode))).toBe(s);
      }),
      RUNS,
    );
    expect(visible('\\u202E')).not.toBe(visible('\u202E'));
    expect(visible('\\u202E')).toBe('\\\\u202E');
  });

  it('keeps plain text of any script unchanged (emoji, CJK, combining marks, joiners in words)', () => {
    fc.assert(
      fc.property(plainText, (s) => {
        expect(visible(s, 'text')).toBe(s);
        expect(visible(s, 'code')).toBe(s);
        expect(visibleParts(s).every((p) => !p.escaped)).toBe(true);
      }),
      RUNS,
    );
  });

  it('writes each dangerous character as a visible escape', () => {
    expect(visible('invoice-\u202Efdp.exe')).toBe('invoice-\\u202Efdp.exe');
    expect(visible('\x1b]52;c;aGk=\x07')).toBe('\\u001B]52;c;aGk=\\u0007');
    expect(visible('\x1b[31mred\x1b[0m')).toBe('\\u001B[31mred\\u001B[0m');
    expect(visible('\x1b]0;owned\x07\x1b[2J\x1b[H')).toBe(
      '\\u001B]0;owned\\u0007\\u001B[2J\\u001B[H',
    );
    expect(visible('a\u0000b\u009bc\u007f')).toBe('a\\u0000b\\u009Bc\\u007F');
    expect(visible('pay\u200Bpal\u2066\u00AD\uFEFF')).toBe('pay\\u200Bpal\\u2066\\u00AD\\uFEFF');
    expect(visible('ok\rFAKE')).toBe('ok\\u000DFAKE');
    expect(visible('hi\u{E0041}\u{E0042}')).toBe('hi\\u{E0041}\\u{E0042}');
    expect(visible('\uD800\uFFFE\uFFFF')).toBe('\\uD800\\uFFFE\\uFFFF');
    // A run of selectors after one base hides bytes: every one after the first is shown.
    expect(visible('😀\uFE0F\uFE00\u{E0100}')).toBe('😀\uFE0F\\uFE00\\u{E0100}');
    expect(visible('a\u200Db')).toBe('a\\u200Db');
    expect(visible('a\uFE0Fb\uFFF9hidden\uFFFB')).toBe('a\\uFE0Fb\\uFFF9hidden\\uFFFB');
    expect(visible('a\nb\tc', 'line')).toBe('a\\u000Ab\\u0009c');
    // Backslashes stay readable unless they could start an escape.
    expect(visible('C:\\temp\\users')).toBe('C:\\temp\\\\users');
    expect(visible('C:\\temp\\users', 'code')).toBe('C:\\temp\\users');
    expect(visible("const s = '\u202E';", 'code')).toBe("const s = '\\u202E';");
    const parts = visibleParts('x\u202Ey');
    expect(parts).toEqual([
      { text: 'x', escaped: false },
      { text: '\\u202E', escaped: true },
      { text: 'y', escaped: false },
    ]);
  });

  it('JSON: parses to the same value, with no dangerous character left raw', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 3 }), anyText, (v, s) => {
        const value = { v, s, [s]: s };
        const shown = visibleJson(value, 2)!;
        expect(JSON.parse(shown)).toEqual(JSON.parse(JSON.stringify(value)));
        assertSafe(shown, 'code');
      }),
      RUNS,
    );
    expect(visibleJson({ f: 'invoice-\u202Efdp.exe' })).toBe('{"f":"invoice-\\u202Efdp.exe"}');
    expect(visibleJson({ t: '\u{E0041}' })).toBe('{"t":"\\uDB40\\uDC41"}');
    expect(visibleJson(undefined)).toBeUndefined();
  });

  it('clips shown text before a kept CR of a line break and before a joiner', () => {
    // Found by the property below (seed 2076738693): the cut fell between CR and LF.
    expect(clipVisible(visible('\r\u{10000}\r\n '), 10)).toBe('\\u000D\u{10000}…');
    expect(clipVisible('ab\u200d\r\ncd', 5)).toBe('ab…');
    expect(clipVisible('abc\u200ddef', 5)).toBe('abc…');
  });

  it('clips shown text without cutting an escape or a surrogate pair', () => {
    fc.assert(
      fc.property(anyText, fc.integer({ min: 1, max: 60 }), (s, max) => {
        const clipped = clipVisible(visible(s), max);
        expect(clipped.length).toBeLessThanOrEqual(Math.max(max, 1));
        assertSafe(clipped, 'text');
        if (clipped !== visible(s)) expect(clipped.endsWith('…')).toBe(true);
      }),
      RUNS,
    );
  });
});
