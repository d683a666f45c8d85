/**
 * The compiler's child process, reached inside the pinned `typescript-native` async client, and the
 * small process helpers the session needs (waiting for an exit, bounded waits).
 */

import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { Writable } from 'node:stream';
import type { API } from 'typescript-native/unstable/async';

const noop = (): void => {};

/**
 * The child process of `api`'s client (a private field of the pinned version: the only way to notice a
 * crash and to guarantee that close() leaves no process behind), made safe against write errors.
 * `undefined` until the client has spawned it, or if the field is not where this version keeps it.
 */
export function compilerProcess(api: API): ChildProcess | undefined {
  const client = (api as unknown as { client?: { process?: unknown } }).client;
  const proc = client?.process as ChildProcess | undefined;
  if (!proc || typeof proc.pid !== 'number' || typeof proc.once !== 'function') return undefined;
  if (!PATCHED.has(proc)) {
    PATCHED.add(proc);
    proc.on('error', noop);
    if (proc.stdin) swallowWriteErrors(proc.stdin);
    // An idle compiler does not keep Node alive (a forgotten close() must not hang a CLI); a check in
    // flight does, through its deadline timer. When Node exits, the compiler reads EOF and exits too.
    proc.unref();
    for (const stream of [proc.stdin, proc.stdout])
      (stream as { unref?: () => void } | null)?.unref?.();
  }
  return proc;
}

const PATCHED = new WeakSet<ChildProcess>();

/**
 * Spawns the compiler process before any request is written (so write errors are contained from the
 * first byte on). Falls back to the client's lazy spawn if this version has no `connect()`.
 */
export async function spawnCompiler(api: API): Promise<void> {
  const client = (api as unknown as { client?: { connect?: unknown } }).client;
  if (client && typeof client.connect === 'function') {
    await (client.connect as () => Promise<void>).call(client);
  }
}

/**
 * The JSON-RPC client rethrows a failed request write inside an async promise executor: an unhandled
 * rejection that would take the whole service down when the compiler dies between two writes. Writes to a
 * dead or closed compiler are dropped instead; the session notices the exit (or the deadline) and fails
 * the pending requests itself.
 */
function swallowWriteErrors(stdin: Writable): void {
  stdin.on('error', noop);
  const write = stdin.write.bind(stdin) as (
    chunk: unknown,
    encoding: unknown,
    callback: (error?: Error | null) => void,
  ) => boolean;
  const patched = (chunk: unknown, encoding?: unknown, callback?: unknown): boolean => {
    const done = (typeof encoding === 'function' ? encoding : callback) as
      ((error?: Error | null) => void) | undefined;
    const enc = typeof encoding === 'function' ? undefined : encoding;
    if (stdin.writableEnded || stdin.destroyed) {
      if (done) process.nextTick(done);
      return false;
    }
    return write(chunk, enc, () => done?.());
  };
  stdin.write = patched as Writable['write'];
}

export function waitForExit(child: ChildProcess, ms: number): Promise<boolean> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(true);
  return withTimeout(
    new Promise<boolean>((resolve) => child.once('exit', () => resolve(true))),
    ms,
  ).then((exited) => exited === true);
}

export function withTimeout<T>(work: Promise<T>, ms: number): Promise<T | undefined> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(undefined), ms);
    work.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      () => {
        clearTimeout(timer);
        resolve(undefined);
      },
    );
  });
}

/**
 * The resident set size of process `pid` in bytes, from Linux's `/proc/<pid>/status` (`VmRSS`, in kB);
 * `undefined` where there is no such file (another OS, or the process is gone).
 */
export function residentBytes(pid: number): number | undefined {
  let status: string;
  try {
    status = readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return undefined;
  }
  const kb = /^VmRSS:\s+(\d+)\s+kB/m.exec(status)?.[1];
  return kb === undefined ? undefined : Number(kb) * 1024;
}
