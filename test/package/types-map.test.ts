/**
 * package.json's type map, as each TypeScript module resolution reads it: a consumer importing
 * every entry is compiled (TypeScript's compiler API) against an installed copy of package.json
 * whose declaration files are stubs naming their entry, so a missing or crossed mapping fails.
 * `node10` (TypeScript's `node`, still the default of `module: commonjs` projects) ignores
 * `exports` and reads `types` and `typesVersions`; `node16` and `bundler` read `exports`.
 * The real declarations are compiled the same way from the packed tarball (install.pack.ts).
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from './helpers.js';

interface Pkg {
  types: string;
  exports: Record<string, string | Record<string, Record<string, string>>>;
  typesVersions?: Record<string, Record<string, string[]>>;
}

const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as Pkg;
const entries = Object.keys(pkg.exports).filter((k) => k !== './package.json');
const specifier = (entry: string): string =>
  entry === '.' ? 'isocode' : `isocode${entry.slice(1)}`;

let app: string;
beforeAll(() => {
  app = mkdtempSync(join(tmpdir(), 'isocode-types-'));
  const installed = join(app, 'node_modules', 'isocode');
  mkdirSync(installed, { recursive: true });
  writeFileSync(join(installed, 'package.json'), JSON.stringify(pkg));
  // Every declaration file the map names, each saying which entry it is.
  const stub = (file: string, entry: string): void => {
    const path = join(installed, file);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, `export declare const entry: ${JSON.stringify(entry)};\n`);
  };
  stub(pkg.types, '.');
  for (const entry of entries) {
    const conditions = pkg.exports[entry];
    if (typeof conditions !== 'object') continue;
    for (const c of Object.values(conditions)) if (c.types !== undefined) stub(c.types, entry);
  }
  for (const map of Object.values(pkg.typesVersions ?? {}))
    for (const [sub, targets] of Object.entries(map))
      for (const target of targets) stub(target, `./${sub}`);
  const imports = entries.map((e, i) => `import { entry as e${i} } from '${specifier(e)}';`);
  const tuple = entries.map((e) => JSON.stringify(e)).join(', ');
  writeFileSync(
    join(app, 'consumer.ts'),
    `${imports.join('\n')}\nexport const all: [${tuple}] = [${entries.map((_, i) => `e${i}`).join(', ')}];\n`,
  );
  writeFileSync(join(app, 'package.json'), '{ "name": "app", "private": true }\n');
});
afterAll(() => {
  if (app) rmSync(app, { recursive: true, force: true });
});

/** The diagnostics of compiling the consumer, as text. */
function compile(options: ts.CompilerOptions): string[] {
  const program = ts.createProgram([join(app, 'consumer.ts')], {
    strict: true,
    noEmit: true,
    types: [],
    skipLibCheck: true,
    lib: ['lib.es2022.d.ts'],
    ...options,
  });
  return ts
    .getPreEmitDiagnostics(program)
    .map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
}

describe("package.json's type map", () => {
  it('lists every subpath of exports (all nine entries)', () => {
    expect(entries).toEqual([
      '.',
      './testing',
      './sources',
      './server',
      './mcp',
      './durable',
      './ai',
      './openai-agents',
      './langchain',
    ]);
  });

  it('moduleResolution node10 (module commonjs) finds every entry, each its own file', () => {
    expect(
      compile({ module: ts.ModuleKind.CommonJS, moduleResolution: ts.ModuleResolutionKind.Node10 }),
    ).toEqual([]);
  });

  it('node16 and bundler find every entry through exports', () => {
    expect(
      compile({ module: ts.ModuleKind.Node16, moduleResolution: ts.ModuleResolutionKind.Node16 }),
    ).toEqual([]);
    expect(
      compile({ module: ts.ModuleKind.ESNext, moduleResolution: ts.ModuleResolutionKind.Bundler }),
    ).toEqual([]);
  });
});
