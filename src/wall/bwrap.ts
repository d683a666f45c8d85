/**
 * The command line of a walled process (Linux): `prlimit` sets the resource limits, then bubblewrap
 * starts the command in new user, network, mount, PID, IPC, UTS and cgroup namespaces, as uid/gid
 * 65534 with every capability dropped (`no_new_privs` is bubblewrap's own), with a file system that
 * holds only what the process reads — each given path read-only at its own place, a private empty
 * `/tmp` of a bounded size (the only writable place: the root is remounted read-only), a fresh
 * `/proc` of its own PID namespace, a `/dev` of four devices (no terminal) — and the environment of
 * `childEnvironment()`. bubblewrap kills the sandbox when it or its parent (the host) dies.
 * Threat model and figures: docs/decisions/032-second-wall.md.
 */
import { spawnSync } from 'node:child_process';
import { closeSync, existsSync, openSync, realpathSync } from 'node:fs';
import { delimiter, dirname, isAbsolute, join } from 'node:path';
import { findPostexecLibrary, POSTEXEC_FILTER_PATH, POSTEXEC_INSTALL_HINT } from './postexec.js';
import { elfLoading } from './elf.js';
import { noExecFile, seccompFile } from './seccomp.js';

/**
 * The descriptor a walled process is started with that holds its system-call filter, when there is
 * one: the first after stdin, stdout, stderr and the IPC channel (3).
 */
export const SECCOMP_FD = 4;

/** Resource limits of a walled process. */
export interface WallLimits {
  /** Open files (RLIMIT_NOFILE). */
  nofile: number;
  /** Processes and threads of its user (RLIMIT_NPROC); V8 and isolated-vm start ~20 threads. */
  nproc: number;
  /** Largest file it may write, in bytes (RLIMIT_FSIZE); its only writable place is `/tmp`. */
  fsizeBytes: number;
  /** Size of its private `/tmp`, in bytes. */
  tmpBytes: number;
}

export const DEFAULT_WALL_LIMITS: WallLimits = {
  nofile: 1024,
  nproc: 512,
  fsizeBytes: 16 * 1024 * 1024,
  tmpBytes: 16 * 1024 * 1024,
};

/** The device nodes a walled process gets (no tty, no shm). */
const DEVICES = ['/dev/null', '/dev/zero', '/dev/random', '/dev/urandom'];

/** The tools the wall is built with, found on this host. */
export interface WallTools {
  bwrap: string;
  prlimit: string;
  /**
   * What makes a walled Node refuse `execve` once started (postexec.ts), when this host has it and
   * the probe saw it work; undefined otherwise.
   */
  noExec?: NoExec | undefined;
}

/** The preloaded library and the filter file it installs (postexec.ts). */
export interface NoExec {
  library: string;
  filter: string;
}

/** What a walled process may see and how it starts. */
export interface WallSpec {
  /** Files and directories bound read-only at their own path (missing ones are skipped). */
  readOnly: readonly string[];
  /** Host paths bound read-only at another place inside: `[host, inside]`. */
  readOnlyAt?: ReadonlyArray<readonly [string, string]> | undefined;
  /** Working directory inside (must be one of `readOnly` or below, or `/`). */
  cwd: string;
  /** The environment inside. */
  env: Readonly<Record<string, string>>;
  limits?: WallLimits | undefined;
  /**
   * A descriptor the process is started with that holds the system-call filter (seccomp.ts), or
   * undefined for none (no table for this machine).
   */
  seccompFd?: number | undefined;
  /**
   * Refuse `execve` and `execveat` once the command has started (a dynamically linked command
   * only: the library is preloaded by its loader; postexec.ts).
   */
  noExec?: NoExec | undefined;
}

/** `name` on PATH (or `name` itself when absolute and present). */
export function findExecutable(name: string, path = process.env.PATH ?? ''): string | undefined {
  if (isAbsolute(name)) return existsSync(name) ? name : undefined;
  for (const dir of ['/usr/bin', '/bin', ...path.split(delimiter)]) {
    if (dir === '') continue;
    const candidate = join(dir, name);
    if (existsSync(candidate)) return candidate;
  }
  return undefined;
}

const libraryDirs = new Map<string, string[]>();

/**
 * The directories holding the shared libraries `binary` loads (from `ldd`), its loader's included.
 * A static binary has none. When `ldd` cannot tell, the usual library directories that exist.
 */
export function sharedLibraryDirs(binary: string): string[] {
  const known = libraryDirs.get(binary);
  if (known !== undefined) return known;
  const dirs = new Set<string>();
  const ldd = listLibraries(binary);
  if (ldd.status === 0 || /not a dynamic executable/.test(`${ldd.stdout}${ldd.stderr}`)) {
    for (const match of ldd.stdout.matchAll(/(\/[^\s()]+)/g)) {
      const file = match[1];
      if (file !== undefined) dirs.add(dirname(file));
    }
  } else {
    for (const dir of ['/lib', '/lib64', '/usr/lib', '/usr/lib64'])
      if (existsSync(dir)) dirs.add(dir);
  }
  const out = [...dirs];
  libraryDirs.set(binary, out);
  return out;
}

/**
 * What `ldd binary` prints, asked of the loader itself (`<loader> --list`, which is what `ldd` runs):
 * the loader the binary names, or this process's own for a shared object (an addon). A static file
 * lists nothing; anything the loader cannot list goes to `ldd`.
 */
function listLibraries(binary: string): { status: number | null; stdout: string; stderr: string } {
  const run = (file: string, args: string[]): ReturnType<typeof listLibraries> => {
    const r = spawnSync(file, args, { encoding: 'utf8', timeout: 5_000, env: {} });
    return { status: r.status, stdout: r.stdout ?? '', stderr: r.stderr ?? '' };
  };
  const elf = elfLoading(binary);
  if (elf?.dynamic === false) return { status: 0, stdout: '', stderr: '' };
  const loader = elf?.interpreter ?? (elf ? elfLoading(process.execPath)?.interpreter : undefined);
  if (loader !== undefined && isAbsolute(loader) && existsSync(loader)) {
    const listed = run(loader, ['--list', binary]);
    if (listed.status === 0) return listed;
  }
  return run('ldd', [binary]);
}

/** `path` and, when it differs, its real path (Node resolves module paths to real ones). */
function bothPaths(path: string): string[] {
  if (!existsSync(path)) return [];
  const real = realpathSync(path);
  return real === path ? [path] : [path, real];
}

/** The argv (file first) that starts `command args` behind the wall. */
export function walledArgv(
  tools: WallTools,
  spec: WallSpec,
  command: string,
  args: readonly string[],
): string[] {
  const limits = spec.limits ?? DEFAULT_WALL_LIMITS;
  const out = [
    tools.prlimit,
    `--nofile=${limits.nofile}`,
    `--nproc=${limits.nproc}`,
    '--core=0',
    `--fsize=${limits.fsizeBytes}`,
    '--',
    tools.bwrap,
    '--unshare-all',
    '--unshare-user',
    '--disable-userns',
    '--uid',
    '65534',
    '--gid',
    '65534',
    '--hostname',
    'sandbox',
    '--die-with-parent',
    // No `--new-session`: a session of its own is a scheduler autogroup of its own, which cost each
    // nested call ~1 ms on a loaded machine (decision record 032). What it guards against — TIOCSTI
    // into the host's terminal — needs the terminal, and the process has none: no tty among its fds
    // and no /dev/tty (the /dev below holds only null, zero, random and urandom).
    '--cap-drop',
    'ALL',
    '--clearenv',
    // First the private /tmp: the read-only binds below may lie under the host's /tmp.
    '--size',
    String(limits.tmpBytes),
    '--tmpfs',
    '/tmp',
    '--proc',
    '/proc',
    '--tmpfs',
    '/dev',
    ...DEVICES.flatMap((device) => ['--dev-bind', device, device]),
    '--symlink',
    '/proc/self/fd',
    '/dev/fd',
  ];
  const bound = new Set<string>();
  for (const path of spec.readOnly)
    for (const p of bothPaths(path)) {
      if (bound.has(p)) continue;
      bound.add(p);
      out.push('--ro-bind', p, p);
    }
  for (const [host, inside] of spec.readOnlyAt ?? [])
    if (existsSync(host)) out.push('--ro-bind', host, inside);
  if (spec.noExec !== undefined) {
    const { library, filter } = spec.noExec;
    out.push('--ro-bind', filter, POSTEXEC_FILTER_PATH, '--ro-bind', library, library);
    out.push('--setenv', 'LD_PRELOAD', library);
  }
  // bubblewrap's root is a tmpfs of its own: read-only, so that the size-limited /tmp is the only
  // place the process can write (an unbounded root or /dev/shm would be memory outside its RSS
  // budget).
  out.push('--remount-ro', '/dev', '--remount-ro', '/');
  for (const [name, value] of Object.entries(spec.env)) out.push('--setenv', name, value);
  if (spec.seccompFd !== undefined) out.push('--seccomp', String(spec.seccompFd));
  out.push('--chdir', spec.cwd, '--', command, ...args);
  return out;
}

/** Runs `binary args` behind the wall (with `noExec` when given) and returns what it printed. */
function runWalled(
  tools: WallTools,
  binary: string,
  args: readonly string[],
  noExec?: NoExec,
): { ok: boolean; stdout: string; why: string } {
  const filter = seccompFile();
  const argv = walledArgv(
    tools,
    {
      readOnly: [binary, ...sharedLibraryDirs(binary)],
      cwd: '/',
      env: {},
      seccompFd: filter === undefined ? undefined : SECCOMP_FD,
      noExec,
    },
    binary,
    args,
  );
  const [file = '', ...rest] = argv;
  const fd = filter === undefined ? undefined : openSync(filter, 'r');
  const result = (() => {
    try {
      return spawnSync(file, rest, {
        encoding: 'utf8',
        timeout: 10_000,
        env: {},
        stdio: ['ignore', 'pipe', 'pipe', 'ignore', fd ?? 'ignore'],
      });
    } finally {
      if (fd !== undefined) closeSync(fd);
    }
  })();
  const why = (result.stderr || result.error?.message || `exit ${String(result.status)}`)
    .trim()
    .split('\n')[0];
  return { ok: result.status === 0, stdout: result.stdout ?? '', why: why ?? 'unknown error' };
}

/** Why the wall cannot be built here, or undefined when a walled `node --version` ran. */
export function probeWall(tools: WallTools | undefined, node: string): string | undefined {
  if (process.platform !== 'linux') return `no bubblewrap on ${process.platform}`;
  if (tools === undefined) return 'bubblewrap (bwrap) or prlimit is not installed';
  const { ok, why } = runWalled(tools, node, ['--version']);
  return ok ? undefined : `bubblewrap cannot start a sandbox here: ${why}`;
}

/**
 * What makes a walled Node refuse `execve` once started, checked by its effect (the library installed
 * a second filter; else a walled Node that tries to start another gets `EPERM`), or why there is none
 * here. Where it works, it also shows that the wall itself works, so {@link probeWall} is needed only
 * when this fails (one walled start on a host that has both: the probe is on the one-shot CLI's
 * start path).
 */
export function probeNoExec(
  tools: WallTools,
  node: string,
): { noExec: NoExec; why?: undefined } | { noExec?: undefined; why: string } {
  const filter = noExecFile();
  if (filter === undefined) return { why: `no system-call table for ${process.arch}` };
  const library = findPostexecLibrary();
  if (library === undefined)
    return { why: `no post-exec filter library: ${POSTEXEC_INSTALL_HINT}` };
  const noExec = { library, filter };
  // Cheapest: `cat` under the library reads its own filter count (Linux 5.9+): bubblewrap's and
  // the post-exec one. A walled Node that tries to start another costs ~3x a walled `node
  // --version` (the probe is on the one-shot CLI's start path), so it is the fallback.
  const cat = findExecutable('cat');
  if (cat !== undefined) {
    const { ok, stdout } = runWalled(tools, cat, ['/proc/self/status'], noExec);
    const filters = /^Seccomp_filters:\s+(\d+)$/m.exec(stdout)?.[1];
    if (ok && filters === '2') return { noExec };
  }
  const script = `const r = require('child_process').spawnSync(process.execPath, ['-e', '0']); process.stdout.write(String(r.error ? r.error.code : 'started'))`;
  const { ok, stdout, why } = runWalled(tools, node, ['-e', script], noExec);
  if (ok && stdout === 'EPERM') return { noExec };
  return {
    why: `${library} did not refuse execve behind the wall (${ok ? `the probe got ${JSON.stringify(stdout.slice(0, 40))}` : why})`,
  };
}
