/**
 * The first string a forked child sends. A child started with `--import tsx` and an IPC channel
 * also receives tsx's own watch-mode messages (`{ type: 'dependency', path }`, sent as each module
 * loads), which may arrive before the fixture's own message: every fixture here sends a string, so
 * everything else is tsx's and is skipped.
 */
import type { ChildProcess } from 'node:child_process';

export function childMessage(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    const onMessage = (m: unknown): void => {
      if (typeof m !== 'string') return;
      done();
      resolve(m);
    };
    const onExit = (code: number | null, signal: string | null): void => {
      done();
      reject(
        new Error(
          `the child exited (code ${String(code)}, signal ${String(signal)}) before its message`,
        ),
      );
    };
    const done = (): void => {
      child.off('message', onMessage);
      child.off('exit', onExit);
    };
    child.on('message', onMessage);
    child.once('exit', onExit);
  });
}
