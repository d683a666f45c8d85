/**
 * Host work of the savings ledger per run, before (o200k tokenizer on the host, exact up to 16 KiB,
 * prefix-extrapolated above) and after (character-class estimate; docs/decisions/029-host-work.md).
 * Run: npx tsx benchmarks/host-stall.ts
 */
import { countTokens, estimateTokens } from '../src/tokens.js';

/** The ledger's token counting before 029: exact up to 16,384 chars, else a 4,096-char prefix. */
const before = (text: string): number =>
  text.length <= 16_384
    ? countTokens(text)
    : Math.round((countTokens(text.slice(0, 4_096)) / 4_096) * text.length);

const rows = (n: number): string =>
  JSON.stringify({
    rows: Array.from({ length: n }, (_, i) => ({ id: i, name: `row ${i}`, tags: ['a', 'b'] })),
  });

const time = (texts: string[], count: (t: string) => number): number => {
  const t0 = performance.now();
  for (const t of texts) count(t);
  return performance.now() - t0;
};

const cases: Record<string, () => string[]> = {
  'warm run (3 rows + result "3")': () => [rows(3), '3'],
  'warm run (200 rows + result)': () => [rows(200), '200'],
  'attack: 40 distinct CJK texts of 16,000 chars': () =>
    Array.from({ length: 40 }, (_, i) =>
      JSON.stringify(String.fromCharCode(0x4e00 + i).repeat(16_000)),
    ),
};

countTokens('warm the encoding');
let salt = 0;
for (const [name, make] of Object.entries(cases)) {
  // A distinct salt per measurement so no tokenizer cache helps either side.
  const texts = (): string[] => make().map((t) => `${t} ${salt++}`);
  const reps = name.startsWith('attack') ? 1 : 200;
  let b = 0;
  let a = 0;
  for (let i = 0; i < reps; i++) {
    b += time(texts(), before);
    a += time(texts(), estimateTokens);
  }
  console.log(`${name}: before ${(b / reps).toFixed(3)} ms, after ${(a / reps).toFixed(3)} ms`);
}
