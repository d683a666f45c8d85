/**
 * Starting `isocode serve` (or `isocode mcp --http`) as a separate process and stopping it: the face
 * under test runs in its own process so a crash is observed (an exit), never shared with the harness.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { isAlive } from './proc.js';

/** The repository root. */
export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/**
 * Which build of the CLI to start: `dist` is `bin/isocode.js` over the built `dist/` (what users run;
 * needs `npm run build`), `source` is the TypeScript source under tsx (what tests use; no build).
 */
export type CliBuild = 'dist' | 'source';

const nodeArgs = (build: CliBuild): string[] =>
  build === 'dist'
    ? ['--no-node-snapshot', join(ROOT, 'bin/isocode.js')]
    : [
        '--no-node-snapshot',
        '--import',
        pathToFileURL(createRequire(join(ROOT, 'package.json')).resolve('tsx')).href,
        join(ROOT, 'test/cli/entry.ts'),
      ];

/** How a face process ended. */
export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** A running face process. */
export interface FaceProcess {
  pid: number;
  /** The base URL it announced (`http://127.0.0.1:<port>`, or `…/mcp` for the MCP face). */
  url: string;
  /** Settles when the process exits (never rejects). */
  exited: Promise<Exit>;
  /** The exit, once it happened. */
  exit(): Exit | undefined;
  /** Everything it wrote to stderr so far (the last 64 KiB). */
  stderr(): string;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves with the exit and whether SIGKILL was needed. */
  stop(graceMs?: number): Promise<Exit & { killed: boolean }>;
}

/** Options of {@link startFace}. */
export interface StartFaceOptions {
  /** CLI arguments, e.g. `['serve', '--config', path, '--port', '0']`. */
  args: readonly string[];
  /** @default 'dist' */
  build?: CliBuild;
  /** @default ROOT */
  cwd?: string;
  /** How long to wait for the "listening on" line. @default 60000 */
  startTimeoutMs?: number;
}

const LISTENING = /listening on (http:\/\/\S+)/;

/** Starts an isocode face and resolves once it announces its URL (rejects if it exits first). */
export function startFace(options: StartFaceOptions): Promise<FaceProcess> {
  const child: ChildProcess = spawn(
    process.execPath,
    [...nodeArgs(options.build ?? 'dist'), ...options.args],
    {
      cwd: options.cwd ?? ROOT,
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  let stderr = '';
  let exit: Exit | undefined;
  const exited = new Promise<Exit>((resolveExit) => {
    child.once('exit', (code, signal) => {
      exit = { code, signal };
      resolveExit(exit);
    });
    child.once('error', () => {
      exit ??= { code: null, signal: null };
      resolveExit(exit);
    });
  });
  const pid = child.pid;
  return new Promise<FaceProcess>((resolveStart, rejectStart) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      rejectStart(new Error(`isocode ${options.args.join(' ')} did not start: ${stderr}`));
    }, options.startTimeoutMs ?? 60_000);
    void exited.then((e) => {
      clearTimeout(timer);
      rejectStart(new Error(`isocode exited while starting (${e.code ?? e.signal}): ${stderr}`));
    });
    child.stderr!.setEncoding('utf8').on('data', (data: string) => {
      stderr = (stderr + data).slice(-65_536);
      const match = LISTENING.exec(stderr);
      if (match === null || pid === undefined) return;
      clearTimeout(timer);
      resolveStart({
        pid,
        url: match[1]!,
        exited,
        exit: () => exit,
        stderr: () => stderr,
        stop: async (graceMs = 20_000) => {
          if (exit) return { ...exit, killed: false };
          child.kill('SIGTERM');
          let killed = false;
          const timer = setTimeout(() => {
            killed = isAlive(pid);
            child.kill('SIGKILL');
          }, graceMs);
          const e = await exited;
          clearTimeout(timer);
          return { ...e, killed };
        },
      });
    });
  });
}
