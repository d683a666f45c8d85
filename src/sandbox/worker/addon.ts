/**
 * Where isolated-vm's native addon is, asked the way the installed isolated-vm line loads it,
 * without loading it: 5.x and 6.0 require `out/isolated_vm.node`; 6.1 and later load through
 * node-gyp-build (`build/Release/`, or the `prebuilds/` their tarball ships), whose `resolve()`
 * names the file or throws. The one owner of this fact: the launcher (bin/isocode.js) asks it
 * before the CLI starts, and the walled worker's read paths and shared libraries follow from it.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/** What the addon lookup found. */
export type AddonLookup =
  | { kind: 'found'; file: string }
  /** isolated-vm is installed but its addon is not: installed without its install scripts. */
  | { kind: 'missing'; packageDir: string }
  /** isolated-vm is not installed, or its layout is one this does not know. */
  | { kind: 'unknown' };

/**
 * The addon of the isolated-vm that `from` (a file path or URL) resolves.
 * `node-gyp-build` probes `/etc/alpine-release` to choose a libc's prebuild: {@link ADDON_PROBES}.
 */
export function findIsolatedVmAddon(from: string): AddonLookup {
  // Asked at every walled worker's start: the answer for a file does not change while the process
  // runs (a rebuild needs a restart anyway), so the resolve and the reads happen once.
  let found = lookups.get(from);
  if (found === undefined) lookups.set(from, (found = lookup(from)));
  return found;
}

const lookups = new Map<string, AddonLookup>();

function lookup(from: string): AddonLookup {
  let main: string;
  try {
    main = createRequire(from).resolve('isolated-vm');
  } catch {
    return { kind: 'unknown' };
  }
  const dir = dirname(main);
  let manifest: { dependencies?: Record<string, unknown> };
  try {
    manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as typeof manifest;
  } catch {
    return { kind: 'unknown' };
  }
  if (manifest.dependencies?.['node-gyp-build'] === undefined) {
    const file = join(dir, 'out', 'isolated_vm.node');
    return existsSync(file) ? { kind: 'found', file } : { kind: 'missing', packageDir: dir };
  }
  let gypBuild: { resolve?: (dir: string) => string };
  try {
    gypBuild = createRequire(main)('node-gyp-build') as typeof gypBuild;
  } catch {
    return { kind: 'unknown' };
  }
  if (typeof gypBuild.resolve !== 'function') return { kind: 'unknown' };
  try {
    return { kind: 'found', file: gypBuild.resolve(dir) };
  } catch {
    return { kind: 'missing', packageDir: dir };
  }
}

/**
 * Files the addon's loader reads besides the package (node-gyp-build's libc probe). Under Node 22's
 * permission model a read of an unlisted path throws instead of answering "absent", so the built
 * worker lists them (they need not exist: inside the wall they do not).
 */
export const ADDON_PROBES: readonly string[] = ['/etc/alpine-release'];
