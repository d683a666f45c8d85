/** The isolate-side sources: type-checked under their own tsconfig, compiled with oxc, named without host paths. */
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  compileIsolateModules,
  ENTRY_SPECIFIER,
  findIsolateSourceDir,
} from '../../src/sandbox/isolate-code.js';

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
      expect(m.filename).toMatch(/^isocode:isolate\/[a-z-]+\.js$/);
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
