import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { countTokens, estimateTokens } from '../../src/tokens.js';

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

describe('estimateTokens (character classes, no tokenizer)', () => {
  const near = (text: string, within: number): void => {
    const exact = countTokens(text);
    expect(Math.abs(estimateTokens(text) - exact) / exact).toBeLessThan(within);
  };

  it('is 0 for the empty string and at least 1 otherwise', () => {
    expect(estimateTokens('')).toBe(0);
    expect(estimateTokens('a')).toBe(1);
    expect(estimateTokens('\u0000')).toBe(1);
  });

  it('is near the o200k count on prose, code, JSON and CJK', () => {
    const zh = JSON.parse(
      readFileSync('node_modules/typescript/lib/zh-cn/diagnosticMessages.generated.json', 'utf8'),
    ) as Record<string, string>;
    near(Object.values(zh).join('\n').slice(0, 8000), 0.15);
    near(readFileSync('README.md', 'utf8').slice(0, 8000), 0.35);
    near(readFileSync('src/run-code/ledger.ts', 'utf8'), 0.35);
    near(
      JSON.stringify(Array.from({ length: 300 }, (_, i) => ({ id: i, name: `row ${i}` }))),
      0.35,
    );
  });
});
