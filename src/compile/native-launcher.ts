/**
 * How the native compiler process starts. The pinned TypeScript 7 API client spawns its binary
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
import { platformPackageMissing } from '../optional.js';

/**
 * The TypeScript 7 release isocode checks with: the bundled API client's and the compiler binary's
 * (package.json pins both, `typescript-native` and `@typescript/typescript-*`; a test holds them to
 * this), since the client speaks the binary's own protocol.
 */
export const COMPILER_VERSION = '7.0.2';

/** The platform package that holds this machine's compiler binary. */
export const compilerPackage = (): string =>
  `@typescript/typescript-${process.platform}-${process.arch}`;

/**
 * The compiler binary: `lib/tsc` of TypeScript 7's platform package for this machine
 * (`@typescript/typescript-<platform>-<arch>`, one of this package's optional dependencies; the API
 * client is bundled, decision 038). Undefined when it is not installed (an unsupported platform, or
 * an install that left optional dependencies out).
 */
export function compilerBinary(): string | undefined {
  try {
    const manifest = createRequire(import.meta.url).resolve(`${compilerPackage()}/package.json`);
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
 * What the API client starts as its compiler (`tsserverPath`): the launcher script for `wall`
 * (created once per process and wall state), or where there is no POSIX shell (Windows) the binary
 * itself. The bundled client's own lookup is replaced at build by one that throws (tsup.config.ts):
 * it would read the manifest of the package it is in, which is isocode's.
 * @throws IsocodeError `DEPENDENCY_MISSING` when this platform's compiler package is not installed.
 */
export function compilerCommand(wall: Wall): string {
  const known = launchers.get(wall.status.active);
  if (known !== undefined && existsSync(known)) return known;
  const exe = compilerBinary();
  if (exe === undefined)
    throw platformPackageMissing(compilerPackage(), COMPILER_VERSION, 'type-checking programs');
  if (process.platform === 'win32') return exe;
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
