/**
 * The package as published: pack the built package, install the tarball into a fresh app (default
 * "type": "commonjs", with a "type": "module" folder inside), and use it the ways a user does.
 * Needs `npm run build` first (CI: .ci/node-matrix runs it per Node line).
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { must, ROOT, run } from './helpers.js';

const SUBPATHS = ['isocode', 'isocode/testing', 'isocode/sources', 'isocode/server', 'isocode/mcp'];

let tmp: string;
let app: string;
let esm: string;
let listing: string[];

beforeAll(() => {
  if (!existsSync(join(ROOT, 'dist', 'index.cjs')))
    throw new Error('dist/ is missing or stale: run `npm run build` before the package test');
  tmp = mkdtempSync(join(tmpdir(), 'isocode-pack-'));
  const packed = must('npm', ['pack', '--ignore-scripts', '--pack-destination', tmp], ROOT);
  const tarball = join(tmp, packed.stdout.trim().split('\n').pop() ?? '');
  listing = must('tar', ['-tzf', tarball], tmp).stdout.trim().split('\n');
  app = join(tmp, 'app');
  esm = join(app, 'esm');
  mkdirSync(esm, { recursive: true });
  writeFileSync(
    join(app, 'package.json'),
    '{ "name": "app", "version": "1.0.0", "private": true }\n',
  );
  writeFileSync(join(esm, 'package.json'), '{ "type": "module" }\n');
  must('npm', ['install', '--no-audit', '--no-fund', tarball], app, 900_000);
});

afterAll(() => {
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

describe('the tarball', () => {
  it('ships the license, the examples, both builds and the launcher, and no sources', () => {
    for (const file of [
      'LICENSE',
      'README.md',
      'examples/hello.ts',
      'dist/index.js',
      'dist/index.cjs',
      'dist/index.d.ts',
      'dist/index.d.cts',
      'bin/isocode.js',
      'bin/check-node.cjs',
    ])
      expect(listing).toContain(`package/${file}`);
    expect(listing.filter((f) => /^package\/(src|test|benchmarks)\//.test(f))).toEqual([]);
  });
});

describe('the installed package', () => {
  it('imports every subpath as ESM', () => {
    const code = `${SUBPATHS.map((s, i) => `import * as m${i} from '${s}';`).join('\n')}
console.log([${SUBPATHS.map((_, i) => `Object.keys(m${i}).length`).join(', ')}].join(' '));`;
    const out = must('node', ['--input-type=module', '-e', code], app);
    for (const n of out.stdout.trim().split(' ')) expect(Number(n)).toBeGreaterThan(0);
  });

  it('requires every subpath as CommonJS', () => {
    const code = `console.log(${JSON.stringify(SUBPATHS)}.map((s) => Object.keys(require(s)).length).join(' '))`;
    const out = must('node', ['-e', code], app);
    for (const n of out.stdout.trim().split(' ')) expect(Number(n)).toBeGreaterThan(0);
  });

  it('runs a program in an isolate from CommonJS, and answers a provider wire name', () => {
    const code = `
const { createRuntime, defineTool, fromOpenAiToolCall } = require('isocode');
(async () => {
  const add = defineTool({
    name: 'math.add', description: 'Adds.',
    input: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } } },
    execute: (args) => ({ sum: args.a + args.b }),
  });
  const rt = await createRuntime({ tools: [add], scopes: { default: { mode: 'both' } }, codeMode: {} });
  const wire = rt.wireTools('openai').map((t) => t.function.name);
  const direct = await rt.execute(fromOpenAiToolCall({ id: 'c1', type: 'function',
    function: { name: 'math__add', arguments: '{"a":1,"b":2}' } }));
  const program = await rt.execute({ name: 'run_code',
    args: { description: 'add', code: 'return await tools.math.add({ a: 2, b: 3 });' } });
  console.log(JSON.stringify({ wire, direct: direct.ok && direct.value, program: program.ok && program.value.result }));
  await rt.close();
})();`;
    const out = must('node', ['--no-node-snapshot', '-e', code], app);
    expect(JSON.parse(out.stdout)).toEqual({
      wire: ['run_code', 'math__add'],
      direct: { sum: 3 },
      program: { sum: 5 },
    });
  });

  it('npx isocode --help, run examples/hello.ts (shipped) and sdk work', () => {
    expect(must('npx', ['isocode', '--help'], app).stdout).toContain('run');
    const hello = must('npx', ['isocode', 'run', 'examples/hello.ts'], app);
    expect(hello.stdout.length).toBeGreaterThan(0);
    expect(must('npx', ['isocode', 'sdk'], app).stdout).toContain('word_count');
  });

  it.each(['node10', 'node16', 'bundler'] as const)(
    'a TypeScript consumer with moduleResolution %s type-checks against every entry',
    (resolution) => {
      const dir = mkdtempSync(join(app, `types-${resolution}-`));
      writeFileSync(
        join(dir, 'consumer.ts'),
        `import { createRuntime, type Runtime } from 'isocode';
import { scriptedRunner } from 'isocode/testing';
import { mcpTools, type McpStdioOptions } from 'isocode/sources';
import { startHttpServer, type HttpServerOptions } from 'isocode/server';
import { createMcpServer } from 'isocode/mcp';
export const used = [createRuntime, scriptedRunner, mcpTools, startHttpServer, createMcpServer];
export type Used = [Runtime, McpStdioOptions, HttpServerOptions];
const wrong: Parameters<typeof mcpTools>[0]['name'] = 1;
`,
      );
      const module =
        resolution === 'node10' ? 'commonjs' : resolution === 'node16' ? 'node16' : 'esnext';
      const ran = run(
        process.execPath,
        [
          join(ROOT, 'node_modules/typescript/bin/tsc'),
          '--noEmit',
          '--strict',
          '--skipLibCheck',
          '--types',
          'node',
          '--typeRoots',
          join(ROOT, 'node_modules/@types'),
          '--module',
          module,
          '--moduleResolution',
          resolution,
          'consumer.ts',
        ],
        dir,
      );
      // Exactly the one planted error: every import resolved to real declarations.
      expect(ran.stdout.trim().split('\n')).toEqual([
        expect.stringMatching(
          /consumer\.ts\(8,7\): error TS2322: Type 'number' is not assignable to type 'string'/,
        ),
      ]);
    },
  );

  it('isocode bench says it is a development command', () => {
    const bench = run('npx', ['isocode', 'bench', '--quick'], app);
    expect(bench.status).toBe(2);
    expect(bench.stderr).toContain('source checkout');
  });

  // Tools modules of every extension, in a "commonjs" and a "module" folder, importing from isocode.
  const esmBody = (name: string): string => `import { defineTool } from 'isocode';
export const tools = [defineTool({ name: '${name}', description: 'd', input: { type: 'object' }, execute: () => 1 })];
`;
  const cjsBody = (name: string): string => `const { defineTool } = require('isocode');
module.exports = { tools: [defineTool({ name: '${name}', description: 'd', input: { type: 'object' }, execute: () => 1 })] };
`;
  const cases: [folder: 'commonjs' | 'module', ext: string, body: (n: string) => string][] = [
    ['commonjs', '.ts', esmBody],
    ['commonjs', '.mts', esmBody],
    ['commonjs', '.cts', esmBody],
    ['commonjs', '.js', cjsBody],
    ['module', '.ts', esmBody],
    ['module', '.mts', esmBody],
    ['module', '.cts', esmBody],
    ['module', '.js', esmBody],
  ];
  it.each(cases)('loads a %s %s tools module that imports isocode', (folder, ext, body) => {
    const dir = folder === 'module' ? esm : app;
    const name = `t${ext.slice(1)}.${folder}`;
    const file = join(dir, `tools-${folder}${ext}`);
    writeFileSync(file, body(name));
    const sdk = must('npx', ['isocode', 'sdk', '--tools', file], dir);
    expect(sdk.stdout).toContain(`t${ext.slice(1)}`);
    expect(sdk.stdout).toContain(folder);
  });
});
