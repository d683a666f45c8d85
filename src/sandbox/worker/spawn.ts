/**
 * How a sandbox worker process is started: the built entry (`dist/sandbox-worker.js`, beside the
 * bundle that imports this module) or, when isocode runs from its TypeScript sources (tests,
 * benchmarks), `main.ts` through tsx. The worker needs `--no-node-snapshot` for isolated-vm. Its
 * settings travel as its first IPC message, so a worker can start before they are known.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { HostMessage, WorkerSettings } from './protocol.js';

interface Entry {
  file: string;
  execArgv: string[];
  cwd: string | undefined;
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
    return {
      file: join(dirname(here), 'main.ts'),
      execArgv: [...execArgv, '--import', 'tsx'],
      cwd: packageRoot(dirname(here)),
    };
  }
  return { file: join(dirname(here), 'sandbox-worker.js'), execArgv, cwd: undefined };
}

function forkWorker(): ChildProcess {
  cached ??= locate();
  return fork(cached.file, [], {
    execArgv: cached.execArgv,
    ...(cached.cwd === undefined ? {} : { cwd: cached.cwd }),
    serialization: 'json',
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    // Only what Node itself needs: a program's worker holds no secret of the host's environment.
    env: { PATH: process.env.PATH ?? '', NODE_ENV: process.env.NODE_ENV ?? 'production' },
  });
}

type Channel = { ref?: () => void; unref?: () => void } | undefined;

/** A worker started ahead of its settings, for the next {@link spawnWorker} to adopt. */
let prestarted: ChildProcess | undefined;

/**
 * Starts one worker process now, before its settings are known, so that its start-up (Node without
 * the startup snapshot, isolated-vm, the transpiler) overlaps whatever the caller loads meanwhile: the
 * one-shot CLI calls this before it imports the library and reads its config (decision 022 §3c). The
 * next {@link spawnWorker} adopts it. Until then it keeps nothing alive: a process that never adopts it
 * exits normally, and the worker follows when its IPC channel closes. At most one is kept.
 */
export function prestartWorker(): void {
  if (prestarted !== undefined) return;
  const child = forkWorker();
  child.on('error', () => {
    // a failed start ends in 'exit'; spawnWorker then forks a new one
  });
  child.unref();
  (child.channel as Channel)?.unref?.();
  (child.stderr as { unref?: () => void } | null)?.unref?.();
  prestarted = child;
}

/**
 * A worker process with `settings` (sent as its first message, `init`): the prestarted one if it is
 * still alive, else a new one. Its stdout is closed; stderr is piped to the caller.
 */
export function spawnWorker(settings: WorkerSettings): ChildProcess {
  let child = prestarted;
  prestarted = undefined;
  if (
    child === undefined ||
    !child.connected ||
    child.exitCode !== null ||
    child.signalCode !== null
  )
    child = forkWorker();
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
