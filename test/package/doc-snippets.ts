/**
 * The docs' app-side blocks checked from the packed tarball (issue 27): every TypeScript block of
 * README.md and docs/*.md that is not a `fragment` and not `clone` type-checks against the
 * installed package's declarations (not the sources the repository's doc test maps), and runs
 * unless it says `no-run`; every `isocode` command of such a shell block runs through the app's
 * `npx isocode`. The blocks that import a framework are checked where the frameworks are installed
 * (adapters.pack.ts), the others in install.pack.ts.
 */
import { mkdirSync, symlinkSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { docBlocks, isocodeCommands, type Block } from '../docs/blocks.js';

export { typecheckBlocks } from '../docs/blocks.js';
import { ROOT } from './helpers.js';

/** Packages a block may import that only adapters.pack.ts installs. */
export const FRAMEWORKS = ['ai', '@openai/agents', '@langchain/core'];

const app = docBlocks(ROOT).filter((b) => !b.fragment && !b.clone);

const importsFramework = (b: Block): boolean =>
  FRAMEWORKS.some((f) => b.code.includes(`from '${f}'`) || b.code.includes(`from '${f}/`));

/** The app-side TypeScript blocks, with or without those that import a framework. */
export function appTsBlocks(frameworks: boolean): Block[] {
  return app.filter(
    (b) => (b.lang === 'ts' || b.lang === 'typescript') && importsFramework(b) === frameworks,
  );
}

/** The `isocode` command lines of the app-side shell blocks, with where each is. */
export function appCommands(): Array<{ where: string; args: string[] }> {
  return app
    .filter((b) => b.lang === 'sh' || b.lang === 'bash')
    .flatMap((b) => isocodeCommands(b.code).map((args) => ({ where: b.where, args })));
}

/** Links the repository's copies of `deps` into the app (what a TypeScript project has of its own). */
export function linkFromRepo(appDir: string, deps: readonly string[]): void {
  for (const dep of deps) {
    const target = join(appDir, 'node_modules', dep);
    mkdirSync(join(target, '..'), { recursive: true });
    if (!existsSync(target)) symlinkSync(join(ROOT, 'node_modules', dep), target, 'dir');
  }
}
