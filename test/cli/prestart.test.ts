/**
 * `isocode run` starts its sandbox worker process before it loads the library and its config, and the
 * runtime adopts it (decision 022 §3c). These tests watch the real processes: a worker the runtime adopts
 * serves the run with the limits the flags set; a worker nothing adopts (a config that runs programs
 * in-process) does not outlive the CLI.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CLI_ARGS, ROOT, runCli } from './helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'isocode-prestart-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * Processes whose environment holds `marker`. Sandbox workers inherit only PATH and NODE_ENV, so the
 * marker travels as a PATH entry that names no real directory.
 */
function processesWith(marker: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/environ`, 'latin1').includes(marker))
        found.push(Number(entry));
    } catch {
      // gone, or not ours to read
    }
  }
  return found;
}

/** The parent process id of `pid` (field 4 of /proc/<pid>/stat, after the command name's parentheses). */
function parentOf(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return undefined;
  }
}

/**
 * The sandbox worker processes among {@link processesWith}`(marker)`: Node processes running the
 * worker's entry whose parent is not one of them. Behind the second wall (decision 032) a worker is
 * started as `prlimit … bwrap … node …`: prlimit execs bubblewrap, which starts the Node process,
 * and only that one is the worker (counting by entry name alone would count the prlimit process for
 * the moment before its exec). A process a worker forks has the worker's command line until it execs
 * (from sources, tsx's transformer starts esbuild's service on a cache miss), and is not a worker.
 */
function workersWith(marker: string): number[] {
  const candidates = processesWith(marker).filter((pid) => {
    try {
      const argv = readFileSync(`/proc/${pid}/cmdline`, 'latin1').split('\0');
      if (argv[0] !== process.execPath && !/(^|\/)node$/.test(argv[0] ?? '')) return false;
      return argv.some((a) => /sandbox[-/\\]worker/.test(a));
    } catch {
      return false;
    }
  });
  return candidates.filter((pid) => {
    const parent = parentOf(pid);
    return parent !== undefined && !candidates.includes(parent);
  });
}

async function waitFor(check: () => boolean, ms: number): Promise<boolean> {
  for (const end = Date.now() + ms; Date.now() < end;) {
    if (check()) return true;
    await new Promise((r) => setTimeout(r, 25));
  }
  return check();
}

/** `isocode <args>` with a fresh marker in its environment; its stdin stays open until `end`. */
function startCli(args: readonly string[]): {
  marker: string;
  stdout: () => string;
  closed: Promise<number | null>;
  end: (program: string) => void;
  kill: () => void;
} {
  const marker = `/isocode-prestart-${randomUUID()}`;
  const child = spawn(process.execPath, [...CLI_ARGS, ...args], {
    cwd: ROOT,
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { ...process.env, PATH: `${process.env.PATH ?? ''}:${marker}` },
  });
  let stdout = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  return {
    marker,
    stdout: () => stdout,
    closed: new Promise((resolve) => child.once('close', resolve)),
    end: (program) => child.stdin.end(program),
    kill: () => {
      child.kill('SIGKILL');
      for (const pid of processesWith(marker)) process.kill(pid, 'SIGKILL');
    },
  };
}

describe.runIf(process.platform === 'linux')('the CLI starts its sandbox worker early', () => {
  it('a worker nothing adopts (sandbox: "in-process") exits with the CLI', async () => {
    const config = join(dir, 'in-process.json');
    writeFileSync(config, JSON.stringify({ sandbox: 'in-process' }));
    const cli = startCli(['run', '-', '--config', config]);
    try {
      // The program is not written yet: the CLI has started its worker and waits on stdin.
      expect(await waitFor(() => workersWith(cli.marker).length === 1, 30_000)).toBe(true);
      cli.end(`return (await tools.text.word_count({ text: 'a b c' })).words;`);
      expect(await cli.closed).toBe(0);
      expect(cli.stdout()).toContain('3');
      expect(await waitFor(() => processesWith(cli.marker).length === 0, 10_000)).toBe(true);
    } finally {
      cli.kill();
    }
  });

  it('the runtime adopts the worker started before the program was read: one process serves the run', async () => {
    const cli = startCli(['run', '-']);
    try {
      // The CLI waits on stdin: the one worker there now was started before the library loaded.
      expect(await waitFor(() => workersWith(cli.marker).length === 1, 30_000)).toBe(true);
      const early = workersWith(cli.marker)[0];
      const seen = new Set<number>();
      const watch = setInterval(() => workersWith(cli.marker).forEach((pid) => seen.add(pid)), 5);
      cli.end(
        `for (let i = 0; i < 900; i++) await tools.kv.set({ key: 'k' + i, value: 'v' }); return 'served';`,
      );
      const code = await cli.closed;
      clearInterval(watch);
      expect(code).toBe(0);
      expect(cli.stdout()).toContain('served');
      expect([...seen]).toEqual([early]);
    } finally {
      cli.kill();
    }
  });

  it('runs under the flags\' limits (a memory bomb ends "memory") and leave no worker behind', async () => {
    const marker = `/isocode-prestart-${randomUUID()}`;
    const env = { ...process.env, PATH: `${process.env.PATH ?? ''}:${marker}` };
    const bomb = `const a: string[] = []; for (;;) a.push('x'.repeat(1024) + a.length); return 0;`;
    const r = await runCli(['run', '-', '--memory-mb', '16'], { input: bomb, env });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^error: memory/m);
    const ok = await runCli(['run', '-'], { input: 'return 1 + 1;', env });
    expect(ok.code).toBe(0);
    expect(ok.stdout).toContain('2');
    expect(await waitFor(() => processesWith(marker).length === 0, 10_000)).toBe(true);
  });
});
