// The child process of a stdio upstream: what it inherits (checked on a real child that reports its
// own environment), and what a first-connection failure says about it (real children that fail at
// start writing to stderr, and that hang).
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isIsocodeError } from '../../src/index.js';
import type { IsocodeError } from '../../src/index.js';
import {
  DEFAULT_INHERITED_ENV,
  loadSources,
  mcpTools,
  parseConfig,
} from '../../src/sources/index.js';
import type { McpStdioOptions } from '../../src/sources/index.js';
import { alive, ctx, rejection, tool } from './helpers.js';

const node = process.execPath;
const fixture = (name: string): string =>
  fileURLToPath(new URL(`../fixtures/mcp/${name}`, import.meta.url));

/** The environment the env fixture server sees, spawned with `options`. */
async function childEnv(options: Partial<McpStdioOptions> = {}): Promise<Record<string, string>> {
  const source = await mcpTools({
    name: 'envsrv',
    mcp: { command: node, args: [fixture('env-server.mjs')], ...options },
  });
  try {
    const out = (await tool(source.tools, 'envsrv.env').execute({}, ctx())) as { text: string };
    return JSON.parse(out.text) as Record<string, string>;
  } finally {
    await source.close();
  }
}

const PARENT: Record<string, string> = {
  HTTPS_PROXY: 'http://proxy.test:3128',
  https_proxy: 'http://proxy.test:3128',
  NO_PROXY: 'localhost,.internal',
  NODE_EXTRA_CA_CERTS: '/etc/corp/ca.pem',
  SSL_CERT_FILE: '/etc/corp/bundle.pem',
  SSL_CERT_DIR: '/etc/corp/certs',
  ISOCODE_TEST_SECRET: 'db-password',
  ISOCODE_TEST_PICK_A: 'a',
  ISOCODE_TEST_PICK_B: 'b',
  ISOCODE_TEST_OTHER: 'x',
};

describe('a stdio upstream child inherits the allow-list, and only it', () => {
  const saved = new Map<string, string | undefined>();
  beforeAll(() => {
    for (const [k, v] of Object.entries(PARENT)) {
      saved.set(k, process.env[k]);
      process.env[k] = v;
    }
  });
  afterAll(() => {
    for (const [k, v] of saved) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  });

  it('passes proxies (both cases), CA variables and PATH; never the rest of the environment', async () => {
    const env = await childEnv();
    expect(env).toMatchObject({
      HTTPS_PROXY: PARENT.HTTPS_PROXY,
      https_proxy: PARENT.https_proxy,
      NO_PROXY: PARENT.NO_PROXY,
      NODE_EXTRA_CA_CERTS: PARENT.NODE_EXTRA_CA_CERTS,
      SSL_CERT_FILE: PARENT.SSL_CERT_FILE,
      SSL_CERT_DIR: PARENT.SSL_CERT_DIR,
      PATH: process.env.PATH,
    });
    expect(env.ISOCODE_TEST_SECRET).toBeUndefined();
    expect(env.ISOCODE_TEST_PICK_A).toBeUndefined();
  });

  it('inheritEnv adds names and PREFIX_* patterns; env values win over inherited ones', async () => {
    const env = await childEnv({
      inheritEnv: ['ISOCODE_TEST_PICK_*', 'ISOCODE_TEST_OTHER'],
      env: { HTTPS_PROXY: 'http://other.test:8080' },
    });
    expect(env.ISOCODE_TEST_PICK_A).toBe('a');
    expect(env.ISOCODE_TEST_PICK_B).toBe('b');
    expect(env.ISOCODE_TEST_OTHER).toBe('x');
    expect(env.HTTPS_PROXY).toBe('http://other.test:8080');
    expect(env.ISOCODE_TEST_SECRET).toBeUndefined();
  });

  it('takes inheritEnv from isocode.config.json, and refuses a malformed entry', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'isocode-env-'));
    const source = {
      name: 'envsrv',
      mcp: {
        command: node,
        args: [fixture('env-server.mjs')],
        inheritEnv: ['ISOCODE_TEST_PICK_A'],
      },
    };
    const loaded = await loadSources(parseConfig({ sources: [source] }, dir));
    try {
      const out = (await tool(loaded.tools, 'envsrv.env').execute({}, ctx())) as { text: string };
      const env = JSON.parse(out.text) as Record<string, string>;
      expect(env.ISOCODE_TEST_PICK_A).toBe('a');
      expect(env.ISOCODE_TEST_PICK_B).toBeUndefined();
    } finally {
      await loaded.close();
      await rm(dir, { recursive: true, force: true });
    }
    const bad = { ...source, mcp: { ...source.mcp, inheritEnv: ['*'] } };
    const error = await rejection(
      Promise.resolve().then(() => parseConfig({ sources: [bad] }, dir)),
    );
    expect(isIsocodeError(error) && error.code).toBe('INVALID_CONFIG');
    expect((error as Error).message).toMatch(/inheritEnv.*PREFIX_\*/s);
  });

  it('docs/config.md lists every default name (the list has one owner, the docs follow it)', async () => {
    const doc = await readFile(
      fileURLToPath(new URL('../../docs/config.md', import.meta.url)),
      'utf8',
    );
    const section = doc.slice(doc.indexOf('### Inherited environment'));
    for (const name of DEFAULT_INHERITED_ENV) expect(section).toContain(`\`${name}\``);
  });
});

describe('a first-connection failure quotes the child stderr, made safe to show', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'isocode-child-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  async function failure(args: string[], connectTimeoutMs = 30_000): Promise<IsocodeError> {
    const error = await rejection(
      mcpTools({ name: 'up', mcp: { command: node, args }, connectTimeoutMs }),
    );
    if (!isIsocodeError(error)) throw error;
    expect(error.code).toBe('UPSTREAM_UNAVAILABLE');
    return error;
  }

  it('a child that exits at start: its last lines, with terminal escapes and bidi controls escaped', async () => {
    const script = join(dir, 'crash.mjs');
    await writeFile(
      script,
      [
        'for (let i = 0; i < 40; i++) console.error("noise line " + i);',
        'console.error("\\u001b[31mError: self-signed certificate in certificate chain\\u202e");',
        'process.exit(1);',
      ].join('\n'),
    );
    const error = await failure([script]);
    expect(error.message).toContain(
      'stderr: noise line 33 | noise line 34 | noise line 35 | noise line 36 | noise line 37 | ' +
        'noise line 38 | noise line 39 | \\u001B[31mError: self-signed certificate in certificate chain\\u202E)',
    );
    expect(error.message).not.toContain('\u001b');
    expect(error.message).not.toContain('\u202e');
    expect(error.message).not.toContain('noise line 32');
    expect(error.details?.stderrTail).toMatch(/certificate chain\\u202E$/);
  });

  it('bounds what it quotes (the end kept) when the child writes long lines', async () => {
    const script = join(dir, 'long.mjs');
    await writeFile(
      script,
      'for (let i = 0; i < 20; i++) console.error(String(i).padEnd(3000, "x")); console.error("the end"); process.exit(1);\n',
    );
    const error = await failure([script]);
    const tail = String(error.details?.stderrTail);
    expect(tail.length).toBeLessThanOrEqual(1000);
    expect(tail.startsWith('…')).toBe(true);
    expect(tail.endsWith('the end')).toBe(true);
  });

  it('a child that hangs: the handshake stage and time limit, its stderr, and the child ended first', async () => {
    const pidFile = join(dir, 'stuck.pid');
    const error = await failure(
      [
        fixture('stuck-server.mjs'),
        pidFile,
        'npm warn fetch retry UNABLE_TO_GET_ISSUER_CERT_LOCALLY\n',
      ],
      1000,
    );
    expect(error.message).toBe(
      'upstream MCP server "up" is not reachable: no answer to initialize within 1000 ms ' +
        '(stderr: npm warn fetch retry UNABLE_TO_GET_ISSUER_CERT_LOCALLY)',
    );
    // gone when the failure is reported: a CLI that exits on it leaves no hung child behind
    expect(alive(Number(await readFile(pidFile, 'utf8')))).toBe(false);
  });

  it('a child that hangs silently: says it wrote nothing to stderr', async () => {
    const pidFile = join(dir, 'silent.pid');
    const error = await failure([fixture('stuck-server.mjs'), pidFile], 1000);
    expect(error.message).toBe(
      'upstream MCP server "up" is not reachable: no answer to initialize within 1000 ms ' +
        '(it wrote nothing to stderr)',
    );
    expect(alive(Number(await readFile(pidFile, 'utf8')))).toBe(false);
  });
});

describe.skipIf(process.platform === 'win32')('a server started through a launcher', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'isocode-tree-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  /** `sh` stays the direct child (it waits for the server): the server is isocode's grandchild. */
  const viaLauncher = (server: string, pidFile: string) => ({
    command: '/bin/sh',
    args: ['-c', '"$0" "$1" "$2"; echo launcher done >&2', node, fixture(server), pidFile],
  });

  it('closing the source ends the server too, though it ignores SIGTERM and the end of its input', async () => {
    const pidFile = join(dir, 'lingering.pid');
    const source = await mcpTools({
      name: 'tree',
      mcp: viaLauncher('lingering-server.mjs', pidFile),
    });
    const out = (await tool(source.tools, 'tree.pid').execute({}, ctx())) as { text: string };
    const pid = Number(await readFile(pidFile, 'utf8'));
    expect(Number(out.text)).toBe(pid);
    expect(alive(pid)).toBe(true);
    await source.close();
    // Before, the launcher was ended and the server, reparented to init, ran on.
    for (let i = 0; i < 100 && alive(pid); i++) await new Promise((r) => setTimeout(r, 50));
    expect(alive(pid)).toBe(false);
  }, 30_000);

  it('a launched server that hangs at start is ended with its launcher when the failure is reported', async () => {
    const pidFile = join(dir, 'stuck.pid');
    const error = await rejection(
      mcpTools({
        name: 'tree',
        mcp: viaLauncher('stuck-server.mjs', pidFile),
        connectTimeoutMs: 1000,
      }),
    );
    expect(error).toMatchObject({ code: 'UPSTREAM_UNAVAILABLE' });
    expect(alive(Number(await readFile(pidFile, 'utf8')))).toBe(false);
  }, 30_000);
});
