/** Starting `isocode serve` (from source, as users run it) for the console's tests. */
import { spawn } from 'node:child_process';
import { expect } from 'vitest';
import { CLI_ARGS, ROOT } from '../cli/helpers.js';

/** Runs `isocode serve --port 0 <extra>`, calls `probe` with its URL, then stops it (exit 0). */
export async function withServe(
  extra: string[],
  probe: (url: string) => Promise<void>,
): Promise<string> {
  const child = spawn(process.execPath, [...CLI_ARGS, 'serve', '--port', '0', ...extra], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.setEncoding('utf8');
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  try {
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no URL: ${stderr}`)), 60_000);
      child.stderr.on('data', (d: string) => {
        stderr += d;
        const m = /listening on (http:\/\/\S+)/.exec(stderr);
        if (m?.[1]) {
          clearTimeout(timer);
          resolve(m[1]);
        }
      });
      void exited.then((code) => reject(new Error(`serve exited ${code}: ${stderr}`)));
    });
    await probe(url);
  } finally {
    child.kill('SIGTERM');
  }
  expect(await exited).toBe(0);
  return stderr;
}
