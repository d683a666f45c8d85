/** The isocode package this CLI belongs to: its root directory and version. */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

let cached: { root: string; version: string } | undefined;

/**
 * Walks up from this module's file to the `package.json` named `isocode` (works from `src/cli/`
 * under tsx and from `dist/` after a build).
 */
export function packageInfo(): { root: string; version: string } {
  if (cached) return cached;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
        name?: unknown;
        version?: unknown;
      };
      if (pkg.name === 'isocode') {
        cached = { root: dir, version: typeof pkg.version === 'string' ? pkg.version : '0.0.0' };
        return cached;
      }
    } catch {
      // no package.json here: keep walking up
    }
    const parent = dirname(dir);
    if (parent === dir)
      throw new Error('cannot find the isocode package.json above the CLI module');
    dir = parent;
  }
}
