/**
 * Docs cannot drift from the package: every TypeScript block of README.md and docs/*.md type-checks
 * against the public API (`isocode`, `isocode/sources`, ... mapped to the sources), and every
 * `isocode` command of a shell block runs and exits 0. A block that is not meant to run on its own
 * says so in its info string (```ts fragment), and still has to be a TypeScript or shell block.
 * From the packed tarball (test/package/doc-snippets.ts) the same blocks are checked again as an
 * app sees them, except those marked `clone` (they name files only a clone has); there TypeScript
 * blocks also run, except those marked `no-run` (they need a model or an API key).
 */
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT, runCli } from '../cli/helpers.js';
import { docBlocks, isocodeCommands, typecheckBlocks } from './blocks.js';

const blocks = docBlocks(ROOT).filter((b) => !b.fragment);
const tsBlocks = blocks.filter((b) => b.lang === 'ts' || b.lang === 'typescript');
const shBlocks = blocks.filter((b) => b.lang === 'sh' || b.lang === 'bash');

// Inside the repository, so bare imports (zod) resolve from its node_modules.
const dir = join(ROOT, 'node_modules', '.cache', 'isocode-doc-blocks');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const SUBPATHS: Record<string, string> = {
  isocode: 'src/index.ts',
  'isocode/testing': 'src/testing.ts',
  'isocode/sources': 'src/sources/index.ts',
  'isocode/server': 'src/server/index.ts',
  'isocode/mcp': 'src/mcp/index.ts',
  'isocode/durable': 'src/durable/index.ts',
  'isocode/ai': 'src/adapters/ai-sdk.ts',
  'isocode/openai-agents': 'src/adapters/openai-agents.ts',
  'isocode/langchain': 'src/adapters/langchain.ts',
};

describe('doc blocks', () => {
  it('finds the blocks (README and docs/)', () => {
    expect(tsBlocks.length).toBeGreaterThan(2);
    expect(shBlocks.length).toBeGreaterThan(2);
  });

  it('every TypeScript block type-checks against the public API', () => {
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    const { problems } = typecheckBlocks(dir, tsBlocks, {
      typeRoots: [join(ROOT, 'node_modules', '@types')],
      allowImportingTsExtensions: true,
      paths: Object.fromEntries(
        Object.entries(SUBPATHS).map(([spec, path]) => [spec, [join(ROOT, path)]]),
      ),
    });
    expect(problems).toEqual([]);
  }, 180_000);

  const commands = shBlocks.flatMap((b) =>
    isocodeCommands(b.code).map((args) => [b.where, args.join(' '), args] as const),
  );
  it.each(commands)(
    '%s: isocode %s',
    async (_where, _line, args) => {
      const out = await runCli(args, { timeoutMs: 90_000 });
      expect({ code: out.code, stderr: out.stderr }).toMatchObject({ code: 0 });
    },
    120_000,
  );
});
