/**
 * How the native compiler process starts. The pinned `typescript-native` client spawns its binary
 * with the host's whole environment and no say over the command: its one hook is `tsserverPath`,
 * the file it executes. isocode points it at a small generated launcher script (mode 0700 in a
 * private temporary folder, removed at exit) that `exec`s the compiler with the environment of
 * `childEnvironment()` only and, behind the second wall, through bubblewrap with nothing but the
 * compiler's own folder (its binary and `lib.*.d.ts` files) readable (decision record 032).
 */
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { findExecutable, SECCOMP_FD, sharedLibraryDirs, walledArgv } from '../wall/bwrap.js';
import { seccompFile } from '../wall/seccomp.js';
import { childEnvironment } from '../wall/env.js';
import type { Wall } from '../wall/wall.js';

/**
 * The compiler binary of the installed `typescript-native`: `lib/tsc` of its platform package, as
 * the package's own `getExePath` finds it. Undefined when it is not there.
 */
export function compilerBinary(): string | undefined {
  try {
    const own = createRequire(import.meta.url).resolve('typescript-native/package.json');
    const platform = `@typescript/typescript-${process.platform}-${process.arch}/package.json`;
    const manifest = createRequire(own).resolve(platform);
    const exe = join(dirname(manifest), 'lib', process.platform === 'win32' ? 'tsc.exe' : 'tsc');
    return existsSync(exe) ? exe : undefined;
  } catch {
    return undefined;
  }
}

/** A POSIX shell word for `value`. */
function shellQuote(value: string): string {
  return `'${value.replaceAll("'", `'\\''`)}'`;
}

/** The argv (file first) that runs the compiler `exe` with the client's arguments appended. */
export function compilerArgv(wall: Wall, exe: string): string[] {
  const env = childEnvironment();
  const envBinary = findExecutable('env') ?? '/usr/bin/env';
  const scrubbed = [envBinary, '-i', ...Object.entries(env).map(([k, v]) => `${k}=${v}`)];
  if (wall.tools === undefined) return [...scrubbed, exe];
  return [
    ...scrubbed,
    ...walledArgv(
      wall.tools,
      {
        readOnly: [dirname(exe), ...sharedLibraryDirs(exe)],
        cwd: '/',
        env,
        seccompFd: seccompFile() === undefined ? undefined : SECCOMP_FD,
      },
      exe,
      [],
    ),
  ];
}

const launchers = new Map<boolean, string>();
let dir: string | undefined;

/**
 * Writes a launcher script at `file` that runs `exe` behind `wall` with the arguments it is given:
 * the compiler's launcher, and the seam of the wall's attack tests (a hostile `exe`).
 */
export function writeLauncher(file: string, wall: Wall, exe: string): void {
  const command = compilerArgv(wall, exe).map(shellQuote).join(' ');
  // The system-call filter reaches bubblewrap as a descriptor the shell opens (seccomp.ts).
  const filter = wall.tools === undefined ? undefined : seccompFile();
  const redirect = filter === undefined ? '' : ` ${SECCOMP_FD}<${shellQuote(filter)}`;
  writeFileSync(file, `#!/bin/sh\nexec ${command} "$@"${redirect}\n`, { mode: 0o700 });
  chmodSync(file, 0o700);
}

/**
 * The launcher script for `wall` (created once per process and wall state), or undefined where
 * there is no POSIX shell (Windows) or no compiler binary: the client then spawns its binary itself.
 */
export function compilerLauncher(wall: Wall): string | undefined {
  if (process.platform === 'win32') return undefined;
  const known = launchers.get(wall.status.active);
  if (known !== undefined && existsSync(known)) return known;
  const exe = compilerBinary();
  if (exe === undefined) return undefined;
  if (dir === undefined) {
    const created = mkdtempSync(join(tmpdir(), 'isocode-checker-'));
    dir = created;
    process.once('exit', () => rmSync(created, { recursive: true, force: true }));
  }
  const file = join(dir, wall.status.active ? 'walled' : 'plain');
  writeLauncher(file, wall, exe);
  launchers.set(wall.status.active, file);
  return file;
}
