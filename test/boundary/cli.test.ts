/**
 * The one-shot CLI and a program that keeps a core busy with a builtin that ignores termination:
 * the run fails with `timeout` and the process exits (isolated-vm would wait for the isolate at a
 * normal exit; the worker process is killed instead).
 */
import { describe, expect, it } from 'vitest';
import { runCli } from '../cli/helpers.js';

describe('isocode run against an uninterruptible program', () => {
  it('fails with timeout and exits, before and after the program returns', async () => {
    const spin =
      'const a: number[] = []; a[2 ** 31] = 1; for (let i = 0; i < 50; i++) a.indexOf(5);';
    for (const program of [
      `${spin}\nreturn 1;`,
      `Promise.resolve().then(() => { ${spin} });\nreturn 1;`,
    ]) {
      const r = await runCli(
        ['run', '-', '--no-typecheck', '--cpu-ms', '300', '--wall-ms', '2000'],
        {
          input: program,
        },
      );
      // Exit 1 with a timeout, or exit 0 when the spin only began after the value was returned:
      // either way the process ends by itself (runCli kills it after 60 s: code null, a failure).
      expect([0, 1]).toContain(r.code);
      if (r.code === 1) expect(r.stderr).toMatch(/timeout/);
    }
  });
});
