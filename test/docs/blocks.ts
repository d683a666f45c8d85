/** Code blocks of the Markdown docs, for the doc-block test. */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';

/** One fenced code block. */
export interface Block {
  /** `file:line` of the opening fence. */
  where: string;
  lang: string;
  /** True when the info string says `fragment`: shown for reading, not run. */
  fragment: boolean;
  /**
   * True when the info string says `clone`: it works in a clone of the repository only (it names
   * files the package does not ship); checked from the repository, not from the packed tarball.
   */
  clone: boolean;
  /**
   * True unless the info string says `no-run`: a TypeScript block that needs what a reader adds (a
   * model, an API key, their own service) is type-checked, not executed.
   */
  runs: boolean;
  code: string;
}

const FENCE = /^(`{3,})([\w-]*)([^\n`]*)\n([\s\S]*?)^\1[ \t]*$/gm;

/** The blocks of README.md and docs/*.md (decision records are history, not instructions). */
export function docBlocks(root: string): Block[] {
  const files = [
    join(root, 'README.md'),
    ...readdirSync(join(root, 'docs'))
      .filter((f) => f.endsWith('.md'))
      .map((f) => join(root, 'docs', f)),
  ];
  return files.flatMap((file) => {
    const text = readFileSync(file, 'utf8');
    return [...text.matchAll(FENCE)].map((m) => ({
      where: `${relative(root, file)}:${text.slice(0, m.index).split('\n').length}`,
      lang: m[2] ?? '',
      fragment: /\bfragment\b/.test(m[3] ?? ''),
      clone: /\bclone\b/.test(m[3] ?? ''),
      runs: !/\bno-run\b/.test(m[3] ?? ''),
      code: m[4] ?? '',
    }));
  });
}

/**
 * The `isocode` command lines of a shell block, as argument lists (`npx isocode a b` → `[a, b]`).
 * Comments are dropped; quoting is not supported (a doc command that needs it is a fragment).
 */
export function isocodeCommands(code: string): string[][] {
  return code
    .split('\n')
    .map((line) => line.replace(/\s+#.*$/, '').trim())
    .filter((line) => /^(npx )?isocode\b/.test(line))
    .map((line) => line.split(/\s+/).slice(line.startsWith('npx ') ? 2 : 1));
}

/**
 * Writes each block as a module in `dir` (a `"type": "module"` folder of the app) and type-checks
 * them all, strict, against what `dir` resolves (or `options` map); the problems, each with its
 * block's `file:line`.
 */
export function typecheckBlocks(
  dir: string,
  blocks: readonly Block[],
  options: ts.CompilerOptions = {},
): { files: string[]; problems: string[] } {
  const files = blocks.map((b, i) => {
    const file = join(dir, `doc-block-${i}.ts`);
    writeFileSync(file, `${b.code}\nexport {};\n`);
    return file;
  });
  const program = ts.createProgram(files, {
    target: ts.ScriptTarget.ES2022,
    lib: ['lib.es2022.d.ts'],
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    types: ['node'],
    strict: true,
    exactOptionalPropertyTypes: true,
    noUncheckedIndexedAccess: true,
    skipLibCheck: true,
    noEmit: true,
    ...options,
  });
  const problems = ts
    .getPreEmitDiagnostics(program)
    .filter((d) => d.file !== undefined && files.includes(d.file.fileName))
    .map((d) => {
      const block = blocks[files.indexOf(d.file?.fileName ?? '')];
      const { line } = d.file!.getLineAndCharacterOfPosition(d.start ?? 0);
      return `${block?.where ?? '?'} (+${line + 1}): ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`;
    });
  return { files, problems };
}
