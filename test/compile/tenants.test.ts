import type * as Crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Diagnostic, SdkSource, TypeChecker } from '../../src/compile/index.js';

/**
 * Project directories come from `randomBytes`: made predictable here so that the tests can aim at the
 * real directory of the other tenant's SDK (an attacker cannot know it; these tests play one who does).
 */
const drawn: string[] = [];
vi.mock('node:crypto', async (importOriginal) => {
  const crypto = await importOriginal<typeof Crypto>();
  let n = 0;
  return {
    ...crypto,
    randomBytes: (size: number): Buffer => {
      const bytes = Buffer.alloc(size, 0);
      bytes.writeUInt32BE(++n, size - 4);
      drawn.push(bytes.toString('hex'));
      return bytes;
    },
  };
});

const { createNativeChecker } = await import('../../src/compile/index.js');

const PRELUDE =
  'interface Console { log(...args: unknown[]): void }\ndeclare var console: Console;\n';
const TENANT_A: SdkSource = {
  hash: 'tenant-a',
  text: `${PRELUDE}interface Tools {\n  alpha_read(input: { path: string }): Promise<{ text: string }>;\n}\ndeclare const tools: Tools;\n`,
};
const TENANT_B: SdkSource = {
  hash: 'tenant-b',
  text: `${PRELUDE}interface BravoSecretInput { vault: string; pin: number }\ninterface Tools {\n  bravo_secret_export(input: BravoSecretInput): Promise<{ bravoPayload: string }>;\n}\ndeclare const tools: Tools;\n`,
};
/** Anything that would tell tenant A about tenant B's SDK. */
const LEAK = /bravo|BravoSecret|vault/i;

let checker: TypeChecker;
/** Tenant B's real project directory and file. */
let bDir: string;
let bSdk: string;

beforeAll(async () => {
  checker = createNativeChecker();
  await checker.warmup(TENANT_A);
  await checker.warmup(TENANT_B);
  expect(drawn).toHaveLength(2);
  bDir = drawn[1] ?? '';
  bSdk = `/isocode/${bDir}/sdk.d.ts`;
});

afterAll(async () => {
  await checker.close();
});

function expectNoLeak(diags: Diagnostic[]): void {
  expect(diags.length).toBeGreaterThan(0);
  for (const d of diags) {
    expect(d.message).not.toMatch(LEAK);
    expect(d.message).not.toMatch(/[0-9a-f]{32}/);
  }
}

describe('tenants apart in one checker', () => {
  it('tenant B can use its SDK; tenant A cannot call B tools', async () => {
    await expect(
      checker.check('await tools.bravo_secret_export({ vault: "v", pin: 1 });', TENANT_B),
    ).resolves.toEqual([]);
    const diags = await checker.check('await tools.bravo_secret_export({});', TENANT_A);
    expect(diags.map((d) => d.code)).toEqual([2339]);
  });

  const probes = (): Array<[string, string]> => [
    [
      'import type, guessed sequential path',
      "type B = typeof import('/isocode/p1/sdk.d.ts');\nconst n: number = null as unknown as B;",
    ],
    [
      'import type, real path',
      `type B = typeof import('${bSdk}');\nconst n: number = null as unknown as B;`,
    ],
    [
      'import type, relative path',
      `type B = typeof import('../../${bDir}/sdk.d.ts');\nconst n: number = null as unknown as B;`,
    ],
    [
      'import type in a template literal type',
      `type B = \`\${keyof typeof import('${bSdk}')}\`;\nconst n: number = "" as B;`,
    ],
    [
      'import type written with a Unicode escape',
      `type B = typeof \\u0069mport('${bSdk}');\nconst n: number = null as unknown as B;`,
    ],
    ['dynamic import expression', `const m = await import('${bSdk}');\nconst n: number = m;`],
    ['import x = require()', `import b = require('${bSdk}');\nconst n: number = b;`],
    ['static import declaration', `import * as b from '${bSdk}';\nconst n: number = b;`],
    ['export from', `export * from '${bSdk}';`],
    [
      'triple-slash path reference (sequential guess)',
      '/// <reference path="../p0/sdk.d.ts" />\nawait tools.bravo_secret_export({});',
    ],
    [
      'triple-slash path reference (real path)',
      `/// <reference path="${bSdk}" />\nawait tools.bravo_secret_export({});`,
    ],
    ['triple-slash types reference', `/// <reference types="${bSdk}" />\nconst t: number = tools;`],
    [
      'import() spread into an array',
      `const all = [...import('${bSdk}')];\nconst n: number = all;`,
    ],
    ['import() after a division', `const n: number = 1 / 2 / import('${bSdk}');`],
    [
      'import() between divisions after a postfix increment (029)',
      `let i = 0;\nconst n: number = i++ / import('${bSdk}') / 1;`,
    ],
    [
      'declare module',
      `declare module '${bSdk}' { export const leak: Tools; }\nconst n: number = tools;`,
    ],
  ];

  it.each(Array.from({ length: 16 }, (_, i) => i))(
    'refuses probe %i by name, with one diagnostic, and reveals nothing of tenant B',
    async (index) => {
      const [name, program] = probes()[index] ?? ['', ''];
      const diags = await checker.check(program, TENANT_A);
      expectNoLeak(diags);
      expect(diags, name).toHaveLength(1);
      expect(diags[0]?.message).toContain('run_code program');
      expect(diags[0]?.message).toContain('Call tools through the global `tools` object');
    },
  );

  it('a / right after `of` is refused, not guessed: nothing hidden between two `of /` reaches the checker (029)', async () => {
    for (const program of [
      `const of = 2;\nconst x = of / 1;\ntype T = typeof import('${bSdk}');\nconst y = of / 1;\nconst n: number = x;`,
      `const of = 2;\nconst x = of / 1 + ${'['.repeat(400)}${']'.repeat(400)}.length + of / 1;`,
    ]) {
      const diags = await checker.check(program, TENANT_A);
      expectNoLeak(diags);
      expect(diags).toHaveLength(1);
      expect(diags[0]?.message).toContain('right after `of` is ambiguous');
    }
    // A regular expression or a division after `of` in parentheses is fine.
    await expect(
      checker.check(
        'const of = 4;\nconst n: number = (of) / 2;\nfor (const m of (/a/.exec("a") ?? [])) n.toFixed(m.length);',
        TENANT_A,
      ),
    ).resolves.toEqual([]);
  });

  it('types in comments are not resolved, and show nothing of tenant B', async () => {
    const diags = await checker.check(
      `/** @type {typeof import('${bSdk}')} */\nconst x = 1;\nconst y: string = x;`,
      TENANT_A,
    );
    expectNoLeak(diags);
    expect(diags.map((d) => [d.code, d.line])).toEqual([[2322, 3]]);
  });

  it('the word import in strings, comments, regular expressions and property names is fine', async () => {
    const program = [
      '// import("x") and /// in the middle are just comments',
      'const src = "import x from \'y\'; export {};";',
      'const tpl = `import(${src.length}) /// <reference path="a" />`;',
      'const o = { import: 1, export: 2, module: "m" };',
      "const re = /import\\('[^']*'\\)/;",
      'return [re.test(src), o.import + o.export, tpl, o.module];',
    ].join('\n');
    await expect(checker.check(program, TENANT_A)).resolves.toEqual([]);
  });

  it('never prints a project directory, even in internal messages about the SDK', async () => {
    // The compiler names the SDK file by its full path here ("File '/isocode/<dir>/sdk.d.ts' is not a module").
    const broken: SdkSource = {
      hash: 'broken',
      text: `${PRELUDE}interface Tools { x: typeof import("./sdk") }\ndeclare const tools: Tools;\n`,
    };
    const diags = await checker.check('return 1;', broken);
    expect(diags.map((d) => d.message)).toEqual([
      "Internal error in the tool SDK (sdk.d.ts line 3, col 36), not in your program: File 'sdk.d.ts' is not a module.",
    ]);
  });

  it('does not let a refused program reach the compiler (tenant B still works)', async () => {
    await expect(
      checker.check('await tools.bravo_secret_export({ vault: "v", pin: 2 });', TENANT_B),
    ).resolves.toEqual([]);
  });
});
