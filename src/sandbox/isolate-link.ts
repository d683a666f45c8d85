/**
 * Links the isolate-side modules (already stripped of types by oxc, see `isolate-code.ts`) into ONE
 * classic script, so that each isolate compiles the bootstrap once and runs it in every new context
 * (an isolated-vm `Script` runs in any context of its isolate; a `Module` is bound to one context).
 * The script's completion value is what the entry module's `prepare()` returns.
 *
 * The modules are ours and use a small subset of module syntax, which oxc's code generator prints
 * one statement per line: `import { a, b as c } from "./x.js";` and `export function|class|const|
 * async function NAME`. Each module becomes a function scope; an import becomes a `const`
 * destructuring of an earlier module's exports (modules are evaluated in dependency order; only
 * functions, classes and constants are exported, so live bindings are not needed). Anything else
 * (`export default`, `export *`, `export { … }`, `import * as`, cycles, an unknown specifier or
 * name, a stray `import`/`export` line) is refused, never guessed at.
 */
import { IsocodeError } from '../errors.js';
import { cutText } from '../text/clip.js';

/** One compiled isolate module. */
export interface IsolateModuleSource {
  /** How other modules import it, e.g. `./bridge.js`. */
  specifier: string;
  /** Its name in isolate stacks, e.g. `isocode:isolate/bridge.js` (never a host path). */
  filename: string;
  /** ES2022 JavaScript. */
  code: string;
}

const IMPORT_LINE = /^import \{ ([^}]*) \} from "(\.\/[a-z][a-z0-9-]*\.js)";$/;
const EXPORT_LINE = /^export ((?:async )?function\*? |class |const )([A-Za-z_$][\w$]*)/;
const STRAY_MODULE_SYNTAX = /^\s*(?:import|export)\b(?!\s*\()/;
const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

/** One parsed module. */
interface ParsedModule {
  source: IsolateModuleSource;
  /** Imported names per specifier: `[imported, local]`. */
  imports: Map<string, [string, string][]>;
  exports: string[];
  /** The body with imports replaced by placeholders and `export ` removed. */
  lines: (string | { specifier: string; names: [string, string][] })[];
}

function refuse(file: string, message: string): never {
  throw new IsocodeError('INVALID_CONFIG', `isolate module ${file}: ${message}`);
}

function parseNames(file: string, list: string): [string, string][] {
  return list.split(',').map((part) => {
    const words = part.trim().split(/\s+/);
    const [imported, as, local] = words;
    if (words.length === 1 && imported !== undefined && IDENTIFIER.test(imported))
      return [imported, imported];
    if (
      words.length === 3 &&
      as === 'as' &&
      imported !== undefined &&
      local !== undefined &&
      IDENTIFIER.test(imported) &&
      IDENTIFIER.test(local)
    )
      return [imported, local];
    return refuse(file, `unsupported import specifier "${part.trim()}"`);
  });
}

function parse(source: IsolateModuleSource): ParsedModule {
  const parsed: ParsedModule = { source, imports: new Map(), exports: [], lines: [] };
  for (const line of source.code.split('\n')) {
    const imported = IMPORT_LINE.exec(line);
    if (imported) {
      const specifier = imported[2] ?? '';
      const names = parseNames(source.filename, imported[1] ?? '');
      parsed.imports.set(specifier, [...(parsed.imports.get(specifier) ?? []), ...names]);
      parsed.lines.push({ specifier, names });
      continue;
    }
    const exported = EXPORT_LINE.exec(line);
    if (exported) {
      parsed.exports.push(exported[2] ?? '');
      parsed.lines.push(line.slice('export '.length));
      continue;
    }
    if (STRAY_MODULE_SYNTAX.test(line))
      refuse(source.filename, `unsupported module syntax: ${cutText(line.trim(), 80)}`);
    parsed.lines.push(line);
  }
  return parsed;
}

/** Dependency order (dependencies first); refuses unknown specifiers and cycles. */
function order(modules: Map<string, ParsedModule>, entry: string): ParsedModule[] {
  const out: ParsedModule[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (specifier: string, from: string): void => {
    const module = modules.get(specifier);
    if (module === undefined) refuse(from, `imports unknown module ${specifier}`);
    const seen = state.get(specifier);
    if (seen === 'done') return;
    if (seen === 'visiting') refuse(module.source.filename, 'import cycle');
    state.set(specifier, 'visiting');
    for (const [dependency, names] of module.imports) {
      visit(dependency, module.source.filename);
      const target = modules.get(dependency);
      for (const [name] of names) {
        if (!target?.exports.includes(name))
          refuse(module.source.filename, `${dependency} does not export ${name}`);
      }
    }
    state.set(specifier, 'done');
    out.push(module);
  };
  visit(entry, 'the bootstrap');
  return out;
}

/**
 * One script evaluating the modules reachable from `entry` in dependency order and completing with
 * `<entry>.<entryExport>()`. Pure text assembly: the result is compiled by V8 (a syntax error there
 * fails the isolate's creation, and a test compiles it).
 * @throws IsocodeError `INVALID_CONFIG` for module syntax outside the supported subset.
 */
export function linkIsolateScript(
  sources: readonly IsolateModuleSource[],
  entry: string,
  entryExport: string,
): string {
  const modules = new Map(sources.map((s) => [s.specifier, parse(s)]));
  const sorted = order(modules, entry);
  const names = new Map(sorted.map((m, i) => [m.source.specifier, `__isocode_module_${i}`]));
  const entryModule = modules.get(entry);
  if (!entryModule?.exports.includes(entryExport))
    refuse(entry, `the entry does not export ${entryExport}`);
  const out: string[] = ['(function () {', "'use strict';"];
  for (const module of sorted) {
    out.push(
      `// ${module.source.filename}`,
      `const ${names.get(module.source.specifier)} = (() => {`,
    );
    for (const line of module.lines) {
      if (typeof line === 'string') out.push(line);
      else {
        const fields = line.names.map(([imported, local]) =>
          imported === local ? imported : `${imported}: ${local}`,
        );
        out.push(`const { ${fields.join(', ')} } = ${names.get(line.specifier)};`);
      }
    }
    out.push(`return { ${module.exports.join(', ')} };`, '})();');
  }
  out.push(`return ${names.get(entry)}.${entryExport}();`, '})()');
  return out.join('\n');
}
