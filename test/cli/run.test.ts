/**
 * `isocode run` and `isocode check` as child processes: output, exit codes (0 / 1 / 2) and a clean
 * process exit after sandbox limit kills.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { rmSync } from 'node:fs';
import { runCli } from './helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'isocode-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

describe('shipped examples from any working directory', () => {
  // An app's directory has no examples/: the package's own are used (src/cli/input.ts shippedPath).
  it('run, sdk --tools and --config resolve examples/… from the package, and a local file wins', async () => {
    const app = mkdtempSync(join(tmpdir(), 'isocode-app-'));
    try {
      const run = await runCli(['run', 'examples/hello.ts'], { cwd: app });
      expect(run.code).toBe(0);
      expect(run.stdout).toContain('Hello From Isocode!');
      const sdk = await runCli(['sdk', '--tools', 'examples/tools.mjs'], { cwd: app });
      expect(sdk.stderr).toBe('');
      expect(sdk.code).toBe(0);
      expect(sdk.stdout).toMatch(/weather/);
      const configured = await runCli(
        ['run', '--config', 'examples/isocode.config.json', '--scope', 'weather-only', '-'],
        { cwd: app, input: 'return Object.keys(tools).sort();' },
      );
      expect(configured.stderr).toBe('');
      expect(configured.stdout).toContain('"weather"');
      expect(configured.stdout).not.toContain('"kv"');
      // A file of the app's own with that name is the one read.
      mkdirSync(join(app, 'examples'));
      writeFileSync(join(app, 'examples', 'hello.ts'), 'return "the app\'s own";');
      const own = await runCli(['run', 'examples/hello.ts'], { cwd: app });
      expect(own.stdout).toContain("the app's own");
    } finally {
      rmSync(app, { recursive: true, force: true });
    }
  });
});

describe('isocode run', () => {
  it('runs examples/hello.ts with the built-in demo tools and no config (exit 0)', async () => {
    const r = await runCli(['run', 'examples/hello.ts']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Hello From Isocode!');
    expect(r.stdout).toContain('The poem has 13 words on 3 lines.');
    expect(r.stdout).toContain('"poem/3"');
  });

  it('reads the program from stdin with - and prints the full ToolResult with --json', async () => {
    const r = await runCli(['run', '-', '--json'], {
      input: `console.log('hi');\nreturn (await tools.text.word_count({ text: 'a b c' })).words;`,
    });
    expect(r.code).toBe(0);
    const result = JSON.parse(r.stdout) as {
      ok: boolean;
      value: { result: number; logs: unknown[] };
      meta: { savings?: { nestedCalls: number; wireTokens: number } };
    };
    expect(result.ok).toBe(true);
    expect(result.value.result).toBe(3);
    expect(result.value.logs).toEqual([{ level: 'log', text: 'hi' }]);
    // --json prints the whole result, the savings ledger included (plain output skips it).
    expect(result.meta.savings?.nestedCalls).toBe(1);
    expect(result.meta.savings?.wireTokens).toBeGreaterThan(0);
  });

  it('a program file past 8 MiB, or a device that never ends, is a usage error (exit 2), read no further', async () => {
    const big = file('big.ts', `return 1;\n//${'x'.repeat(9 * 1024 * 1024)}`);
    for (const path of [big, '/dev/zero']) {
      const r = await runCli(['run', path]);
      expect(r.code, path).toBe(2);
      expect(r.stderr).toContain('too large (over 8 MiB)');
    }
  });

  it('a type error: diagnostics with file:line:col, "error: typecheck", exit 1, nothing ran', async () => {
    const prog = file('bad-type.ts', `console.log('never');\nconst n: number = 'x';\nreturn n;\n`);
    const r = await runCli(['run', prog]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`${prog}:2:7 - error TS2322`);
    expect(r.stderr).toMatch(/^error: typecheck: /m);
    expect(r.stdout).toBe('');
  });

  it('--no-typecheck runs a program the checker would reject', async () => {
    const prog = file(
      'untyped.ts',
      `const n: number = 'x' as unknown as number;\nconst s: string = 42 as never;\nreturn typeof s;\n`,
    );
    const r = await runCli(['run', prog, '--no-typecheck']);
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe('number');
  });

  it('an exception: logs before the failure on stdout, "error: exception: ..." on stderr, exit 1', async () => {
    const prog = file('throws.ts', `console.log('before');\nthrow new Error('boom');\n`);
    const r = await runCli(['run', prog]);
    expect(r.code).toBe(1);
    expect(r.stdout.trim()).toBe('before');
    expect(r.stderr).toMatch(/^error: exception: .*boom/m);
  });

  it('a memory bomb under --memory-mb 16: "error: memory", exit 1, no signal or crash', async () => {
    const prog = file(
      'memory-bomb.ts',
      `const hoard: number[][] = [];\nfor (;;) hoard.push(new Array(1_000_000).fill(7));\n`,
    );
    const r = await runCli(['run', prog, '--memory-mb', '16']);
    expect(r.signal).toBeNull();
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^error: memory: /m);
  });

  it('an infinite loop under --cpu-ms 300: "error: timeout", exit 1, no signal or crash', async () => {
    const prog = file('spin.ts', `let i = 0;\nfor (;;) i++;\n`);
    const r = await runCli(['run', prog, '--cpu-ms', '300']);
    expect(r.signal).toBeNull();
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^error: timeout: /m);
  });

  it('limits from the config file apply too', async () => {
    const config = file('limits.json', JSON.stringify({ limits: { cpuMs: 200 } }));
    const r = await runCli(['run', '-', '--config', config], { input: 'for (;;) {}' });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^error: timeout: /m);
  });

  it('runs against a --tools module in a code-mode scope', async () => {
    const mod = file(
      'tools.mjs',
      `export default [{
  name: 'math.add',
  description: 'Adds two numbers.',
  input: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'], additionalProperties: false },
  output: { type: 'object', properties: { sum: { type: 'number' } }, required: ['sum'] },
  execute: ({ a, b }) => ({ sum: a + b }),
}];\n`,
    );
    const r = await runCli(['run', '-', '--tools', mod], {
      input: `const { sum } = await tools.math.add({ a: 2, b: 40 });\nreturn sum;`,
    });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe('42');
  });
});

describe('usage and config errors exit 2', () => {
  it('a config with a bad key names the key path', async () => {
    const config = file(
      'bad.json',
      JSON.stringify({ sources: [{ builtin: 'demo' }], limits: { cpuMs: 'fast' } }),
    );
    const r = await runCli(['run', 'examples/hello.ts', '--config', config]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^error: INVALID_CONFIG: .*limits\.cpuMs/m);
  });

  it('a missing config file', async () => {
    const r = await runCli(['run', 'examples/hello.ts', '--config', join(dir, 'nope.json')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('file not found');
  });

  it('an unknown scope, a missing program, a bad flag value, an unknown option', async () => {
    const results = await Promise.all([
      runCli(['run', 'examples/hello.ts', '--scope', 'nope']),
      runCli(['run', join(dir, 'missing.ts')]),
      runCli(['run', 'examples/hello.ts', '--cpu-ms', 'lots']),
      runCli(['run', 'examples/hello.ts', '--frobnicate']),
    ]);
    expect(results.map((r) => r.code)).toEqual([2, 2, 2, 2]);
    expect(results[0]?.stderr).toContain('INVALID_SCOPE');
    expect(results[1]?.stderr).toContain('file not found');
    expect(results[2]?.stderr).toContain('--cpu-ms must be a positive integer');
    expect(results[3]?.stderr).toContain("unknown option '--frobnicate'");
  });

  it('a native-mode scope cannot run programs', async () => {
    const config = file('native.json', JSON.stringify({ scopes: { default: { mode: 'native' } } }));
    const r = await runCli(['run', 'examples/hello.ts', '--config', config]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('native mode');
  });
});

describe('isocode check', () => {
  it('a well-typed program: exit 0, no diagnostics', async () => {
    const r = await runCli(['check', 'examples/hello.ts']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('no problems');
  });

  it('diagnostics on stdout (or as JSON), exit 1', async () => {
    const prog = file('check-bad.ts', `await tools.kv.get({ key: 1 });\n`);
    const [plain, json] = await Promise.all([
      runCli(['check', prog]),
      runCli(['check', prog, '--json']),
    ]);
    expect(plain.code).toBe(1);
    expect(plain.stdout).toMatch(
      new RegExp(`^${prog.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:1:\\d+ - error TS\\d+: `),
    );
    expect(json.code).toBe(1);
    const diagnostics = JSON.parse(json.stdout) as { kind: string; line: number }[];
    expect(diagnostics[0]).toEqual(expect.objectContaining({ kind: 'typecheck', line: 1 }));
  });
});
