/**
 * Process health after kills: a child process runs a memory bomb and CPU spins through the pool
 * (with a host call pending and a program still running), calls close(), then process.exit(0).
 * Without close() this crashed or hung here (see docs/decisions/004-isolate-strategy.md).
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const fixture = fileURLToPath(new URL('./fixtures/exit-after-kills.ts', import.meta.url));
const root = fileURLToPath(new URL('../../', import.meta.url));

function runChild(): Promise<{
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--no-node-snapshot', '--import', 'tsx', fixture], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

describe('process health', () => {
  it(
    'exits cleanly with code 0 after memory and CPU kills once the pool is closed',
    { timeout: 120_000 },
    async () => {
      for (let attempt = 0; attempt < 3; attempt++) {
        const { code, signal, stdout, stderr } = await runChild();
        expect({ code, signal, stderr }).toEqual({ code: 0, signal: null, stderr: '' });
        expect(JSON.parse(stdout.trim())).toEqual(['memory', 'timeout', 'aborted', 'aborted']);
      }
    },
  );
});
