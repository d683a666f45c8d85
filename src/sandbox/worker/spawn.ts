/**
 * How a sandbox worker process is started: the built entry (`dist/sandbox-worker.js`, beside the
 * bundle that imports this module) or, when isocode runs from its TypeScript sources (tests,
 * benchmarks), `main.ts` through tsx. The worker needs `--no-node-snapshot` for isolated-vm.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { WorkerSettings } from './protocol.js';

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

/** Starts one worker process with `settings`. Its stdout is closed; stderr is piped to the caller. */
export function spawnWorker(settings: WorkerSettings): ChildProcess {
  cached ??= locate();
  return fork(cached.file, [JSON.stringify(settings)], {
    execArgv: cached.execArgv,
    ...(cached.cwd === undefined ? {} : { cwd: cached.cwd }),
    serialization: 'json',
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    // Only what Node itself needs: a program's worker holds no secret of the host's environment.
    env: { PATH: process.env.PATH ?? '', NODE_ENV: process.env.NODE_ENV ?? 'production' },
  });
}
