/**
 * Fits the character-class ratios of `estimateTokens` (src/tokens.ts) on o200k counts of texts in
 * this repository and prints each corpus's chars per token and the estimate's mean error
 * (docs/decisions/029-host-work.md). Run: npx tsx benchmarks/token-ratio.ts
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { countTokens, estimateTokens } from '../src/tokens.js';

const files = (dir: string, ext: string): string[] =>
  readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith(ext))
    .map((f) => readFileSync(join(dir, f), 'utf8'));
const chunk = (t: string, n = 8000): string[] => {
  const out: string[] = [];
  for (let i = 0; i < t.length; i += n) out.push(t.slice(i, i + n));
  return out;
};
const messages = (lang: string): Record<string, string> =>
  JSON.parse(
    readFileSync(`node_modules/typescript/lib/${lang}/diagnosticMessages.generated.json`, 'utf8'),
  ) as Record<string, string>;
const rows = JSON.stringify({
  rows: Array.from({ length: 600 }, (_, i) => ({ id: i, name: `row ${i}`, tags: ['a', 'b'] })),
});

const corpora: Record<string, string[]> = {
  json: [
    ...chunk(readFileSync('package-lock.json', 'utf8')).slice(0, 30),
    ...chunk(rows),
    ...chunk(JSON.stringify(messages('cs'))).slice(0, 10),
  ],
  prose: [
    ...files('docs', '.md').flatMap((t) => chunk(t)),
    ...chunk(readFileSync('README.md', 'utf8')),
  ],
  code: files('src', '.ts')
    .flatMap((t) => chunk(t))
    .slice(0, 120),
  cjk: [
    ...chunk(Object.values(messages('zh-cn')).join('\n')).slice(0, 15),
    ...chunk(Object.values(messages('ja')).join('\n')).slice(0, 15),
  ],
  cjkJson: chunk(JSON.stringify(messages('zh-cn'))).slice(0, 10),
};

/** [ASCII letters and digits, other ASCII, non-ASCII] code units. */
const classes = (t: string): [number, number, number] => {
  let alnum = 0;
  let other = 0;
  for (let i = 0; i < t.length; i++) {
    const c = t.charCodeAt(i);
    if (c >= 128) continue;
    if ((c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122)) alnum++;
    else other++;
  }
  return [alnum, other, t.length - alnum - other];
};

// Least squares (normal equations, 3×3 Gaussian elimination) of exact tokens on the classes.
const m = [0, 1, 2].map(() => [0, 0, 0, 0]);
for (const texts of Object.values(corpora))
  for (const t of texts) {
    const x = classes(t);
    const y = countTokens(t);
    for (let i = 0; i < 3; i++) {
      m[i]![3]! += x[i]! * y;
      for (let j = 0; j < 3; j++) m[i]![j]! += x[i]! * x[j]!;
    }
  }
for (let i = 0; i < 3; i++)
  for (let k = i + 1; k < 3; k++) {
    const f = m[k]![i]! / m[i]![i]!;
    for (let j = i; j < 4; j++) m[k]![j]! -= f * m[i]![j]!;
  }
const w = [0, 0, 0];
for (let i = 2; i >= 0; i--) {
  let s = m[i]![3]!;
  for (let j = i + 1; j < 3; j++) s -= m[i]![j]! * w[j]!;
  w[i] = s / m[i]![i]!;
}
console.log(
  'fitted tokens per char [alnum, other ASCII, non-ASCII]:',
  w.map((x) => x.toFixed(3)),
);

for (const [name, texts] of Object.entries(corpora)) {
  let chars = 0;
  let tokens = 0;
  let err = 0;
  for (const t of texts) {
    const exact = countTokens(t);
    chars += t.length;
    tokens += exact;
    err += (estimateTokens(t) - exact) / exact;
  }
  console.log(
    `${name}: ${chars} chars, ${tokens} tokens, ${(chars / tokens).toFixed(2)} chars/token, estimate error ${((100 * err) / texts.length).toFixed(0)} %`,
  );
}
