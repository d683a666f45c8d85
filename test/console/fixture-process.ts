/**
 * Starts the console's fixture service (test/console/fixture-server.ts) in its own process, for
 * the browser tests and the screenshot script (scripts/console-screenshots.ts). No test runner here.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { ROOT } from '../cli/helpers.js';

export const KEY_A = 'console-alpha-key-0123456789abcdef';
export const KEY_B = 'console-beta-key-0123456789abcdef';

/** A running fixture service. */
export interface FixtureService {
  url: string;
  /** Stops it (SIGTERM, then SIGKILL after 10 s). */
  stop(): Promise<void>;
}

/** Starts the fixture service; resolves once it printed `ready <url>`. */
export async function startFixtureService(): Promise<FixtureService> {
  let child: ChildProcess | undefined;
  const url = await new Promise<string>((resolve, reject) => {
    const c = spawn(
      process.execPath,
      ['--no-node-snapshot', '--import', 'tsx', 'test/console/fixture-server.ts'],
      {
        cwd: ROOT,
        env: { ...process.env, CONSOLE_KEY_A: KEY_A, CONSOLE_KEY_B: KEY_B },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    child = c;
    let out = '';
    let err = '';
    c.stdout.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      const m = /^ready (\S+)$/m.exec(out);
      if (m) resolve(m[1]!);
    });
    c.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
    c.once('exit', (code) => reject(new Error(`the fixture server exited (${code}): ${err}`)));
  });
  return {
    url,
    async stop() {
      const c = child;
      if (!c || c.exitCode !== null) return;
      const exited = new Promise((r) => c.once('exit', r));
      c.kill('SIGTERM');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
      if (c.exitCode === null) c.kill('SIGKILL');
    },
  };
}
