/** Code blocks of the Markdown docs, for the doc-block test. */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

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

/**
 * Docs whose blocks are not checked yet: their owner marks the blocks that cannot run on their own
 * (a run_code program, a snippet using names from the text, a server that runs until stopped) as
 * fragments, then removes the file from this list.
 */
const PENDING = new Set(['http.md', 'mcp.md']);

/** The blocks of README.md and docs/*.md (decision records are history, not instructions). */
export function docBlocks(root: string): Block[] {
  const files = [
    join(root, 'README.md'),
    ...readdirSync(join(root, 'docs'))
      .filter((f) => f.endsWith('.md') && !PENDING.has(f))
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
