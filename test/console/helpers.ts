/** Starting `isocode serve` (from source, as users run it) for the console's tests. */
import { spawn } from 'node:child_process';
import { expect } from 'vitest';
import { CLI_ARGS, ROOT } from '../cli/helpers.js';
import { listeningUrl } from '../support/listening.js';

/** Runs `isocode serve --port 0 <extra>`, calls `probe` with its URL, then stops it (exit 0). */
export async function withServe(
  extra: string[],
  probe: (url: string) => Promise<void>,
): Promise<string> {
  const child = spawn(process.execPath, [...CLI_ARGS, 'serve', '--port', '0', ...extra], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  let stderr = (): string => '';
  try {
    const listening = await listeningUrl(child, { label: 'isocode serve' });
    stderr = listening.stderr;
    await probe(listening.url);
  } finally {
    child.kill('SIGTERM');
  }
  expect(await exited).toBe(0);
  return stderr();
}
