/** The isolate-side sources: type-checked under their own tsconfig, compiled with oxc, named without host paths, linked into one script. */
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ivm from 'isolated-vm';
import { describe, expect, it } from 'vitest';
import {
  compileIsolateModules,
  ENTRY_SPECIFIER,
  findIsolateSourceDir,
  loadBootstrapScript,
  type IsolateModuleSource,
} from '../../src/sandbox/isolate-code.js';
import { linkIsolateScript } from '../../src/sandbox/isolate-link.js';

const root = fileURLToPath(new URL('../../', import.meta.url));

describe('isolate sources', () => {
  it(
    'type-check under sdk-templates/isolate/tsconfig.json (ES2022, no Node types)',
    { timeout: 60_000 },
    () => {
      const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
      const result = spawnSync(
        process.execPath,
        [tsc, '-p', join(root, 'sdk-templates', 'isolate', 'tsconfig.json')],
        { encoding: 'utf8' },
      );
      expect(result.stdout + result.stderr).toBe('');
      expect(result.status).toBe(0);
    },
  );

  it('compile to ES modules named isocode:isolate/*, with the bootstrap entry', async () => {
    const modules = await compileIsolateModules(findIsolateSourceDir());
    expect(modules.map((m) => m.specifier)).toContain(ENTRY_SPECIFIER);
    for (const m of modules) {
      expect(m.filename).toMatch(/^isocode:isolate\/[a-z0-9-]+\.js$/);
      expect(m.code).not.toMatch(/:\s*(string|number|unknown)\b[,)=;]/); // types are gone
    }
  });

  it('refuse a source that does not compile, or a directory without bootstrap.ts', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'isocode-isolate-'));
    try {
      await writeFile(join(dir, 'other.ts'), 'export const x: number = 1;\n');
      await expect(compileIsolateModules(dir)).rejects.toMatchObject({ code: 'INVALID_CONFIG' });
      await writeFile(join(dir, 'bootstrap.ts'), 'export const = ;\n');
      await expect(compileIsolateModules(dir)).rejects.toMatchObject({
        code: 'INVALID_CONFIG',
        message: expect.stringContaining('bootstrap.ts') as string,
      });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('the linked bootstrap script', () => {
  const source = (file: string, code: string): IsolateModuleSource => ({
    specifier: `./${file}.js`,
    filename: `isocode:isolate/${file}.js`,
    code,
  });

  it('links the isolate modules into one script that compiles and completes with the entry', async () => {
    const script = await loadBootstrapScript();
    expect(script.filename).toBe('isocode:isolate/bootstrap.js');
    expect(script.code).not.toMatch(/^\s*(import|export)\b/m);
    const isolate = new ivm.Isolate({ memoryLimit: 16 });
    try {
      const context = await isolate.createContext();
      const entry = (await isolate
        .compileScriptSync(script.code, { filename: script.filename })
        .run(context, { reference: true })) as ivm.Reference<unknown>;
      expect(entry.typeof).toBe('function');
      // The entry locked the context down.
      expect(
        await context.eval('[typeof WebAssembly, typeof SharedArrayBuffer]', { copy: true }),
      ).toEqual(['undefined', 'undefined']);
      entry.release();
      context.release();
    } finally {
      isolate.dispose();
    }
  });

  it('links imports (renamed too) in dependency order', async () => {
    const code = linkIsolateScript(
      [
        source(
          'main',
          'import { twice as double, one } from "./lib.js";\nexport function go() {\n  return double(one);\n}',
        ),
        source('lib', 'export const one = 1;\nexport function twice(x) {\n  return 2 * x;\n}'),
      ],
      './main.js',
      'go',
    );
    const isolate = new ivm.Isolate({ memoryLimit: 16 });
    try {
      const context = await isolate.createContext();
      const value: unknown = await context.eval(code, { copy: true });
      expect(value).toBe(2);
    } finally {
      isolate.dispose();
    }
  });

  it('refuses module syntax outside the supported subset, cycles, unknown modules and names', () => {
    const refused = [
      [source('main', 'export default function go() {}')],
      [
        source('main', 'import * as lib from "./lib.js";\nexport function go() {}'),
        source('lib', 'export const a = 1;'),
      ],
      [source('main', 'export { go };\nfunction go() {}')],
      [
        source('main', 'import { a } from "./lib.js";\nexport function go() {}'),
        source('lib', 'import { go } from "./main.js";\nexport const a = 1;'),
      ],
      [source('main', 'import { a } from "./missing.js";\nexport function go() {}')],
      [
        source('main', 'import { b } from "./lib.js";\nexport function go() {}'),
        source('lib', 'export const a = 1;'),
      ],
      [source('main', 'export function other() {}')],
    ];
    for (const modules of refused) {
      expect(() => linkIsolateScript(modules, './main.js', 'go')).toThrow(
        expect.objectContaining({ code: 'INVALID_CONFIG' }) as Error,
      );
    }
  });
});
