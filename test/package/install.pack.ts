/**
 * The package as published: pack the built package, install the tarball into a fresh app (default
 * "type": "commonjs", with a "type": "module" folder inside), and use it the ways a user does.
 * Needs `npm run build` first (CI: .ci/node-matrix runs it per Node line).
 */
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { moduleCases } from '../support/tools-module-forms.js';
import { appCommands, appTsBlocks, linkFromRepo, typecheckBlocks } from './doc-snippets.js';
import { bundledPackages } from '../../scripts/third-party-notices.js';
import { must, ROOT, run } from './helpers.js';

const SUBPATHS = [
  'isocode',
  'isocode/testing',
  'isocode/sources',
  'isocode/server',
  'isocode/mcp',
  'isocode/durable',
];

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

  it("ships the license of every package bundled into dist/ (TypeScript 7's client among them)", () => {
    expect(listing).toContain('package/dist/THIRD_PARTY_NOTICES.md');
    const notices = readFileSync(join(ROOT, 'dist', 'THIRD_PARTY_NOTICES.md'), 'utf8');
    // What the build bundled, by the packages' own manifests (typescript-native is the alias of
    // typescript@7; the JSON-RPC library it vendors has its own).
    const bundled = bundledPackages(ROOT).map((p) => p.name);
    expect(bundled).toEqual(expect.arrayContaining(['p-queue', 'typescript', 'vscode-jsonrpc']));
    for (const pkg of bundledPackages(ROOT))
      expect(notices, pkg.name).toContain(`## ${pkg.name} ${pkg.version} (`);
    expect(notices).toMatch(/^## typescript 7\.0\.2 \(Apache-2\.0\)$/m);
    expect(notices).toContain('### NOTICE.txt');
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
    // The tokenizer is an optional peer: not installed with the package, and its absence is said.
    expect(existsSync(join(app, 'node_modules/gpt-tokenizer'))).toBe(false);
    const stats = must('npx', ['isocode', 'sdk', '--stats'], app);
    expect(stats.stdout).toContain('tokens: estimated from characters; npm install gpt-tokenizer');
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

  // TypeScript 7's API client is bundled and its binary comes from the platform package (decision
  // 038): the app gets no `typescript` package and no `tsc` link that would shadow its own.
  it("links no tsc into the app's node_modules/.bin and installs no typescript package", () => {
    expect(existsSync(join(app, 'node_modules/.bin/tsc'))).toBe(false);
    expect(existsSync(join(app, 'node_modules/typescript'))).toBe(false);
    const platform = `@typescript/typescript-${process.platform}-${process.arch}`;
    expect(existsSync(join(app, 'node_modules', platform, 'package.json'))).toBe(true);
  });

  it("without the compiler's platform package, checking names it in one line and --no-typecheck runs", () => {
    const platform = join(
      app,
      'node_modules',
      `@typescript/typescript-${process.platform}-${process.arch}`,
    );
    renameSync(platform, `${platform}.aside`);
    try {
      for (const command of [
        ['run', 'examples/hello.ts'],
        ['check', 'examples/hello.ts'],
      ]) {
        // A start that fails exits: the runtime closes its sandbox worker (seen hanging before).
        const r = run('npx', ['isocode', ...command], app, 60_000);
        expect(r.status, command[0]).toBe(2);
        expect(r.stderr, command[0]).toContain('DEPENDENCY_MISSING');
        expect(r.stderr, command[0]).toContain(
          `npm install @typescript/typescript-${process.platform}-${process.arch}@7.0.2`,
        );
      }
      expect(
        must('npx', ['isocode', 'run', '--no-typecheck', 'examples/hello.ts'], app).stdout,
      ).toContain('Hello From Isocode');
    } finally {
      renameSync(`${platform}.aside`, platform);
    }
  });

  it('isocode bench says it is a development command', () => {
    const bench = run('npx', ['isocode', 'bench', '--quick'], app);
    expect(bench.status).toBe(2);
    expect(bench.stderr).toContain('source checkout');
  });

  it("without isolated-vm's native addon (installed with --ignore-scripts), the CLI names the fix in one line", () => {
    // What `npm install --ignore-scripts` leaves: isolated-vm without its built addon. Every place
    // an isolated-vm line loads it from (5.x: out/; 6.1+: node-gyp-build's build/ and prebuilds/) is
    // moved aside for this test only (tests in a file run one after another) and put back.
    const pkg = join(app, 'node_modules/isolated-vm');
    const moved = ['out', 'build', 'prebuilds']
      .map((d) => join(pkg, d))
      .filter((d) => existsSync(d));
    expect(moved.length).toBeGreaterThan(0);
    for (const d of moved) renameSync(d, `${d}.aside`);
    try {
      const r = run('npx', ['isocode', 'run', 'examples/hello.ts'], app);
      expect(r.status).toBe(1);
      expect(r.stderr).toContain("isolated-vm's native addon is missing");
      expect(r.stderr).toContain('npm rebuild isolated-vm');
      expect(r.stderr).not.toMatch(/\n\s+at /);
    } finally {
      for (const d of moved) renameSync(`${d}.aside`, d);
    }
    expect(run('npx', ['isocode', '--version'], app).status).toBe(0);
  });

  // A lean install (decision record 038): the optional peers (tsx, pg, the OpenAPI reader,
  // OpenTelemetry) are not installed by `npm install isocode`. The faces' packages (the MCP SDK, the
  // HTTP stack) and the embedded store's driver are, but loaded only when used: moved aside here,
  // what needs one says so in one line and the rest works without it.
  it('installs no optional peer, and a feature that needs one names the install command', () => {
    for (const peer of ['tsx', 'pg', '@apidevtools/json-schema-ref-parser', '@opentelemetry/api'])
      expect(existsSync(join(app, 'node_modules', peer)), peer).toBe(false);
    writeFileSync(
      join(app, 'ts-tools.ts'),
      "export const tools = [{ name: 'a.b', description: 'b', input: { type: 'object' }, execute: () => 1 }];\n",
    );
    const sdk = run('npx', ['isocode', 'sdk', '--tools', 'ts-tools.ts'], app);
    expect(sdk.status).toBe(2);
    expect(sdk.stderr).toContain('DEPENDENCY_MISSING');
    expect(sdk.stderr).toContain('npm install tsx');
    expect(sdk.stderr).not.toMatch(/\n\s+at /);
    const code = `
const { createRuntime, isIsocodeError } = require('isocode');
const { createDurableRuntime, instrument } = require('isocode/durable');
const { openApiTools } = require('isocode/sources');
(async () => {
  const out = [];
  const rt = await createDurableRuntime({ tools: [], store: { url: 'postgres://127.0.0.1:1/none' } }).catch((e) => e);
  out.push(isIsocodeError(rt) ? rt.code + ' ' + rt.message : 'opened');
  const plain = await createRuntime({ tools: [] });
  try { instrument(plain); out.push('traced'); } catch (e) { out.push(isIsocodeError(e) ? e.code + ' ' + e.message : String(e)); }
  await plain.close();
  const spec = await openApiTools({ name: 'api', spec: 'file:///nowhere.json' }).catch((e) => e);
  out.push(isIsocodeError(spec) ? spec.code + ' ' + spec.message : 'loaded');
  console.log(JSON.stringify(out));
})();`;
    const out = JSON.parse(must('node', ['-e', code], app).stdout) as string[];
    expect(out[0]).toMatch(/^DEPENDENCY_MISSING .*npm install pg$/);
    expect(out[1]).toMatch(/^DEPENDENCY_MISSING .*npm install @opentelemetry\/api$/);
    expect(out[2]).toMatch(
      /^DEPENDENCY_MISSING .*npm install @apidevtools\/json-schema-ref-parser$/,
    );
  });

  it("without the faces' packages, the library and isocode run work; serve and mcp name what to install", () => {
    const optional = ['@modelcontextprotocol/sdk', 'hono', '@hono/node-server', 'better-sqlite3']
      .map((d) => join(app, 'node_modules', d))
      .filter((d) => existsSync(d));
    expect(optional.length).toBeGreaterThanOrEqual(3);
    for (const d of optional) renameSync(d, `${d}.aside`);
    try {
      expect(must('npx', ['isocode', 'run', 'examples/hello.ts'], app).stdout).toContain(
        'Hello From Isocode',
      );
      for (const [face, hint] of [
        [['serve', '--port', '0'], 'npm install hono @hono/node-server'],
        [['mcp'], 'npm install @modelcontextprotocol/sdk'],
      ] as const) {
        const r = run('npx', ['isocode', ...face], app);
        expect(r.status, face[0]).toBe(2);
        expect(r.stderr, face[0]).toContain('DEPENDENCY_MISSING');
        expect(r.stderr, face[0]).toContain(hint);
      }
      const code = `import { mcpTools, loadModuleTools } from 'isocode/sources';
import { createMcpServer, serveMcpHttp } from 'isocode/mcp';
const e = await mcpTools({ name: 'up', server: { command: 'true' } }).catch((e) => e);
console.log(JSON.stringify([typeof loadModuleTools, e.code, e.message]));`;
      // isocode/mcp needs the MCP SDK itself; isocode/sources loads without it.
      const sources = run('node', ['--input-type=module', '-e', code], app);
      expect(sources.status).not.toBe(0);
      expect(sources.stderr).toContain("Cannot find package '@modelcontextprotocol/sdk'");
      const onlySources = must(
        'node',
        ['--input-type=module', '-e', code.replace(/^import \{ createMcpServer.*$/m, '')],
        app,
      );
      const [loader, errorCode, message] = JSON.parse(onlySources.stdout) as string[];
      expect(loader).toBe('function');
      expect(errorCode).toBe('DEPENDENCY_MISSING');
      expect(message).toContain('npm install @modelcontextprotocol/sdk');
    } finally {
      for (const d of optional) renameSync(`${d}.aside`, d);
    }
  });

  // Tools modules in every form (default export, named `tools`, `{ tools }`, module.exports, ...),
  // every extension, in the "commonjs" app and its "module" folder, each importing isocode: all
  // written once and loaded by one CommonJS and one ES module process.
  it('loads every form of tools module, from CommonJS and from ESM', () => {
    // TypeScript modules need tsx, an optional peer the app installs (decision 038).
    must('npm', ['install', '--no-audit', '--no-fund', 'tsx'], app, 300_000);
    const cases = moduleCases();
    const files: Record<string, string> = {};
    for (const c of cases) {
      const folder = join(c.project === 'module' ? esm : app, 'forms');
      mkdirSync(folder, { recursive: true });
      files[c.toolName] = join(folder, c.file);
      writeFileSync(files[c.toolName]!, c.source({ isocode: true }));
    }
    const load = `async (loadModuleTools, files) => {
  const out = {};
  for (const [name, file] of Object.entries(files)) {
    try {
      const tools = await loadModuleTools(file);
      out[name] = await Promise.all(tools.map(async (t) => [t.name, await t.execute({}, {})]));
    } catch (error) {
      out[name] = String(error && error.message);
    }
  }
  console.log(JSON.stringify(out));
}`;
    writeFileSync(
      join(app, 'load-forms.cjs'),
      `const { loadModuleTools } = require('isocode/sources');\n(${load})(loadModuleTools, JSON.parse(process.argv[2]));\n`,
    );
    writeFileSync(
      join(esm, 'load-forms.mjs'),
      `import { loadModuleTools } from 'isocode/sources';\nawait (${load})(loadModuleTools, JSON.parse(process.argv[2]));\n`,
    );
    const expected = Object.fromEntries(cases.map((c) => [c.toolName, [[c.toolName, c.toolName]]]));
    for (const driver of [join(app, 'load-forms.cjs'), join(esm, 'load-forms.mjs')]) {
      const out = must('node', [driver, JSON.stringify(files)], app);
      expect(JSON.parse(out.stdout), driver).toEqual(expected);
    }
    // And through the CLI: the default export of a .cts (compiled to module.exports.default).
    for (const name of ['commonjs.cts.default', 'module.cts.default']) {
      const sdk = must('npx', ['isocode', 'sdk', '--tools', files[name]!], app);
      expect(sdk.stdout).toContain('cts');
    }
  });

  // The provider type test (test/providers/sdk-types.test.ts) against the shipped declarations:
  // dist/index.d.ts from the "module" folder, dist/index.d.cts from the "commonjs" app. The SDKs
  // and @types/node are the repository's (a TypeScript user's project has its own).
  it('the provider types match the official SDKs through the shipped .d.ts and .d.cts', () => {
    linkFromRepo(app, ['openai', '@anthropic-ai/sdk', '@types/node']);
    const fixture = readFileSync(join(ROOT, 'test/fixtures/provider-types/sdk-types.ts'), 'utf8');
    const source = fixture.replace("'../../../src/index.js'", "'isocode'");
    expect(source).not.toBe(fixture);
    const files = [join(esm, 'sdk-types.ts'), join(app, 'sdk-types.ts')];
    for (const file of files) writeFileSync(file, source);
    const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
    const flags = [
      '--strict',
      '--noEmit',
      '--module',
      'nodenext',
      '--moduleResolution',
      'nodenext',
    ];
    for (const file of files) {
      const out = run('node', [tsc, ...flags, '--target', 'es2022', '--skipLibCheck', file], app);
      expect(out.stdout + out.stderr, file).toBe('');
      expect(out.status).toBe(0);
    }
  });

  // The docs' app-side blocks from the tarball (test/package/doc-snippets.ts). After the tools-module
  // forms test, which installs tsx (the TypeScript blocks run through it, as a reader's would).
  it('every app-side doc block type-checks against the installed package and runs; every doc command runs', () => {
    linkFromRepo(app, ['openai', '@anthropic-ai/sdk', '@types/node']);
    const blocks = appTsBlocks(false);
    expect(blocks.length).toBeGreaterThan(3);
    const { files, problems } = typecheckBlocks(esm, blocks);
    expect(problems).toEqual([]);
    blocks.forEach((block, i) => {
      if (!block.runs) return;
      const out = run('node', ['--no-node-snapshot', '--import', 'tsx', files[i]!], esm);
      expect({ where: block.where, status: out.status, stderr: out.stderr }).toMatchObject({
        status: 0,
      });
    });
    const commands = appCommands();
    expect(commands.length).toBeGreaterThan(2);
    for (const { where, args } of commands) {
      const out = run('npx', ['isocode', ...args], app);
      expect({ where, args: args.join(' '), status: out.status, stderr: out.stderr }).toMatchObject(
        {
          status: 0,
        },
      );
    }
  });
});
