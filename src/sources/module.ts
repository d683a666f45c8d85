/** Tools from a JS or TS module file. */
import { thrownText } from '../errors.js';
import { stat } from 'node:fs/promises';
import { extname } from 'node:path';
import { pathToFileURL } from 'node:url';
import { IsocodeError, isIsocodeError } from '../index.js';
import type { ToolDefinition } from '../index.js';
import { importOptional } from '../optional.js';
import { TOOL_NAME_RE } from './mcp-names.js';

const JS_EXTENSIONS = new Set(['.mjs', '.js', '.cjs']);
const TS_EXTENSIONS = new Set(['.ts', '.mts', '.cts']);

type Rec = Record<string, unknown>;
const isRec = (v: unknown): v is Rec => typeof v === 'object' && v !== null;

/** Set by the build (tsup.config.ts): true in the CommonJS build, false in the ESM one. */
declare const __ISOCODE_CJS__: boolean | undefined;

/**
 * Node's own `import()`. The CommonJS build's bundler pass (tsup's sucrase, for code splitting)
 * rewrites a literal `import()` into `require()`, which cannot load a `file:` URL or an ES module
 * with top-level await, and picks tsx's CommonJS entry, whose `tsImport` cannot find its loader.
 * There, code made by the Function constructor does the import: the bundler leaves it alone and
 * Node resolves its specifiers from this file (tested from the packed tarball on every Node line,
 * test/package/install.pack.ts). Elsewhere (the ESM build, the sources under a test runner's vm,
 * where a Function's import() has no callback) the literal stays.
 */
const nativeImport: (specifier: string) => Promise<unknown> =
  typeof __ISOCODE_CJS__ !== 'undefined' && __ISOCODE_CJS__
    ? // eslint-disable-next-line @typescript-eslint/no-implied-eval -- a constant body, no input
      (new Function('specifier', 'return import(specifier)') as (s: string) => Promise<unknown>)
    : (specifier) => import(specifier);

async function importModule(file: string): Promise<unknown> {
  const url = pathToFileURL(file).href;
  const ext = extname(file).toLowerCase();
  if (JS_EXTENSIONS.has(ext)) return nativeImport(url);
  const { tsImport } = await importOptional(
    'tsx',
    async () =>
      (await nativeImport('tsx/esm/api')) as {
        tsImport: (specifier: string, parent: string) => Promise<unknown>;
      },
  );
  return tsImport(url, import.meta.url);
}

/**
 * The array of tools a module exports, and what it is called in messages. Where the array may
 * sit, by how the module was written and compiled:
 * - `export default [...]` / `module.exports = [...]`: the namespace's `default`;
 * - `export const tools` / `exports.tools`: the namespace's `tools` (Node's CommonJS lexer names it);
 * - `export default { tools }` / `module.exports = { tools }`: `default.tools`;
 * - ESM syntax compiled to CommonJS (tsx, for a `.cts` or a `.ts` in a CommonJS project):
 *   `module.exports.default`, so `default.default` and `default.default.tools`.
 */
function exportedTools(mod: unknown, file: string): { label: string; list: unknown[] } {
  const ns = isRec(mod) ? mod : {};
  const def = ns.default;
  const inner = isRec(def) ? def.default : undefined;
  const candidates: [string, unknown][] = [
    ['default export', def],
    ['export "tools"', ns.tools],
    ['default export\'s "tools"', isRec(def) ? def.tools : undefined],
    ['default export', inner],
    ['default export\'s "tools"', isRec(inner) ? inner.tools : undefined],
  ];
  for (const [label, value] of candidates) if (Array.isArray(value)) return { label, list: value };
  throw new IsocodeError(
    'INVALID_CONFIG',
    `tools module ${file} exports no tools: expected an array of tool definitions as its default export, a named "tools" export, module.exports or module.exports.tools`,
    { details: { module: file } },
  );
}

function checkTool(value: unknown, where: string): ToolDefinition {
  const bad = (message: string): IsocodeError =>
    new IsocodeError('INVALID_TOOL_DEFINITION', `${where}: ${message}`);
  if (!isRec(value) || Array.isArray(value)) throw bad('expected a tool definition object');
  const name = value.name;
  if (typeof name !== 'string' || !TOOL_NAME_RE.test(name)) {
    throw bad(
      `.name: expected a tool name of 1-64 letters, digits, "_", "." or "-", got ${JSON.stringify(name) ?? 'undefined'}`,
    );
  }
  if (typeof value.description !== 'string') throw bad(`(${name}) .description: expected a string`);
  if (!isRec(value.input))
    throw bad(`(${name}) .input: expected a zod schema or a JSON Schema object`);
  if (value.output !== undefined && !isRec(value.output))
    throw bad(`(${name}) .output: expected a zod schema or a JSON Schema object`);
  if (typeof value.execute !== 'function') throw bad(`(${name}) .execute: expected a function`);
  return value as unknown as ToolDefinition;
}

/**
 * Imports a tools module and checks its export minimally: an array (the default export, a
 * named `tools` export, a default export's `tools`, `module.exports` or `module.exports.tools`,
 * also as tsx compiles ESM syntax to CommonJS) of objects with `name`,
 * `description`, `input` and `execute`. `.mjs`/`.js`/`.cjs` are imported natively; `.ts`/`.mts`/`.cts`
 * through tsx.
 * @throws IsocodeError INVALID_CONFIG when the file is missing, fails to import or exports no array;
 *   INVALID_TOOL_DEFINITION naming the file and index of a malformed tool.
 */
export async function loadModuleTools(file: string): Promise<ToolDefinition[]> {
  const ext = extname(file).toLowerCase();
  if (!JS_EXTENSIONS.has(ext) && !TS_EXTENSIONS.has(ext)) {
    throw new IsocodeError(
      'INVALID_CONFIG',
      `tools module ${file}: unsupported extension "${ext}" (expected .mjs, .js, .cjs, .ts, .mts or .cts)`,
      {
        details: { module: file },
      },
    );
  }
  const info = await stat(file).catch(() => undefined);
  if (!info?.isFile())
    throw new IsocodeError('INVALID_CONFIG', `tools module not found: ${file}`, {
      details: { module: file },
    });
  let mod: unknown;
  try {
    mod = await importModule(file);
  } catch (error) {
    if (isIsocodeError(error)) throw error;
    const message = thrownText(error);
    throw new IsocodeError('INVALID_CONFIG', `cannot load tools module ${file}: ${message}`, {
      details: { module: file },
      cause: error,
    });
  }
  const { label, list } = exportedTools(mod, file);
  return list.map((value, i) => checkTool(value, `tools module ${file}, ${label}[${i}]`));
}
