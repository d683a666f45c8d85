/**
 * Median latency of one check (not a test; run by hand), for decision record 012:
 *   node --import tsx test/compile/measure-latency.ts
 * A small program (one type error) against a 50-tool SDK, ROUNDS sequential checks after a warm-up, in two
 * modes: the checker parses the program itself (no verdict given), and the caller passes the transpiler's
 * verdict (`transpiled`, as run_code does: the host never calls oxc). Also the compiler's RSS, and the
 * cost of the module-reference refusal scan on the small program and on a 40 kB one.
 */

import { createNativeChecker } from '../../src/compile/index.js';
import type { CheckOptions, SdkSource } from '../../src/compile/index.js';
import { programRefusal } from '../../src/compile/refusals.js';

const TOOLS = Number(process.env.TOOLS ?? 50);
const ROUNDS = Number(process.env.ROUNDS ?? 200);

let text = `interface Console { log(...args: unknown[]): void }\ndeclare var console: Console;\ninterface Tools {\n`;
for (let i = 0; i < TOOLS; i++) {
  text += `  /** Tool ${i}. */\n  tool_${i}(input: { path: string; limit?: number; mode: "a" | "b" }): Promise<{ content: string; items: Array<{ id: number; name: string }> }>;\n`;
}
const SDK: SdkSource = { hash: 'latency', text: `${text}}\ndeclare const tools: Tools;\n` };
const program = (i: number): string =>
  `const r = await tools.tool_${i % 10}({ path: "f${i}", mode: "a" });\nconst names = r.items.map((x) => x.name.toUpperCase());\nconst bad: number = names[0];\nreturn { n: names.length, c: r.content.slice(0, ${i}) };`;

const median = (values: number[]): number =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN;

/** Median time of `fn` in microseconds (batches of `batch` calls). */
function microseconds(fn: () => unknown, batch: number): number {
  const times: number[] = [];
  for (let i = 0; i < 200; i++) {
    const t0 = performance.now();
    for (let j = 0; j < batch; j++) fn();
    times.push(((performance.now() - t0) * 1000) / batch);
  }
  return median(times);
}

function scanCost(): void {
  const small = program(7);
  const line = 'const s = `row ${i}: ${JSON.stringify({ a: "x", b: /re[/]/g.source })}`; // note\n';
  const large = line.repeat(Math.ceil(40_000 / line.length));
  for (const [name, text, batch] of [
    ['small', small, 1000],
    [`${Math.round(large.length / 1000)} kB`, large, 5],
  ] as const) {
    if (programRefusal(text) !== undefined) throw new Error('unexpected refusal');
    console.log(
      `refusal scan, ${name} program: median ${microseconds(() => programRefusal(text), batch).toFixed(1)} µs`,
    );
  }
}

async function main(): Promise<void> {
  scanCost();
  const checker = createNativeChecker();
  await checker.warmup(SDK);
  const modes: Array<[string, (i: number) => CheckOptions]> = [
    ['checker parses itself', () => ({})],
    ['verdict passed in', () => ({ transpiled: { ok: true } })],
  ];
  for (let round = 0; round < 2; round++) {
    for (const [name, options] of modes) {
      for (let i = 0; i < 20; i++) await checker.check(program(i), SDK, options(i));
      const times: number[] = [];
      for (let i = 0; i < ROUNDS; i++) {
        const t0 = performance.now();
        const diags = await checker.check(program(1000 + i), SDK, options(i));
        times.push(performance.now() - t0);
        if (diags.length !== 1) throw new Error(`expected one diagnostic, got ${diags.length}`);
      }
      console.log(`${name}: median ${median(times).toFixed(2)} ms over ${ROUNDS} checks`);
    }
  }
  const stats = checker.stats() as unknown as Record<string, unknown>;
  console.log('stats', JSON.stringify(stats));
  await checker.close();
}

await main();
