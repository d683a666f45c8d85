/**
 * Measures transpilers for decision record 002 (not a test; run by hand):
 *   node --import tsx test/compile/measure-transpile.ts
 * oxc-transform's transformSync vs the classic compiler's ts.transpileModule (typescript 5.9) on the same
 * wrapped programs, warm medians after a JIT warm-up, plus the costs transpileProgram adds on top of oxc.
 */

import { transformSync } from 'oxc-transform';
import ts from 'typescript';
import { transpileProgram } from '../../src/compile/index.js';

const SMALL = `const r = await tools.read_file({ path: "notes.txt" });
const lines: string[] = r.content.split("\\n");
interface Hit { line: number; text: string }
const hits: Hit[] = lines.flatMap((text, i) => (text.includes("TODO") ? [{ line: i + 1, text }] : []));
console.log(hits.length);
return hits.slice(0, 10);`;

function large(n: number): string {
  const parts: string[] = [];
  for (let i = 0; i < n; i++) {
    parts.push(`const v${i}: { id: number; name: string } = { id: ${i}, name: "n${i}" as string };
if (v${i}.id % 3 === 0) { console.log(v${i}.name satisfies string); }`);
  }
  return `${parts.join('\n')}\nreturn ${n};`;
}

const wrap = (p: string): string => `(async function () {\n'use strict';\n${p}\n})`;
const median = (values: number[]): number =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN;

/** `fn` gets a distinct round number to vary its input: V8 caches compiled code by source text. */
function measure(label: string, fn: (round: number) => unknown, warmup = 300, rounds = 1000): void {
  const coldStart = performance.now();
  fn(-1);
  const cold = performance.now() - coldStart;
  for (let i = 0; i < warmup; i++) fn(i);
  const times: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const start = performance.now();
    fn(warmup + i);
    times.push(performance.now() - start);
  }
  console.log(
    `${label}: first call ${cold.toFixed(2)} ms, warm median ${(median(times) * 1000).toFixed(1)} µs`,
  );
}

const AsyncFunction = (
  Object.getPrototypeOf(async function () {}) as { constructor: new (body: string) => unknown }
).constructor;

for (const [name, program] of [
  ['small program (6 lines)', SMALL],
  ['large program (400 lines)', large(200)],
] as const) {
  const slow = program.length > 10_000;
  const variant = (round: number): string => `${program}\n// ${round}`;
  console.log(`${name}: ${program.length} chars`);
  measure('  oxc transformSync (with source map)', (r) =>
    transformSync('program.ts', wrap(variant(r)), {
      lang: 'ts',
      sourceType: 'script',
      sourcemap: true,
    }),
  );
  measure('  oxc transformSync (no source map)', (r) =>
    transformSync('program.ts', wrap(variant(r)), { lang: 'ts', sourceType: 'script' }),
  );
  measure(
    '  ts.transpileModule 5.9 (with source map)',
    (r) =>
      ts.transpileModule(wrap(variant(r)), {
        compilerOptions: { target: ts.ScriptTarget.ES2022, sourceMap: true },
        reportDiagnostics: true,
      }),
    slow ? 20 : 300,
    slow ? 30 : 1000,
  );
  const out = transformSync('program.ts', wrap(program), { lang: 'ts', sourceType: 'script' }).code;
  const body = out.slice(out.indexOf('{\n') + 2, out.lastIndexOf('\n})'));
  measure(
    '  V8 function-body check (new AsyncFunction)',
    (r) => new AsyncFunction(`${body}\n// ${r}`),
  );
  measure('  transpileProgram (oxc + body check)', (r) => transpileProgram(variant(r)));
  measure(
    '  transpileProgram + first mapPosition (source-map decode)',
    (r) => {
      const result = transpileProgram(variant(r));
      if (result.ok) result.mapPosition(3, 2);
    },
    100,
    300,
  );
}
console.log(`versions: typescript ${ts.version}`);
