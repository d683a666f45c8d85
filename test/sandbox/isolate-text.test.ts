/**
 * The isolate-side text helpers, tested directly in Node (they are pure ES2022) — the same code
 * runs in every isolate, where bridge.test.ts exercises it again through the console.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  capLength,
  formatArgs,
  formatValue,
  thrownText,
  truncateUtf8,
  utf8Length,
} from '../../sdk-templates/isolate/text.js';

describe('utf8Length', () => {
  it('agrees with Buffer.byteLength on any string, lone surrogates included', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (s) => {
        expect(utf8Length(s)).toBe(Buffer.byteLength(s));
      }),
    );
  });

  it('counts 1, 2, 3 and 4-byte characters', () => {
    expect(utf8Length('a')).toBe(1);
    expect(utf8Length('é')).toBe(2);
    expect(utf8Length('€')).toBe(3);
    expect(utf8Length('😀')).toBe(4);
    expect(utf8Length('\ud800')).toBe(3);
  });
});

describe('truncateUtf8', () => {
  it('returns the longest prefix that fits, never splitting a pair', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), fc.nat(40), (s, max) => {
        const cut = truncateUtf8(s, max);
        expect(s.startsWith(cut)).toBe(true);
        expect(Buffer.byteLength(cut)).toBeLessThanOrEqual(max);
        if (cut.length < s.length) {
          const next = s.codePointAt(cut.length) ?? 0;
          const width = Buffer.byteLength(String.fromCodePoint(next));
          expect(Buffer.byteLength(cut) + width).toBeGreaterThan(max);
        }
      }),
    );
    expect(truncateUtf8('a😀b', 4)).toBe('a');
    expect(truncateUtf8('a😀b', 5)).toBe('a😀');
    expect(truncateUtf8('abc', 0)).toBe('');
  });

  it('caps by UTF-16 length', () => {
    expect(capLength('abcdef', 3)).toBe('abc');
    expect(capLength('ab', 3)).toBe('ab');
  });
});

describe('formatValue', () => {
  it('formats primitives, errors, functions and objects', () => {
    expect(formatArgs(['a', 1, true, null, undefined, 10n, Symbol('s')])).toBe(
      'a 1 true null undefined 10n Symbol(s)',
    );
    expect(formatValue(new TypeError('bad'))).toBe('TypeError: bad');
    expect(formatValue(function named() {})).toBe('[Function: named]');
    expect(formatValue({ a: [1, { b: 'c' }] })).toBe('{"a":[1,{"b":"c"}]}');
  });

  it('survives hostile values', () => {
    const throwingGetter = {
      get boom(): never {
        throw new Error('getter');
      },
    };
    const cyclic: { self?: unknown } = {};
    cyclic.self = cyclic;
    const hostileProxy = new Proxy(
      {},
      {
        get() {
          throw new Error('trap');
        },
        ownKeys() {
          throw new Error('trap');
        },
        getOwnPropertyDescriptor() {
          throw new Error('trap');
        },
      },
    );
    const hostileError = new Error('real');
    Object.defineProperty(hostileError, 'name', {
      get() {
        throw new Error('no name');
      },
    });
    const toJsonThrows = {
      toJSON() {
        throw new Error('toJSON');
      },
      toString() {
        throw new Error('toString');
      },
    };
    expect(formatValue(throwingGetter)).toBe('[object Object]');
    expect(formatValue(cyclic)).toBe('[object Object]');
    expect(formatValue(hostileProxy)).toBe('[unprintable value]');
    expect(formatValue(hostileError)).toBe('Error: real');
    expect(formatValue(toJsonThrows)).toBe('[object Object]');
    const bomb = new Proxy(function () {}, {
      get() {
        throw new Error('trap');
      },
    });
    expect(formatValue(bomb)).toBe('[Function: anonymous]');
  });

  it('describes thrown values by message, or formats them', () => {
    expect(thrownText(new Error('m'))).toBe('m');
    expect(thrownText('plain')).toBe('plain');
    expect(thrownText({ message: 5 })).toBe('{"message":5}');
  });
});
