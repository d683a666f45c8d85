/**
 * `execve` refused after a walled process has started (issue 25, decision record 032). bubblewrap
 * installs its filter before it executes the command, so a filter refusing `execve` there would
 * refuse the command itself. A filter the process installs on itself after its own `execve` has no
 * such problem, but Node has no API to install one. So a library preloaded into the process does:
 * **firejail's `libpostexecseccomp.so`** (Debian's `firejail` package, well kept, 14 KB, libc only),
 * whose constructor reads a filter from a fixed path (firejail's `RUN_SECCOMP_POSTEXEC`) and
 * installs it with `no_new_privs` before the program's `main` runs. The wall binds isocode's own
 * filter (seccomp.ts `noExecFilter`) at that path, read-only, and the library beside it; bubblewrap
 * sets `LD_PRELOAD` for the command only.
 *
 * It applies to dynamically linked programs: the built sandbox worker (Node). Not to the checker
 * (TypeScript 7's compiler is a static Go binary: the loader never runs) nor to the sources' worker
 * (tests, benchmarks: tsx starts esbuild as a child process). The library fails silently when it
 * cannot read the filter, so the wall's probe checks the effect (a walled Node's `execve` refused
 * with `EPERM`) before it reports the filter on.
 */
import { existsSync } from 'node:fs';
import { isAbsolute } from 'node:path';

/** Where firejail's library reads the filter from (firejail's `RUN_SECCOMP_POSTEXEC`). */
export const POSTEXEC_FILTER_PATH = '/run/firejail/mnt/seccomp/seccomp.postexec';

/** Where distributions install the library. */
const LIBRARY_PATHS = [
  '/usr/lib/x86_64-linux-gnu/firejail/libpostexecseccomp.so',
  '/usr/lib/aarch64-linux-gnu/firejail/libpostexecseccomp.so',
  '/usr/lib64/firejail/libpostexecseccomp.so',
  '/usr/lib/firejail/libpostexecseccomp.so',
  '/usr/local/lib/firejail/libpostexecseccomp.so',
];

/** The one line that tells an operator how to get the library. */
export const POSTEXEC_INSTALL_HINT =
  'install firejail (Debian: apt-get install firejail) for its libpostexecseccomp.so, or name the library in ISOCODE_POSTEXEC_SECCOMP';

/**
 * The library: `ISOCODE_POSTEXEC_SECCOMP` (an absolute path; a missing one means none, which is how
 * tests turn the filter off), else the first of the usual install paths that exists.
 */
export function findPostexecLibrary(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const named = env.ISOCODE_POSTEXEC_SECCOMP;
  if (named !== undefined && named !== '')
    return isAbsolute(named) && existsSync(named) ? named : undefined;
  return LIBRARY_PATHS.find((path) => existsSync(path));
}
