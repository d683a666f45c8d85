/**
 * A throwaway PostgreSQL server for tests, from Debian's packages (`/usr/lib/postgresql/<v>/bin`):
 * initdb into a temporary directory, pg_ctl start on a free loopback port, one database. As root
 * the tools run as the `postgres` user (the server refuses root), as .ci/run does.
 */
import { execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A running throwaway server. */
export interface PgServer {
  /** `postgres://postgres@127.0.0.1:<port>/isocode_test`. */
  url: string;
  port: number;
  /** Stops the server (fast shutdown: connections are terminated). */
  stop(): void;
  /** Starts it again on the same port and data. */
  start(): void;
  /** `pg_ctl restart`. */
  restart(): void;
  /** Stops it and removes its directory. Idempotent. */
  destroy(): void;
}

/** The newest installed server's bin directory, or undefined. */
export function pgBinDir(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((v) => existsSync(join(root, v, 'bin', 'initdb')))
    .sort((a, b) => Number(a) - Number(b));
  const newest = versions.at(-1);
  return newest === undefined ? undefined : join(root, newest, 'bin');
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Starts a throwaway server. Throws when no server is installed. */
export async function startPgServer(): Promise<PgServer> {
  const bin = pgBinDir();
  if (bin === undefined) throw new Error('no PostgreSQL server under /usr/lib/postgresql');
  const dir = mkdtempSync(join(tmpdir(), 'isocode-pg-'));
  const root = process.getuid?.() === 0;
  if (root) {
    const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
    chownSync(dir, uid, gid);
  }
  const run = (tool: string, args: string[]): void => {
    const cmd = join(bin, tool);
    if (root)
      execFileSync('su', ['postgres', '-s', '/bin/sh', '-c', [cmd, ...args].map(quote).join(' ')], {
        stdio: 'ignore',
      });
    else execFileSync(cmd, args, { stdio: 'ignore' });
  };
  const port = await freePort();
  const data = join(dir, 'data');
  run('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres']);
  const ctl = (action: string): void =>
    run('pg_ctl', [
      '-D',
      data,
      '-o',
      `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1`,
      '-l',
      join(dir, 'log'),
      '-m',
      'fast',
      '-w',
      action,
    ]);
  ctl('start');
  run('createdb', ['-h', '127.0.0.1', '-p', String(port), '-U', 'postgres', 'isocode_test']);
  let destroyed = false;
  return {
    url: `postgres://postgres@127.0.0.1:${port}/isocode_test`,
    port,
    stop: () => ctl('stop'),
    start: () => ctl('start'),
    restart: () => ctl('restart'),
    destroy() {
      if (destroyed) return;
      destroyed = true;
      try {
        ctl('stop');
      } catch {
        // already stopped
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

const quote = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;
