import { describe, expect, it } from 'vitest';
import { countTokens } from '../../src/tokens.js';

describe('countTokens (o200k_base)', () => {
  it('counts known strings with the o200k encoding', () => {
    expect(countTokens('')).toBe(0);
    expect(countTokens('hello world')).toBe(2);
    expect(countTokens('interface Tools {')).toBe(3);
  });

  it('counts special-token look-alikes as plain text instead of throwing', () => {
    const n = countTokens('a <|endoftext|> b <|im_start|>');
    expect(n).toBeGreaterThan(4);
  });

  it('grows with the text and is deterministic', () => {
    const a = countTokens('The quick brown fox jumps over the lazy dog.');
    expect(countTokens('The quick brown fox jumps over the lazy dog.')).toBe(a);
    expect(countTokens('The quick brown fox jumps over the lazy dog. '.repeat(10))).toBeGreaterThan(
      a * 5,
    );
  });
});
