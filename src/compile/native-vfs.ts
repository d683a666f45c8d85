/**
 * The in-memory file system the native compiler sees. It is authoritative: only isocode's files exist,
 * except TypeScript's own `lib.*.d.ts` files, which are read from the compiler package on disk.
 */

import type { FileSystem } from 'typescript-native/unstable/fs';

/** Root directory of isocode's virtual files inside the compiler process. */
export const VFS_ROOT = '/isocode';
const LIB_FILE = /(^|[\\/])lib\.[\w.-]+\.d\.ts$/;

/** A map of virtual files under {@link VFS_ROOT} exposed through the compiler's file-system callbacks. */
export class VirtualFiles {
  private readonly files = new Map<string, string>();

  set(path: string, text: string): void {
    this.files.set(path, text);
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
    return {
      readFile: (p) => (inRoot(p) ? (this.files.get(p) ?? null) : isLib(p) ? undefined : null),
      fileExists: (p) => (inRoot(p) ? this.files.has(p) : isLib(p) ? undefined : false),
      directoryExists: (d) => (inRoot(d) ? this.hasDirectory(d) : undefined),
      getAccessibleEntries: (d) => (inRoot(d) ? this.entries(d) : undefined),
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
