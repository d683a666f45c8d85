/**
 * The second wall, attacked (issue 25, decision record 032). A compromised worker — a node script
 * started by the very function that starts the real sandbox workers (`spawnWalled`, same files,
 * environment and channel) — tries to reach the network, the host's files and processes, to
 * spawn and to signal; every attempt must fail. Then real workers and the real checker are
 * checked from the host: walled (their own PID namespace), and without the host's secrets in
 * their environment. Needs bubblewrap: without it these tests are skipped LOUDLY (CI installs it).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  linkSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createRuntime, defineTool } from '../../src/index.js';
import { childProcesses } from '../compile/helpers.js';
import { permissionFlags, spawnWalled, workerReadPaths } from '../../src/sandbox/worker/spawn.js';
import { killWalled } from '../../src/wall/tree.js';
import { resolveWall, type Wall } from '../../src/wall/wall.js';
import { writeLauncher } from '../../src/compile/native-launcher.js';
import { listeningUrl } from '../support/listening.js';
import { descendants } from '../../benchmarks/load/proc.js';

const ROOT = join(import.meta.dirname, '../..');
const FIXTURE = join(import.meta.dirname, 'fixtures/compromised-worker.mjs');
const IDLE = join(import.meta.dirname, 'fixtures/idle.mjs');
const SECRET = `wall-test-secret-${process.pid}-${Date.now()}`;

const wall: Wall = resolveWall('auto', { quiet: true });
if (!wall.status.active && process.env.CI)
  throw new Error(
    `CI is set but the second wall is not available (${wall.status.reason}): it must be tested`,
  );
if (!wall.status.active)
  console.warn(
    `\n!!! test/wall SKIPPED: the second wall is not available here (${wall.status.reason}). CI installs bubblewrap and runs these. !!!\n`,
  );

type Report = Record<string, unknown>;

function runCompromised(
  execArgv: string[],
  task: Record<string, unknown>,
  noExec = false,
): Promise<Report> {
  return new Promise((resolve, reject) => {
    const child = spawnWalled(
      wall,
      FIXTURE,
      execArgv,
      workerReadPaths(),
      '/',
      [JSON.stringify(task)],
      [],
      noExec,
    );
    child.stderr?.setEncoding('utf8');
    let stderr = '';
    child.stderr?.on('data', (chunk: string) => (stderr += chunk));
    child.once('message', (m) => resolve(m as Report));
    child.once('exit', (code, signal) =>
      reject(new Error(`the compromised worker exited first (${code ?? signal}): ${stderr}`)),
    );
  });
}

describe.runIf(wall.status.active)('the second wall, attacked by a compromised worker', () => {
  let listener: Server;
  let connections = 0;
  let sibling: ChildProcess;
  let secrets: string;
  let task: Record<string, unknown>;
  const marker = `isocode-wall-marker-${process.pid}`;

  beforeAll(async () => {
    listener = createServer((socket) => {
      connections++;
      socket.destroy();
    });
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
    const address = listener.address();
    sibling = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
    // The server's config and audit files, with a secret in them, outside the allow-list.
    secrets = mkdtempSync(join(tmpdir(), 'isocode-wall-host-'));
    writeFileSync(join(secrets, 'isocode.config.json'), JSON.stringify({ key: SECRET }));
    writeFileSync(join(secrets, 'audit.jsonl'), `{"secret":"${SECRET}"}\n`);
    process.env.ISOCODE_WALL_TEST_SECRET = SECRET;
    task = {
      secret: SECRET,
      marker,
      hostPid: process.pid,
      siblingPid: sibling.pid,
      loopbackPort: typeof address === 'object' && address !== null ? address.port : 0,
      reads: {
        '/etc/shadow': '/etc/shadow',
        '/etc/passwd': '/etc/passwd',
        config: join(secrets, 'isocode.config.json'),
        audit: join(secrets, 'audit.jsonl'),
        'repo README': join(ROOT, 'README.md'),
        'repo .git': join(ROOT, '.git/HEAD'),
        'host /root': '/root/.bashrc',
      },
      writes: {
        node_modules: join(ROOT, 'node_modules/isolated-vm/pwned'),
        'the root': '/pwned',
        'repo src': join(ROOT, 'src/pwned.ts'),
        '/dev/shm': '/dev/shm/pwned',
      },
    };
  });

  afterAll(() => {
    listener?.close();
    sibling?.kill('SIGKILL');
    if (secrets !== undefined) rmSync(secrets, { recursive: true, force: true });
    delete process.env.ISOCODE_WALL_TEST_SECRET;
  });

  function expectRefused(report: Report): void {
    for (const name of Object.keys(task.reads as object))
      expect(report[`read ${name}`], `read ${name}`).toBe('ENOENT');
    for (const name of Object.keys(task.writes as object))
      expect(
        ['EROFS', 'ENOENT', 'EACCES'],
        `write ${name}: ${String(report[`write ${name}`])}`,
      ).toContain(report[`write ${name}`]);
    // Its own network namespace: loopback is down, nothing outside exists.
    expect(report['connect loopback']).not.toBe('ok');
    expect(report['connect outside']).not.toBe('ok');
    // No shell in its file system (ENOENT), or no execve at all (EPERM, the post-exec filter).
    expect(['ENOENT', 'EPERM']).toContain(report['spawn /bin/sh']);
    // No terminal to inject keystrokes into (TIOCSTI), no shared memory.
    expect(report['open /dev/tty']).toBe('ENOENT');
    expect(report.dev).toEqual(['fd', 'null', 'random', 'urandom', 'zero']);
    // Its own PID namespace: the host and the sibling do not exist there.
    expect(report['signal host']).toBe('ESRCH');
    expect(report['signal sibling']).toBe('ESRCH');
    expect(report['read host environ']).toBe('ENOENT');
    expect(report['read sibling mem']).toBe('ENOENT');
    expect(report['env has secret']).toBe(false);
    expect(report['proc environs have secret']).toBe('ABSENT');
    expect(Math.max(...(report.pids as number[]))).toBeLessThan(10);
    expect(report.uid).toBe(65534);
    expect((report.interfaces as string[]).filter((name) => name !== 'lo')).toEqual([]);
    expect(report.rlimits).toEqual({
      nofile: '1024',
      nproc: '512',
      core: '0',
      fsize: String(16 * 1024 * 1024),
    });
    expect(connections).toBe(0);
    // The system-call filter (src/wall/seccomp.ts) is on: sockets other than AF_UNIX are refused
    // before any namespace is asked, and the filter's descriptor is not left open.
    if (process.arch === 'x64') {
      expect(report.seccompMode).toBe('2');
      expect(report['connect loopback']).toBe('EAFNOSUPPORT');
      expect(report['udp socket']).toBe('EAFNOSUPPORT');
    }
    expect((report.openFds as string[]).filter((l) => l.includes('seccomp'))).toEqual([]);
    // Its /tmp is its own: the marker it wrote is not in the host's.
    expect(report['private tmp write']).toBe('ok');
    expect(existsSync(join('/tmp', marker))).toBe(false);
  }

  it('refuses every attempt of a worker that escaped isolated-vm (namespaces, binds, rlimits)', async () => {
    const report = await runCompromised([], task);
    if (process.env.ISOCODE_WALL_REPORT === '1') console.log(report);
    expectRefused(report);
    // Without Node's permission model and the post-exec filter (the sources' worker), node itself
    // (bound for the worker) can be started, inside.
    expect(report['spawn node']).toBe('ok');
    expect(report['spawn /bin/sh']).toBe('ENOENT');
    expect(report.seccompFilters).toBe('1');
  });

  it("refuses the same to a compromised compiler started by the checker's launcher", async () => {
    // The launcher runs its binary with the folder it sits in readable: a node there, and the script.
    const dir = mkdtempSync(join(tmpdir(), 'isocode-wall-checker-'));
    try {
      const exe = join(dir, 'node');
      try {
        linkSync(process.execPath, exe);
      } catch {
        copyFileSync(process.execPath, exe);
        chmodSync(exe, 0o755);
      }
      const script = join(dir, 'compromised.mjs');
      copyFileSync(FIXTURE, script);
      const launcher = join(dir, 'launch');
      writeLauncher(launcher, wall, exe);
      process.env.ISOCODE_WALL_TEST_SECRET = SECRET;
      // The host's whole environment, secret included, as the TypeScript client passes it.
      const child = spawn(launcher, [script, JSON.stringify(task)], {
        stdio: ['pipe', 'pipe', 'pipe'],
        env: process.env,
      });
      let stdout = '';
      let stderr = '';
      child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
      child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
      const code = await new Promise((resolve) => child.once('close', resolve));
      expect(code, stderr).toBe(0);
      const report = JSON.parse(stdout) as Report;
      expectRefused(report);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('with the post-exec filter (the built worker’s), no execve at all once started: EPERM', async () => {
    // CI installs firejail's library; where it is missing the wall says so (status.noExec false).
    if (process.env.CI)
      expect(wall.status, wall.status.noExecReason).toMatchObject({ noExec: true });
    if (!wall.status.noExec) {
      console.warn(
        `\n!!! the post-exec filter is not tested here: ${wall.status.noExecReason} !!!\n`,
      );
      return;
    }
    const report = await runCompromised([], task, true);
    expectRefused(report);
    expect(report['spawn node']).toBe('EPERM');
    expect(report['spawn /bin/sh']).toBe('EPERM');
    expect(report['spawn via loader']).toBe('EPERM');
    expect(report.seccompFilters).toBe('2');
  });

  it("with Node's permission model inside (the built worker's seat belt), spawning is refused too", async () => {
    const report = await runCompromised(permissionFlags([...workerReadPaths(), FIXTURE]), task);
    expect(report['spawn node']).toBe('ERR_ACCESS_DENIED');
    expect(report['spawn /bin/sh']).toBe('ERR_ACCESS_DENIED');
    expect(report['read /etc/passwd']).toBe('ERR_ACCESS_DENIED');
  });
});

/** The environment of process `pid`, as the host reads it. */
function environOf(pid: number): string {
  return readFileSync(`/proc/${pid}/environ`, 'latin1');
}

/** The PIDs of `pid` in each PID namespace it is in, outermost first (`NSpid`). */
function nsPids(pid: number): number[] {
  const line = /^NSpid:\s+(.*)$/m.exec(readFileSync(`/proc/${pid}/status`, 'latin1'))?.[1] ?? '';
  return line.trim().split(/\s+/).map(Number);
}

describe.runIf(wall.status.active)('the real workers and checker, seen from the host', () => {
  it("run in their own PID namespace, as the watchdogs see them, without the host's secrets", async () => {
    process.env.ISOCODE_WALL_TEST_SECRET = SECRET;
    const runtime = await createRuntime({
      tools: [
        defineTool({
          name: 'echo',
          description: 'Echoes a text.',
          input: z.object({ text: z.string() }),
          output: z.object({ text: z.string() }),
          execute: ({ text }: { text: string }) => ({ text }),
        }),
      ],
      scopes: { default: { mode: 'code' } },
      codeMode: { wall: 'bwrap', workers: { spareWorkers: 1 } },
    });
    try {
      const r = await runtime.execute({
        name: 'run_code',
        args: { description: 'echo', code: 'return (await tools.echo({ text: "in" })).text;' },
      });
      expect(r.ok).toBe(true);
      const stats = runtime.stats().runner;
      const workers = stats?.sandbox.workers?.pids ?? [];
      expect(workers.length).toBeGreaterThan(0);
      // The checker's compiler: a descendant named tsc.
      const compilers = childProcesses('tsc');
      expect(compilers.length).toBeGreaterThan(0);
      for (const pid of [...workers, ...compilers]) {
        // The watchdogs' pid is the process itself (node or tsc), PID 2 of its own namespace
        // (bubblewrap's reaper is 1).
        expect(readFileSync(`/proc/${pid}/comm`, 'latin1').trim()).toMatch(/^(node|tsc)$/);
        expect(nsPids(pid)).toEqual([pid, 2]);
        const env = environOf(pid);
        expect(env).not.toContain(SECRET);
        expect(
          env
            .split('\0')
            .filter(Boolean)
            .map((kv) => kv.split('=')[0])
            .sort(),
        ).toEqual(expect.arrayContaining(['NODE_ENV', 'PATH']));
        expect(env).not.toContain('ISOCODE_WALL_TEST_SECRET');
      }
      // The workers' memory as the supervisor reads it: the worker's own, not bubblewrap's ~1 MiB.
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(runtime.stats().runner?.sandbox.workers?.rssBytes ?? 0).toBeGreaterThan(20 * 2 ** 20);
      expect(stats?.checker?.rssBytes ?? 0).toBeGreaterThan(5 * 2 ** 20);
    } finally {
      await runtime.close();
      delete process.env.ISOCODE_WALL_TEST_SECRET;
    }
  });
});

/** The processes below `root` whose command line contains `needle`. */
function descendantsRunning(root: number, needle: string): number[] {
  return descendants(root).filter((pid) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'latin1').includes(needle);
    } catch {
      return false; // gone meanwhile
    }
  });
}

describe.runIf(wall.status.active && wall.status.noExec)('the built worker', () => {
  it('refuses execve once started: isocode serve’s workers carry the post-exec filter', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'isocode-wall-built-'));
    const child = spawn(process.execPath, [join(ROOT, 'bin/isocode.js'), 'serve', '--port', '0'], {
      cwd: dir,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    try {
      const { url } = await listeningUrl(child, { label: 'isocode serve', timeoutMs: 60_000 });
      const health = (await (await fetch(`${url}/healthz`)).json()) as { wall?: unknown };
      expect(health.wall).toMatchObject({ active: true, noExec: true });
      const run = (await (
        await fetch(`${url}/v1/run`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ code: 'return 6 * 7;', description: 'built worker' }),
        })
      ).json()) as { ok?: boolean };
      expect(run).toMatchObject({ ok: true });
      const workers = descendantsRunning(child.pid ?? -1, 'sandbox-worker.js').filter((pid) =>
        readFileSync(`/proc/${pid}/comm`, 'latin1').startsWith('node'),
      );
      expect(workers.length).toBeGreaterThan(0);
      for (const pid of workers) {
        const status = readFileSync(`/proc/${pid}/status`, 'latin1');
        // bubblewrap's filter and the post-exec one.
        expect(/^Seccomp_filters:\s+(\d+)$/m.exec(status)?.[1], `worker ${pid}`).toBe('2');
      }
    } finally {
      const gone = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await gone;
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});

describe.runIf(wall.status.active)('killing a walled process', () => {
  it('leaves nothing behind, however early in bubblewrap’s setup the kill comes', async () => {
    // A kill at every stage of the start: before bubblewrap ran, while it builds the sandbox, once
    // the command runs. Each time the child closes (its pipes released by every process below it)
    // and no process of the sandbox is left (test/wall's worst race: an orphaned sandbox PID 1).
    const marker = `wall-kill-${process.pid}-${Date.now()}`;
    for (let i = 0; i < 24; i++) {
      const child = spawnWalled(wall, IDLE, [], workerReadPaths(), '/', [marker]);
      const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
      await new Promise((r) => setTimeout(r, (i % 8) * 4));
      killWalled(child, true);
      const timedOut = await Promise.race([
        closed.then(() => false),
        new Promise<boolean>((r) => setTimeout(() => r(true), 15_000)),
      ]);
      // A process left below the killed child holds its pipes: it never closes.
      expect(timedOut, `kill ${i} (after ${(i % 8) * 4} ms): the child never closed`).toBe(false);
    }
    await new Promise((r) => setTimeout(r, 200));
    const left = readdirSync('/proc')
      .filter((e) => /^\d+$/.test(e))
      .filter((pid) => {
        try {
          return readFileSync(`/proc/${pid}/cmdline`, 'latin1').includes(marker);
        } catch {
          return false;
        }
      });
    expect(left).toEqual([]);
  }, 120_000);
});
