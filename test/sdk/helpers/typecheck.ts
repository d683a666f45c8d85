/**
 * Type-checks an SDK declaration script together with a program module, in memory, with the classic
 * TypeScript compiler API: strict, noEmit, lib es2022 only (no DOM), `types: []`.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import ts from 'typescript';

const libDir = dirname(ts.getDefaultLibFilePath({}));
const libCache = new Map<string, ts.SourceFile>();

/** Extra compiler options a test may vary (e.g. exactOptionalPropertyTypes). */
export type CheckOptions = Pick<
  ts.CompilerOptions,
  'exactOptionalPropertyTypes' | 'noUncheckedIndexedAccess' | 'lib'
>;

/**
 * Compiles `sdk.d.ts` (a global script) and `program.ts` (a module).
 * @returns the diagnostics as `file:line: message` strings (empty when the pair type-checks).
 */
export function typecheck(sdk: string, program: string, extra: CheckOptions = {}): string[] {
  const options: ts.CompilerOptions = {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleDetection: ts.ModuleDetectionKind.Force,
    lib: ['lib.es2022.d.ts'],
    types: [],
    noLib: false,
    ...extra,
  };
  const files = new Map<string, string>([
    ['/sdk.d.ts', sdk],
    ['/program.ts', program],
  ]);
  const host: ts.CompilerHost = {
    getSourceFile(fileName, languageVersion) {
      const text = files.get(fileName);
      if (text !== undefined) return ts.createSourceFile(fileName, text, languageVersion, true);
      const cached = libCache.get(fileName);
      if (cached) return cached;
      let libText: string;
      try {
        libText = readFileSync(fileName, 'utf8');
      } catch {
        return undefined;
      }
      const sf = ts.createSourceFile(fileName, libText, languageVersion, true);
      libCache.set(fileName, sf);
      return sf;
    },
    getDefaultLibFileName: () => join(libDir, 'lib.es2022.d.ts'),
    getDefaultLibLocation: () => libDir,
    writeFile: () => undefined,
    getCurrentDirectory: () => '/',
    getDirectories: () => [],
    fileExists: (f) => files.has(f) || libCache.has(f) || ts.sys.fileExists(f),
    readFile: (f) => files.get(f) ?? ts.sys.readFile(f),
    getCanonicalFileName: (f) => f,
    useCaseSensitiveFileNames: () => true,
    getNewLine: () => '\n',
  };
  const program_ = ts.createProgram({ rootNames: ['/sdk.d.ts', '/program.ts'], options, host });
  const diags: ts.Diagnostic[] = [
    ...program_.getOptionsDiagnostics(),
    ...program_.getGlobalDiagnostics(),
  ];
  for (const name of ['/sdk.d.ts', '/program.ts']) {
    const sf = program_.getSourceFile(name);
    if (sf)
      diags.push(...program_.getSyntacticDiagnostics(sf), ...program_.getSemanticDiagnostics(sf));
  }
  const seen = new Set<string>();
  const out: string[] = [];
  for (const d of diags) {
    const msg = ts.flattenDiagnosticMessageText(d.messageText, '\n');
    let where = '';
    if (d.file && d.start !== undefined) {
      const { line } = d.file.getLineAndCharacterOfPosition(d.start);
      where = `${d.file.fileName}:${line + 1}: `;
    }
    const s = `${where}${msg}`;
    if (!seen.has(s)) {
      seen.add(s);
      out.push(s);
    }
  }
  return out;
}
