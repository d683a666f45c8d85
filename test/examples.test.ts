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

// The framework adapters' examples, importing `isocode/ai`, `isocode/openai-agents` and
// `isocode/langchain` as a user does (tsconfig.json's paths map them to the sources for tsx).
describe.each([
  ['ai-sdk', "[ 'run_code' ]"],
  ['openai-agents', 'approve? run_code'],
  ['langchain', "[ 'run_code' ]"],
])('the %s adapter example', (name, shown) => {
  it('runs its loop to the answer', async () => {
    const { stdout } = await run(
      process.execPath,
      ['--no-node-snapshot', '--import', 'tsx', `examples/adapters/${name}.ts`],
      { cwd: root },
    );
    expect(stdout).toContain(shown);
    expect(stdout).toContain('Warmest: Nairobi');
  }, 60_000);
});
