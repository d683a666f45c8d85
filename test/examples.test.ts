import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const root = resolve(import.meta.dirname, '..');

describe('the README library example', () => {
  it('runs and prints the warmest city', async () => {
    const { stdout } = await run(
      process.execPath,
      ['--no-node-snapshot', '--import', 'tsx', 'examples/library.ts'],
      { cwd: root },
    );
    expect(stdout).toContain("[ 'run_code' ]");
    expect(stdout).toContain('checked 3 cities');
    expect(stdout).toContain('Nairobi');
  }, 60_000);

  it('runs as CommonJS (require, no top-level await)', async () => {
    const { stdout } = await run(process.execPath, ['--no-node-snapshot', 'examples/library.cjs'], {
      cwd: root,
    });
    expect(stdout).toContain('Nairobi');
  }, 60_000);
});
