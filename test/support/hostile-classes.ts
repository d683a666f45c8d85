/**
 * One program for each class of host work a hostile tenant can cause (docs/decisions/029-host-work.md),
 * with how the run must end. Shared by the fairness test (test/server/fairness.test.ts, generous
 * bounds only) and its benchmark (benchmarks/fairness.ts, benign p99 as a ratio of solo p99).
 */
import { z } from 'zod';
import { defineTool, type ToolDefinition } from '../../src/index.js';

/** A hostile program and how its run must end (`ok`, or the failure `kind`/`code`). */
export interface HostileClass {
  name: string;
  code: string;
  /** `ok: true` when the run is allowed to succeed (the host must just stay fast meanwhile). */
  expect: { ok: true } | { ok: false; kind?: string; message?: RegExp };
}

/** 16,000 characters of the `i`th CJK letter: distinct texts, so no tokenizer cache helps. */
export const cjk = (i: number): string => String.fromCharCode(0x4e00 + i).repeat(16_000);

/** The tools both tenants' catalogs hold. */
export const FAIRNESS_TOOLS: ToolDefinition[] = [
  defineTool({
    name: 'text.cjk',
    description: 'Returns 16,000 characters of one CJK letter.',
    input: z.object({ i: z.number().int() }),
    output: z.string(),
    isConcurrencySafe: true,
    execute: ({ i }: { i: number }) => cjk(i),
  }),
  defineTool({
    name: 'text.echo',
    description: 'Echoes a text.',
    input: z.object({ text: z.string() }),
    output: z.string(),
    isConcurrencySafe: true,
    execute: ({ text }: { text: string }) => text,
  }),
];

/** The benign tenant's run. */
export const BENIGN = 'const r = await tools.text.echo({ text: "hi" });\nreturn r;';

const HIDE = `if (true) /'/.test("x"); `;

export const HOSTILE_CLASSES: HostileClass[] = [
  {
    name: 'ledger: 40 CJK texts of 16,000 characters',
    code: 'const t = await Promise.all(Array.from({ length: 40 }, (_, i) => tools.text.cjk({ i })));\nreturn t.length;',
    expect: { ok: true },
  },
  {
    name: 'refusal scan bypass: 300 hidden brackets',
    code: `${HIDE}const x = ${'['.repeat(300)}${']'.repeat(300)}; return 1;`,
    expect: { ok: false, kind: 'syntax', message: /nests more than/ },
  },
  {
    name: 'refusal scan bypass: hidden typeof import',
    code: `${HIDE}type T = typeof import("../sdk"); return 1;`,
    expect: { ok: false, kind: 'syntax', message: /Modules are not available/ },
  },
  {
    name: 'type-level bomb: doubling template literal types',
    code: 'type R<S extends string, N extends unknown[] = []> = N["length"] extends 40 ? S : R<`${S}${S}x`, [...N, 1]> | R<`${S}y`, [...N, 1]>;\nconst x: R<"a"> = null as never;\nreturn 1;',
    expect: { ok: false, kind: 'typecheck' },
  },
  {
    name: 'CPU: an endless loop',
    code: 'for (;;) {}',
    expect: { ok: false, kind: 'timeout' },
  },
  {
    name: 'memory: a growing array',
    code: 'const a: number[][] = []; for (;;) a.push(new Array(1e6).fill(1));',
    expect: { ok: false, kind: 'memory' },
  },
  {
    name: 'logs: a flood of console output',
    code: 'for (let i = 0; ; i++) console.log("x".repeat(1000) + i);',
    expect: { ok: false, kind: 'output-limit' },
  },
  {
    name: 'nested calls: 900 echoes of 8 KiB, 225 at a time',
    code: 'const t = "y".repeat(8192);\nlet n = 0;\nfor (let b = 0; b < 4; b++) n += (await Promise.all(Array.from({ length: 225 }, () => tools.text.echo({ text: t })))).length;\nreturn n;',
    expect: { ok: true },
  },
  {
    name: 'result: the largest result allowed',
    code: 'return "z".repeat(1_000_000);',
    expect: { ok: true },
  },
];
