/**
 * How a sandbox worker process is started: the built entry (`dist/sandbox-worker.js`, beside the
 * bundle that imports this module) or, when isocode runs from its TypeScript sources (tests,
 * benchmarks), `main.ts` through tsx. The worker needs `--no-node-snapshot` for isolated-vm. Its
 * settings travel as its first IPC message, so a worker can start before they are known. Behind
 * the second wall (decision record 032) it is started by `walledArgv` with the files of
 * {@link workerReadPaths} and, from the built entry, Node's permission model as a seat belt.
 */
import { fork, spawn, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, lstatSync, openSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SECCOMP_FD, sharedLibraryDirs, walledArgv } from '../../wall/bwrap.js';
import { seccompFile } from '../../wall/seccomp.js';
import { childEnvironment } from '../../wall/env.js';
import { resolveWall, type Wall } from '../../wall/wall.js';
import { ADDON_PROBES, findIsolatedVmAddon } from './addon.js';
import type { HostMessage, WorkerSettings } from './protocol.js';

interface Entry {
  file: string;
  execArgv: string[];
  cwd: string | undefined;
  /** The package root (with package.json, sdk-templates/ and, in sources, src/ and tsconfig.json). */
  root: string | undefined;
  /** True for the TypeScript sources (through tsx), false for the built entry. */
  sources: boolean;
}

let cached: Entry | undefined;

/** The package root: the nearest folder above `from` with a package.json. */
function packageRoot(from: string): string | undefined {
  for (let dir = from; ;) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

function locate(): Entry {
  const here = fileURLToPath(import.meta.url);
  const execArgv = ['--no-node-snapshot'];
  if (here.endsWith('.ts')) {
    // Running from sources: tsx is resolved from the package root.
    const root = packageRoot(dirname(here));
    return {
      file: join(dirname(here), 'main.ts'),
      execArgv: [...execArgv, '--import', 'tsx'],
      cwd: root,
      root,
      sources: true,
    };
  }
  return {
    file: join(dirname(here), 'sandbox-worker.js'),
    execArgv,
    cwd: undefined,
    root: packageRoot(dirname(here)),
    sources: false,
  };
}

/** True when `path` is a symbolic link. */
function isLink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}

/** The node_modules folder a package resolves from (the worker's native addons, tsx). */
function modulesDir(from: string, name: string): string | undefined {
  try {
    const manifest = createRequire(from).resolve(`${name}/package.json`);
    for (let dir = dirname(manifest); ;) {
      const parent = dirname(dir);
      if (parent === dir) return undefined;
      if (parent.endsWith('/node_modules') || parent.endsWith('\\node_modules')) {
        // A scoped package sits one level deeper.
        return parent;
      }
      dir = parent;
    }
  } catch {
    return undefined;
  }
}

/**
 * Everything a worker reads, and nothing else of the host: the Node binary and its shared
 * libraries, the worker's code (`dist/` or `src/`), the isolate's sources (`sdk-templates/`), the
 * package manifest, and the node_modules folders its packages resolve from.
 */
export function workerReadPaths(entry: Entry = (cached ??= locate())): string[] {
  const paths = [process.execPath, ...sharedLibraryDirs(process.execPath), dirname(entry.file)];
  if (entry.root !== undefined) {
    paths.push(join(entry.root, 'package.json'), join(entry.root, 'sdk-templates'));
    if (entry.sources) paths.push(join(entry.root, 'src'), join(entry.root, 'tsconfig.json'));
  }
  for (const name of ['isolated-vm', 'oxc-transform', ...(entry.sources ? ['tsx'] : [])]) {
    const dir = modulesDir(entry.file, name);
    if (dir !== undefined && !paths.includes(dir)) paths.push(dir);
  }
  // A package whose node_modules is a link (a workspace, a checkout sharing another's install):
  // the worker resolves its packages through the link's own path, which must exist inside the wall.
  const linked = entry.root === undefined ? undefined : join(entry.root, 'node_modules');
  if (linked !== undefined && isLink(linked) && !paths.includes(linked)) paths.push(linked);
  // isolated-vm's addon is built on the host (or a prebuild) and may link a library Node itself
  // does not; its loader may probe a file or two (a read that must be allowed to fail).
  const addon = findIsolatedVmAddon(entry.file);
  if (addon.kind === 'found')
    for (const dir of sharedLibraryDirs(addon.file)) if (!paths.includes(dir)) paths.push(dir);
  for (const probe of ADDON_PROBES) if (!paths.includes(probe)) paths.push(probe);
  return paths;
}

/**
 * Node's permission model for the built worker, where this Node line has it: reads only of
 * `readPaths`, no child processes, no worker threads; native addons allowed (isolated-vm needs
 * them, so it is a seat belt against a program reaching Node's JavaScript APIs, not a boundary).
 * The sources' worker runs without it: tsx needs worker threads and esbuild's child process.
 */
export function permissionFlags(readPaths: readonly string[]): string[] {
  const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
  const flag =
    major > 22 || (major === 22 && minor >= 13) ? '--permission' : '--experimental-permission';
  return [flag, '--allow-addons', ...readPaths.map((p) => `--allow-fs-read=${p}`)];
}

/** Spawn options of a worker: stdout closed, stderr piped, the IPC channel on fd 3. */
const STDIO: ['ignore', 'ignore', 'pipe', 'ipc'] = ['ignore', 'ignore', 'pipe', 'ipc'];

/**
 * Starts `script` with `execArgv` behind `wall` exactly as a worker starts (the same files
 * readable, the same environment and channel): the real worker, and the seam of the wall's attack
 * tests, which run a hostile script in this very process (test/wall).
 */
export function spawnWalled(
  wall: Wall,
  script: string,
  execArgv: readonly string[],
  readPaths: readonly string[],
  cwd = '/',
  scriptArgs: readonly string[] = [],
  readOnlyAt: ReadonlyArray<readonly [string, string]> = [],
  noExec = false,
): ChildProcess {
  if (wall.tools === undefined) throw new Error('the wall is off');
  const filter = seccompFile();
  const [file = '', ...args] = walledArgv(
    wall.tools,
    {
      readOnly: [...readPaths, script],
      readOnlyAt,
      cwd,
      seccompFd: filter === undefined ? undefined : SECCOMP_FD,
      noExec: noExec ? wall.tools.noExec : undefined,
      // The IPC channel's fd and mode, which Node puts in the spawned process's environment and
      // bubblewrap's `--clearenv` removes.
      env: { ...childEnvironment(), NODE_CHANNEL_FD: '3', NODE_CHANNEL_SERIALIZATION_MODE: 'json' },
    },
    process.execPath,
    [...execArgv, script, ...scriptArgs],
  );
  if (filter === undefined)
    return spawn(file, args, { serialization: 'json', stdio: STDIO, env: childEnvironment() });
  // The filter's descriptor (bubblewrap reads it before it starts the worker), closed here once
  // the child holds its own copy.
  const fd = openSync(filter, 'r');
  try {
    return spawn(file, args, {
      serialization: 'json',
      stdio: [...STDIO, fd],
      env: childEnvironment(),
    });
  } finally {
    closeSync(fd);
  }
}

function forkWorker(wall: Wall): ChildProcess {
  const entry = (cached ??= locate());
  if (wall.tools === undefined)
    return fork(entry.file, [], {
      execArgv: entry.execArgv,
      ...(entry.cwd === undefined ? {} : { cwd: entry.cwd }),
      serialization: 'json',
      stdio: STDIO,
      // Only what Node itself needs: a program's worker holds no secret of the host's environment.
      env: childEnvironment(),
    });
  const readPaths = workerReadPaths(entry);
  const execArgv = entry.sources
    ? entry.execArgv
    : [...entry.execArgv, ...permissionFlags(readPaths)];
  // The built worker also refuses execve once started (postexec.ts); the sources' worker cannot:
  // tsx starts esbuild as a child process.
  return spawnWalled(
    wall,
    entry.file,
    execArgv,
    readPaths,
    entry.cwd,
    [],
    tsxCache(entry),
    !entry.sources,
  );
}

/**
 * From sources: tsx's transform cache of this host user (`<tmpdir>/tsx-<euid>`), read-only where tsx
 * looks inside (`/tmp/tsx-65534`), so that a walled worker does not transform every source file again
 * at each start (tsx ignores its failed cache writes). Never for the built worker.
 */
function tsxCache(entry: Entry): Array<[string, string]> {
  const euid = process.geteuid?.();
  if (!entry.sources || euid === undefined) return [];
  return [[join(tmpdir(), `tsx-${euid}`), '/tmp/tsx-65534']];
}

type Channel = { ref?: () => void; unref?: () => void } | undefined;

/** A worker started ahead of its settings, for the next {@link spawnWorker} to adopt. */
let prestarted: { child: ChildProcess; walled: boolean } | undefined;

/**
 * Starts one worker process now, before its settings are known, so that its start-up (Node without
 * the startup snapshot, isolated-vm, the transpiler) overlaps whatever the caller loads meanwhile: the
 * one-shot CLI calls this before it imports the library and reads its config (decision 022 §3c). The
 * next {@link spawnWorker} adopts it. Until then it keeps nothing alive: a process that never adopts it
 * exits normally, and the worker follows when its IPC channel closes. At most one is kept.
 */
export function prestartWorker(): void {
  if (prestarted !== undefined) return;
  // The config is not read yet: walled when this host has the wall (the default, `auto`). A run
  // under another mode starts its own worker.
  const wall = resolveWall('auto', { quiet: true });
  const child = forkWorker(wall);
  child.on('error', () => {
    // a failed start ends in 'exit'; spawnWorker then forks a new one
  });
  child.unref();
  (child.channel as Channel)?.unref?.();
  (child.stderr as { unref?: () => void } | null)?.unref?.();
  prestarted = { child, walled: wall.status.active };
}

/**
 * A worker process with `settings` (sent as its first message, `init`): the prestarted one if it is
 * still alive, else a new one. Its stdout is closed; stderr is piped to the caller.
 */
export function spawnWorker(settings: WorkerSettings, wall: Wall): ChildProcess {
  let child = prestarted?.child;
  if (prestarted !== undefined && prestarted.walled !== wall.status.active) {
    child?.kill('SIGKILL');
    child = undefined;
  }
  prestarted = undefined;
  if (
    child === undefined ||
    !child.connected ||
    child.exitCode !== null ||
    child.signalCode !== null
  )
    child = forkWorker(wall);
  else {
    child.ref();
    (child.channel as Channel)?.ref?.();
    (child.stderr as { ref?: () => void } | null)?.ref?.();
  }
  const init: HostMessage = { t: 'init', settings };
  // A worker that died meanwhile: the error reaches the callback, and its handle sees the exit.
  child.send(init, () => {});
  return child;
}
