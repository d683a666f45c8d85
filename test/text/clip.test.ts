/**
 * The rule for cutting someone else's text to a bound (src/text/clip.ts), over strings of every
 * class of code unit: within the bound, a prefix of the input, never half a pair, idempotent.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { clipText, cutText } from '../../src/text/clip.js';

/** A high surrogate at the end that was followed by its low half in the input. */
const splitPair = (out: string, input: string): boolean => {
  const last = out.charCodeAt(out.length - 1);
  const next = input.charCodeAt(out.length);
  return last >= 0xd800 && last <= 0xdbff && next >= 0xdc00 && next <= 0xdfff;
};

const texts = fc.string({
  unit: fc.oneof(fc.constant('a'), fc.constant('😀'), fc.constant('\uD83D'), fc.constant('\uDE00')),
  maxLength: 400,
});

describe('cutText', () => {
  it('keeps a prefix within the bound and never splits a pair', () => {
    fc.assert(
      fc.property(texts, fc.nat(400), (text, max) => {
        const out = cutText(text, max);
        expect(out.length).toBeLessThanOrEqual(max);
        expect(text.startsWith(out)).toBe(true);
        expect(out.length).toBeGreaterThanOrEqual(Math.min(text.length, max) - 1);
        expect(splitPair(out, text)).toBe(false);
      }),
    );
  });
});

describe('clipText', () => {
  it('says how much it left out, stays within the bound and changes nothing the second time', () => {
    fc.assert(
      fc.property(texts, fc.integer({ min: 40, max: 400 }), (text, max) => {
        const out = clipText(text, max);
        expect(out.length).toBeLessThanOrEqual(max);
        expect(clipText(out, max)).toBe(out);
        if (text.length <= max) {
          expect(out).toBe(text);
          return;
        }
        const m = /^([^]*)… \((\d+) more characters\)$/.exec(out);
        expect(m).not.toBeNull();
        const head = m?.[1] ?? '';
        expect(text.startsWith(head)).toBe(true);
        expect(head.length + Number(m?.[2])).toBe(text.length);
        expect(splitPair(head, text)).toBe(false);
      }),
    );
  });
});
