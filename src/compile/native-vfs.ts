/**
 * The in-memory file system the native compiler sees. It is authoritative: only isocode's files exist,
 * except TypeScript's own `lib.*.d.ts` files, which are read from the compiler package on disk.
 */

import { randomBytes } from 'node:crypto';
import type { FileSystem } from 'typescript-native/unstable/fs';

/** Root directory of isocode's virtual files inside the compiler process. */
export const VFS_ROOT = '/isocode';
const LIB_FILE = /(^|[\\/])lib\.[\w.-]+\.d\.ts$/;
/** A UTF-16 code unit of a surrogate pair standing alone (with the `u` flag a pair is one code point). */
const LONE_SURROGATE = /\p{Surrogate}/gu;
/** A project directory (see {@link newProjectDir}) and the slot directory below it, as found in messages. */
const PROJECT_PATH = /\/isocode\/[0-9a-f]{32}\/(?:s\d+\/)?/g;

/**
 * A new, unguessable project directory (128 random bits): a program of one SDK's project cannot name
 * another project's files, even if it got past the checks that refuse module references.
 */
export function newProjectDir(): string {
  return `${VFS_ROOT}/${randomBytes(16).toString('hex')}`;
}

/** `text` with every project directory removed from the file paths in it (`.../s0/main` → `main`). */
export function hideProjectPaths(text: string): string {
  return text.includes(VFS_ROOT) ? text.replace(PROJECT_PATH, '') : text;
}

/** A map of virtual files under {@link VFS_ROOT} exposed through the compiler's file-system callbacks. */
export class VirtualFiles {
  private readonly files = new Map<string, string>();

  /**
   * Sets a file. A lone surrogate (a program's `"\ud800"`, an upstream tool's description) is
   * replaced by U+FFFD, one code unit for one, so every position the compiler reports is unchanged:
   * the compiler's transport cannot carry one, and a file holding one stalled the process, and with
   * it every scope's check, until its time limit.
   */
  set(path: string, text: string): void {
    this.files.set(path, text.replace(LONE_SURROGATE, '\uFFFD'));
  }

  delete(path: string): void {
    this.files.delete(path);
  }

  /** Deletes every file below `dir`. */
  deleteDirectory(dir: string): void {
    const prefix = `${dir}/`;
    for (const path of [...this.files.keys()]) if (path.startsWith(prefix)) this.files.delete(path);
  }

  /** The callbacks handed to the compiler process. `undefined` means "read the real file system". */
  toFileSystem(): FileSystem {
    const inRoot = (p: string): boolean => p === VFS_ROOT || p.startsWith(`${VFS_ROOT}/`);
    const isLib = (p: string): boolean => LIB_FILE.test(p);
    const isRoot = (p: string): boolean => p === VFS_ROOT || p === `${VFS_ROOT}/`;
    return {
      readFile: (p) => (inRoot(p) ? (this.files.get(p) ?? null) : isLib(p) ? undefined : null),
      fileExists: (p) => (inRoot(p) ? this.files.has(p) : isLib(p) ? undefined : false),
      directoryExists: (d) => (inRoot(d) ? this.hasDirectory(d) : undefined),
      // The root is never listed: no project learns its siblings' (unguessable) directories.
      getAccessibleEntries: (d) =>
        inRoot(d) ? (isRoot(d) ? { files: [], directories: [] } : this.entries(d)) : undefined,
      realpath: (p) => p,
    };
  }

  private hasDirectory(dir: string): boolean {
    const prefix = dir.endsWith('/') ? dir : `${dir}/`;
    for (const path of this.files.keys()) if (path.startsWith(prefix)) return true;
    return false;
  }

  private entries(dir: string): { files: string[]; directories: string[] } {
    const prefix = dir.endsWith('/') ? dir : `${dir}/`;
    const files = new Set<string>();
    const directories = new Set<string>();
    for (const path of this.files.keys()) {
      if (!path.startsWith(prefix)) continue;
      const rest = path.slice(prefix.length);
      const slash = rest.indexOf('/');
      if (slash < 0) files.add(rest);
      else directories.add(rest.slice(0, slash));
    }
    return { files: [...files], directories: [...directories] };
  }
}
