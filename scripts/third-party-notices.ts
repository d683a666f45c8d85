/**
 * Writes `dist/THIRD_PARTY_NOTICES.md`: the license of every package whose code the build bundled
 * into `dist/` (p-queue and its dependencies, TypeScript 7's API client with the JSON-RPC library it
 * vendors, tsup's shims), as their licenses ask of a copy. What was bundled is read from the build
 * itself (esbuild names each bundled file's path in a `// node_modules/…` comment), so the list
 * follows the build; tsup.config.ts runs this after each build.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';

const LICENSE_FILES = /^(licen[cs]e|notice)(\.(md|txt))?$/i;

interface Bundled {
  name: string;
  version: string;
  license: string;
  dir: string;
}

/** The package a bundled file belongs to: the nearest package.json above it with a name. */
function owner(root: string, file: string): Bundled | undefined {
  for (let dir = dirname(join(root, file)); dir.startsWith(join(root, 'node_modules'));) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest)) {
      const pkg = JSON.parse(readFileSync(manifest, 'utf8')) as Record<string, unknown>;
      if (typeof pkg.name === 'string' && typeof pkg.version === 'string')
        return {
          name: pkg.name,
          version: pkg.version,
          license: typeof pkg.license === 'string' ? pkg.license : 'see below',
          dir,
        };
    }
    const up = dirname(dir);
    if (up === dir) break;
    dir = up;
  }
  return undefined;
}

/** The bundled packages named in the files of `dist`, by directory. */
export function bundledPackages(root: string, dist = join(root, 'dist')): Bundled[] {
  const found = new Map<string, Bundled>();
  for (const name of readdirSync(dist)) {
    if (!/\.(c?js)$/.test(name)) continue;
    for (const match of readFileSync(join(dist, name), 'utf8').matchAll(
      /^\/\/ (node_modules\/\S+)$/gm,
    )) {
      const pkg = owner(root, match[1] ?? '');
      if (pkg !== undefined) found.set(pkg.dir, pkg);
    }
  }
  return [...found.values()].sort((a, b) => a.name.localeCompare(b.name));
}

/** The notices text for `packages`: each one's name, version, license and license files. */
export function noticesText(root: string, packages: readonly Bundled[]): string {
  const parts = [
    '# Third-party notices',
    '',
    "isocode's `dist/` bundles code of the packages below. Each is distributed under its own license,",
    'reproduced here.',
  ];
  for (const pkg of packages) {
    parts.push('', `## ${pkg.name} ${pkg.version} (${pkg.license})`, '');
    parts.push(`From \`${relative(root, pkg.dir)}\`.`);
    for (const file of readdirSync(pkg.dir)
      .filter((f) => LICENSE_FILES.test(f))
      .sort())
      parts.push(
        '',
        `### ${file}`,
        '',
        '```text',
        readFileSync(join(pkg.dir, file), 'utf8').trimEnd(),
        '```',
      );
  }
  return `${parts.join('\n')}\n`;
}

/** Writes the notices of what `root`'s dist bundles into `dist/THIRD_PARTY_NOTICES.md`. */
export function writeThirdPartyNotices(root: string): void {
  const dist = join(root, 'dist');
  writeFileSync(
    join(dist, 'THIRD_PARTY_NOTICES.md'),
    noticesText(root, bundledPackages(root, dist)),
  );
}
