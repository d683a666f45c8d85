/** `isocode check` prints no `TS0`: syntax errors and refusals have no TypeScript code (issue 12 item 4). */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from './helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'isocode-cli-errors-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('isocode check: findings without a TypeScript code', () => {
  it(
    'a syntax error prints "syntax error:" without TS0; an export has no code in --json',
    { timeout: 400_000 },
    async () => {
      const syntax = join(dir, 'syntax.ts');
      writeFileSync(syntax, 'const a = ;\nreturn a;\n');
      const exported = join(dir, 'export.ts');
      writeFileSync(exported, 'const r = 1;\nexport default r;\n');
      // One after the other: each CLI start type-checks in a fresh compiler process.
      const plain = await runCli(['check', syntax], { timeoutMs: 180_000 });
      expect(plain.code).toBe(1);
      expect(plain.stdout).toContain(`${syntax}:1:11 - syntax error: `);
      expect(plain.stdout).not.toContain('TS0');
      const json = await runCli(['check', exported, '--json'], { timeoutMs: 180_000 });
      expect(json.code).toBe(1);
      const diagnostics = JSON.parse(json.stdout) as {
        code?: number;
        kind: string;
        line: number;
        message: string;
      }[];
      expect(diagnostics).toHaveLength(1);
      expect(diagnostics[0]).toMatchObject({ kind: 'syntax', line: 2 });
      expect(diagnostics[0]).not.toHaveProperty('code');
      expect(diagnostics[0]?.message).toContain('A run_code program cannot `export`');
    },
  );
});
