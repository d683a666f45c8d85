/**
 * Refusals from a real parse (029): what the lexical scan can be walked past — a regular expression
 * it reads as a division after `if (…)` swallows the rest of the line as a "string" — is found by
 * oxc-parser where the program is transpiled (the sandbox worker), so neither the checker nor the
 * isolate sees it. Through the public runtime (the real worker and checker), the standalone checker,
 * and the guarded transpiler; ordinary programs pass.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createNativeChecker, type SdkSource } from '../../src/compile/index.js';
import { astRefusal, astRefusalByWalk } from '../../src/compile/ast-refusals.js';
import { transpileGuarded } from '../../src/compile/guarded-transpile.js';
import { programRefusal } from '../../src/compile/refusals.js';
import { createRuntime, defineTool, type Runtime, type ToolResult } from '../../src/index.js';

let calls = 0;
let rt: Runtime;
beforeAll(async () => {
  rt = await createRuntime({
    tools: [
      defineTool({
        name: 'count',
        description: 'Counts a call.',
        input: z.object({}),
        execute: () => ++calls,
      }),
    ],
    scopes: { default: { mode: 'code' } },
  });
});
afterAll(() => rt.close());

const run = (code: string): Promise<ToolResult> =>
  rt.execute({ name: 'run_code', args: { code, description: 'ast refusals' } });

/** A `/` after `if (…)` starts a regex; the scan reads a division, then a quote that hides the line. */
const HIDE = `if (true) /'/.test("x"); `;
// (`declare module "…"` inside the program's function body is a syntax error for every parser.)
const BYPASSES: Record<string, { code: string; says: RegExp }> = {
  'typeof import("…")': {
    code: `${HIDE}type T = typeof import("../sdk"); await tools.count({}); return 1;`,
    says: /Modules are not available/,
  },
  'import()': {
    code: `${HIDE}const m = await import("node:fs"); await tools.count({}); return 1;`,
    says: /Modules are not available/,
  },
  'require("…")': {
    code: `${HIDE}const fs = require("fs"); await tools.count({}); return 1;`,
    says: /`require` is not available/,
  },
  'import x = require("…")': {
    code: `${HIDE}import fs = require("fs"); await tools.count({}); return 1;`,
    says: /`require` is not available/,
  },
  '300 hidden nested brackets': {
    code: `${HIDE}const x = ${'['.repeat(300)}${']'.repeat(300)}; await tools.count({}); return 1;`,
    says: /nests more than 256 levels deep/,
  },
  '450 nested type arguments': {
    code: `type A<T> = T; type B = ${'A<'.repeat(450)}number${'>'.repeat(450)}; await tools.count({}); return 1;`,
    says: /nests more than 256 levels deep/,
  },
};

describe('refusals from a real parse', () => {
  for (const [name, { code, says }] of Object.entries(BYPASSES)) {
    it(`refuses ${name} that the lexical scan lets through, before the checker and the isolate`, async () => {
      expect(programRefusal(code)).toBeUndefined(); // the scan alone would have let it through
      const before = calls;
      const result = await run(code);
      expect(result.ok).toBe(false);
      if (result.ok) return;
      expect(result.error.code).toBe('CODE_RUN_FAILED');
      expect(result.error.details).toMatchObject({ kind: 'syntax' });
      expect(result.error.message).toMatch(says);
      expect(calls).toBe(before);
    });
  }

  it('the standalone checker refuses them too, without compiling them', async () => {
    const checker = createNativeChecker();
    const sdk: SdkSource = {
      hash: 'ast',
      text: 'declare const tools: { count(i: {}): Promise<number> };\n',
    };
    try {
      for (const { code, says } of Object.values(BYPASSES)) {
        const diagnostics = await checker.check(code, sdk);
        expect(diagnostics).toHaveLength(1);
        expect(diagnostics[0]?.message).toMatch(says);
      }
      // No compiler process was ever started: nothing reached it.
      expect(checker.stats()).toMatchObject({ processes: 0, cachedSdks: 0 });
    } finally {
      await checker.close();
    }
  });

  it('points at the offending place in the program', () => {
    const code = `const a = 1;\n${HIDE}const b = require("fs");`;
    const result = transpileGuarded(code);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.diagnostics[0]).toMatchObject({ line: 2, column: HIDE.length + 11 });
  });

  it('lets ordinary programs through: regexes, divisions, `import` as a name, nesting under the limit', async () => {
    const ok = [
      'const re = /import\\("x"\\)/; const n = 4 / 2 / 1; return re.test("a") ? n : 0;',
      'const o = { import: 1, export: 2, require: 3 }; return o.import + o.export + o.require;',
      `return ${'['.repeat(120)}1${']'.repeat(120)}.length;`,
      'const s = `${`${`${1}`}`}`; return s;',
    ];
    for (const code of ok) expect(transpileGuarded(code)).toMatchObject({ ok: true });
    const result = await run('const r = await tools.count({}); return typeof r;');
    expect(result).toMatchObject({ ok: true });
  });

  it('any JSON value as a literal under the depth limit is accepted', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 20 }), (value) => {
        const code = `const v = ${JSON.stringify(value)}; return v;`;
        expect(transpileGuarded(code).ok).toBe(true);
      }),
      { numRuns: 200 },
    );
  });
});

/**
 * Most programs are answered from the AST's JSON text without building the tree (decision 034 §7):
 * the answer must be the whole walk's, whatever the program — module references spelled in strings,
 * comments, escaped identifiers and property names, chains that nest without brackets.
 */
describe('the look at the JSON text in front of the walk', () => {
  const FRAGMENTS = [
    'const a = await tools.count({});',
    'const fs = require("fs");',
    'const r = require;',
    'const x = \\u0072equire("fs");',
    'const o = { require: 1, import: 2, export: 3 };',
    'const s = \'"name":"require"\';',
    'const t = "\\"type\\":\\"ImportExpression\\"";',
    'const u = `"type":"ExportNamedDeclaration" ${"\\"name\\":\\"require\\""}`;',
    '// "type":"ImportExpression" and "name":"require"',
    '/// <reference path="x" />',
    'const m = await import("node:fs");',
    'type T = typeof import("../sdk");',
    'import fs2 = require("fs");',
    'const meta = import.meta;',
    `const deep = ${'['.repeat(130)}1${']'.repeat(130)};`,
    `const sum = 1${'+1'.repeat(300)};`,
    `const not = ${'!'.repeat(300)}true;`,
    `const chain = a${'.b'.repeat(280)};`,
    `type D = ${'Array<'.repeat(200)}number${'>'.repeat(200)};`,
    'if (true) /\'/.test("x");',
    'return 1;',
  ];

  it('answers every fragment, alone, as the whole walk does', () => {
    for (const code of [...FRAGMENTS, ...Object.values(BYPASSES).map((b) => b.code)]) {
      expect({ code, verdict: astRefusal(code) }).toEqual({
        code,
        verdict: astRefusalByWalk(code),
      });
    }
    // Both ways refuse something here, and pass something: the comparison is not vacuous.
    expect(astRefusal('const fs = require("fs");')).toBeDefined();
    expect(astRefusal(`const sum = 1${'+1'.repeat(300)};`)).toBeDefined();
    expect(astRefusal('const s = \'"name":"require"\'; return s;')).toBeUndefined();
  });

  it('answers programs made of them as the whole walk does', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...FRAGMENTS), { maxLength: 6 }), (parts) => {
        const code = parts.join('\n');
        expect(astRefusal(code)).toEqual(astRefusalByWalk(code));
      }),
      { numRuns: 300 },
    );
  });
});
