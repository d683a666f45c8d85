/**
 * The provider types against the official SDKs' (`openai`, `@anthropic-ai/sdk`, exact dev
 * dependencies): test/fixtures/provider-types/sdk-types.ts writes an agent turn of each API with
 * no cast, and `tsc --strict --noEmit` must accept it, with and without exactOptionalPropertyTypes.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));
const dir = join(root, 'test', 'fixtures', 'provider-types');
const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');

function typecheck(...flags: string[]): { status: number | null; output: string } {
  const result = spawnSync(
    process.execPath,
    [tsc, '-p', join(dir, 'tsconfig.json'), '--strict', '--noEmit', ...flags],
    { encoding: 'utf8' },
  );
  return { status: result.status, output: result.stdout + result.stderr };
}

describe('provider types against the official SDKs', () => {
  it('the fixture casts nothing and silences nothing but its two expected errors', () => {
    const code = readFileSync(join(dir, 'sdk-types.ts'), 'utf8').replace(
      /^\s*(\/\/|\*|\/\*\*).*$/gm,
      '',
    );
    expect(code).not.toMatch(/\bas\s+(?!const\b)[A-Za-z{[(]/);
    expect(code).not.toMatch(/<[A-Z][\w.]*>\s*[a-z(]/); // no angle-bracket assertions
    expect(code).not.toMatch(/@ts-ignore|@ts-nocheck|\bany\b/);
    const source = readFileSync(join(dir, 'sdk-types.ts'), 'utf8');
    expect(source.match(/@ts-expect-error/g)).toHaveLength(2);
    expect(source).toMatch(/from 'openai'/);
    expect(source).toMatch(/from '@anthropic-ai\/sdk'/);
  });

  it('compile under tsc --strict --noEmit', { timeout: 120_000 }, () => {
    const { status, output } = typecheck();
    expect(output).toBe('');
    expect(status).toBe(0);
  });

  it('compile with exactOptionalPropertyTypes too', { timeout: 120_000 }, () => {
    const { status, output } = typecheck('--exactOptionalPropertyTypes');
    expect(output).toBe('');
    expect(status).toBe(0);
  });
});
