/**
 * `isocode run` / `check` never hand a terminal an escape sequence a program wrote (decision 028):
 * the CLI is spawned on a program that logs and returns ESC sequences (OSC 52 clipboard, OSC 0
 * title, screen clear), BEL, NUL, C1 controls and bidi overrides; the captured bytes hold none of
 * them raw, and show each as an escape. `--json` stays JSON that parses to the same values.
 */
import { describe, expect, it } from 'vitest';
import { runCli } from './helpers.js';

/** Raw bytes no terminal may receive from a program: C0 but LF/TAB, DEL, C1, bidi, zero-width. */
const RAW =
  // eslint-disable-next-line no-control-regex
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]/u;

const HOSTILE = [
  '\\x1b]52;c;aGVsbG8=\\x07', // OSC 52: write the clipboard
  '\\x1b]0;pwned\\x07', // OSC 0: the window title
  '\\x1b[2J\\x1b[H', // clear the screen
  '\\x1b[31mred\\x1b[0m',
  'bell\\x07 nul\\x00 csi\\u009b',
  'invoice-\\u202Efdp.exe',
];
const PROGRAM = `${HOSTILE.map((s) => `console.log('${s}');`).join('\n')}
console.warn('warn \\x1b[5m');
return { file: 'invoice-\\u202Efdp.exe', esc: '\\x1b]52;c;eA==\\x07' };`;

describe('the CLI shows what a program wrote, never interprets it', () => {
  it('run: logs and result reach stdout with every control and bidi character escaped', async () => {
    const r = await runCli(['run', '-'], { input: PROGRAM });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(RAW.test(r.stdout)).toBe(false);
    const lines = r.stdout.split('\n');
    expect(lines.slice(0, 7)).toEqual([
      '\\u001B]52;c;aGVsbG8=\\u0007',
      '\\u001B]0;pwned\\u0007',
      '\\u001B[2J\\u001B[H',
      '\\u001B[31mred\\u001B[0m',
      'bell\\u0007 nul\\u0000 csi\\u009B',
      'invoice-\\u202Efdp.exe',
      '[warn] warn \\u001B[5m',
    ]);
    // The object result is JSON: hidden characters as JSON escapes, the same value when parsed.
    expect(JSON.parse(lines.slice(7).join('\n'))).toEqual({
      file: 'invoice-\u202Efdp.exe',
      esc: '\u001b]52;c;eA==\u0007',
    });
    expect(r.stdout).toContain('"file": "invoice-\\u202Efdp.exe"');
  }, 120_000);

  it('run --json: valid JSON of the same values, nothing raw', async () => {
    const r = await runCli(['run', '-', '--json'], { input: PROGRAM });
    expect(r.code).toBe(0);
    expect(RAW.test(r.stdout)).toBe(false);
    const parsed = JSON.parse(r.stdout) as { value: { logs: { text: string }[] } };
    expect(parsed.value.logs[5]!.text).toBe('invoice-\u202Efdp.exe');
  }, 120_000);

  it('a failed run and check diagnostics: the message on stderr is escaped too', async () => {
    const r = await runCli(['run', '-'], {
      input: `console.log('before \\u202E'); throw new Error('boom \\x1b]0;t\\x07 \\u202Eexe');`,
    });
    expect(r.code).toBe(1);
    expect(RAW.test(r.stdout + r.stderr)).toBe(false);
    expect(r.stdout).toBe('before \\u202E\n');
    expect(r.stderr).toContain('boom \\u001B]0;t\\u0007 \\u202Eexe');
    const c = await runCli(['check', '-'], { input: `const x: '\u202E\u001b[2J' = 'a';` });
    expect(c.code).toBe(1);
    expect(RAW.test(c.stdout + c.stderr)).toBe(false);
    expect(c.stdout).toContain('type \'"\\u202E');
  }, 120_000);
});
