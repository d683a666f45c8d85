/**
 * Loads the isolate-side TypeScript (`sdk-templates/isolate/*.ts`) and strips its types with
 * oxc-transform, once per process. The modules keep their ES `import`s: each isolate compiles them
 * with `compileModule` and links them among themselves (see `sandbox-isolate.ts`), so no bundler
 * and no text rewriting are involved. The files are type-checked by
 * `sdk-templates/isolate/tsconfig.json` (ES2022, no Node types).
 */
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { transformSync } from 'oxc-transform';
import { IsocodeError } from '../errors.js';
import { MODULE_PREFIX } from '../../sdk-templates/isolate/protocol.js';

/** One compiled isolate module. */
export interface IsolateModuleSource {
  /** How other modules import it, e.g. `./bridge.js`. */
  specifier: string;
  /** Its name in isolate stacks, e.g. `isocode:isolate/bridge.js` (never a host path). */
  filename: string;
  /** ES2022 JavaScript. */
  code: string;
}

/** The specifier of the entry module. */
export const ENTRY_SPECIFIER = './bootstrap.js';

/** Finds `sdk-templates/isolate` from this file, in the source tree or in a built package. */
export function findIsolateSourceDir(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    const candidate = join(dir, 'sdk-templates', 'isolate');
    if (existsSync(join(candidate, 'bootstrap.ts'))) return candidate;
    const parent = dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  throw new IsocodeError(
    'INVALID_CONFIG',
    'cannot find sdk-templates/isolate next to the isocode package',
  );
}

/** Compiles every module of `dir` (`*.ts`, not `.d.ts` nor tests). */
export async function compileIsolateModules(
  dir: string = findIsolateSourceDir(),
): Promise<IsolateModuleSource[]> {
  const files = (await readdir(dir))
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts') && !f.endsWith('.test.ts'))
    .sort();
  const out: IsolateModuleSource[] = [];
  for (const file of files) {
    const source = await readFile(join(dir, file), 'utf8');
    const result = transformSync(file, source, {
      lang: 'ts',
      sourceType: 'module',
      target: 'es2022',
    });
    if (result.errors.length > 0) {
      const first = result.errors[0];
      throw new IsocodeError(
        'INVALID_CONFIG',
        `isolate module ${file} does not compile: ${first?.message ?? 'unknown error'}`,
      );
    }
    const base = file.slice(0, -'.ts'.length);
    out.push({
      specifier: `./${base}.js`,
      filename: `${MODULE_PREFIX}${base}.js`,
      code: result.code,
    });
  }
  if (!out.some((m) => m.specifier === ENTRY_SPECIFIER)) {
    throw new IsocodeError('INVALID_CONFIG', `isolate sources in ${dir} have no bootstrap.ts`);
  }
  return out;
}

let cached: Promise<IsolateModuleSource[]> | undefined;

/** The compiled isolate modules, compiled on first use and kept for the process's lifetime. */
export function loadIsolateModules(): Promise<IsolateModuleSource[]> {
  if (cached === undefined) {
    cached = compileIsolateModules();
    cached.catch(() => {
      cached = undefined;
    });
  }
  return cached;
}
