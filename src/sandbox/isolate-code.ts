/**
 * Loads the isolate-side TypeScript (`sdk-templates/isolate/*.ts`), strips its types with
 * oxc-transform and links the modules into one script (`isolate-link.ts`), once per process: the
 * script each fresh context runs, or the one a startup snapshot is taken of (see
 * `sandbox-isolate.ts`). The files are type-checked by
 * `sdk-templates/isolate/tsconfig.json` (ES2022, no Node types).
 */
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { transformSync } from 'oxc-transform';
import { IsocodeError } from '../errors.js';
import {
  BOOTSTRAP_ENTRY,
  MODULE_PREFIX,
  SNAPSHOT_ENTRY,
} from '../../sdk-templates/isolate/protocol.js';
import { linkIsolateScript, type IsolateModuleSource } from './isolate-link.js';

export type { IsolateModuleSource } from './isolate-link.js';

/** The specifier of the entry module. */
export const ENTRY_SPECIFIER = './bootstrap.js';

/** The linked bootstrap script. */
export interface BootstrapScript {
  /** Its name in isolate stacks (never a host path). */
  filename: string;
  /** One classic script; its completion value is what the entry's `prepare()` returns. */
  code: string;
}

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

/**
 * What a bootstrap script is for: `context` runs in every fresh context and completes with `entry`;
 * `snapshot` runs once, while a V8 startup snapshot is taken, and leaves the claim of each context
 * made from it on the global (`SNAPSHOT_ENTRY`, decision record 039).
 */
export type BootstrapKind = 'context' | 'snapshot';

const cachedScripts = new Map<BootstrapKind, Promise<BootstrapScript>>();

/** The linked bootstrap script of `kind`, built on first use and kept for the process's lifetime. */
export function loadBootstrapScript(kind: BootstrapKind = 'context'): Promise<BootstrapScript> {
  let script = cachedScripts.get(kind);
  if (script === undefined) {
    script = loadIsolateModules().then((modules) => ({
      filename: `${MODULE_PREFIX}bootstrap.js`,
      code: linkIsolateScript(
        modules,
        ENTRY_SPECIFIER,
        kind === 'context' ? BOOTSTRAP_ENTRY : SNAPSHOT_ENTRY,
      ),
    }));
    cachedScripts.set(kind, script);
    script.catch(() => {
      cachedScripts.delete(kind);
    });
  }
  return script;
}
