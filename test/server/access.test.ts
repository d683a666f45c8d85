/**
 * The one access rule (src/server/auth.ts) through both HTTP faces, with real HTTP requests: the
 * HTTP service (`startHttpServer`) and the MCP endpoint (`serveMcpHttp`) accept and refuse the same
 * Host names, Origins, peers and keys.
 */
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRuntime, isIsocodeError, type Runtime } from '../../src/index.js';
import { serveMcpHttp } from '../../src/mcp/index.js';
import { startHttpServer } from '../../src/server/index.js';
import { builtinDemoTools } from '../../src/sources/index.js';

const KEY = 'access-key-0123456789abcdef';

interface Face {
  name: string;
  /** Starts the face on `host`, with or without keys; returns its port and a stop function. */
  start(host: string, keyed: boolean): Promise<{ port: number; close(): Promise<void> }>;
  method: string;
  path: string;
  body: string | undefined;
  /** The error code a refusal carries in its body. */
  codeOf(body: string): string | undefined;
}

interface Reply {
  status: number;
  body: string;
  headers: Record<string, string | string[] | undefined>;
}

/** One raw HTTP request to 127.0.0.1:port (or `connectTo`), with a Host header of our choosing. */
function send(
  face: Face,
  port: number,
  headers: Record<string, string>,
  connectTo = '127.0.0.1',
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: connectTo,
        port,
        method: face.method,
        path: face.path,
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...headers,
        },
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (body += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body, headers: res.headers }));
      },
    );
    req.on('error', reject);
    req.end(face.body);
  });
}

let runtime: Runtime;
beforeAll(async () => {
  runtime = await createRuntime({ tools: builtinDemoTools(), codeMode: false });
});
afterAll(() => runtime.close());

const FACES: Face[] = [
  {
    name: 'HTTP service',
    start: async (host, keyed) => {
      const s = await startHttpServer({
        runtime,
        defaultScope: 'default',
        apiKeys: keyed ? [{ key: KEY, scope: 'default' }] : [],
        host,
        port: 0,
      });
      return { port: s.port, close: () => s.close() };
    },
    method: 'GET',
    path: '/v1/tools',
    body: undefined,
    codeOf: (body) => (JSON.parse(body) as { error?: { code?: string } }).error?.code,
  },
  {
    name: 'MCP endpoint',
    start: async (host, keyed) => {
      const h = await serveMcpHttp({
        runtime,
        host,
        sessions: 'stateless',
        ...(keyed ? { apiKeys: [{ key: KEY, scope: 'default' }] } : {}),
      });
      return { port: h.port, close: () => h.close() };
    },
    method: 'POST',
    path: '/mcp',
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
    codeOf: (body) =>
      /^(UNAUTHORIZED|FORBIDDEN):/.exec(
        (JSON.parse(body) as { error?: { message?: string } }).error?.message ?? '',
      )?.[1],
  },
];

// IPv4-mapped loopback as clients send it: the URL parser's spelling of [::ffff:127.0.0.1] (the
// adapter answers 400 to any non-canonical spelling of an IPv6 Host before the rule runs).
const MAPPED = '[::ffff:7f00:1]';
const LOOPBACK_HOSTS = [
  '127.0.0.1',
  '127.3.4.5:80',
  '[::1]:8787',
  `${MAPPED}:8787`,
  'localhost:8787',
  'LOCALHOST',
  'localhost.',
  'foo.localhost:8787',
];
const FOREIGN_HOSTS = [
  '127.attacker.example',
  '127.0.0.1.nip.io',
  'localhost.attacker.example',
  'evil.example:8787',
  '93.184.216.34',
  '[2606:2800:220:1::]',
  '[::ffff:a00:1]', // ::ffff:10.0.0.1
];
const LOOPBACK_ORIGINS = [
  'http://localhost:3000',
  'http://foo.localhost',
  'https://127.0.0.1:8443',
  'http://[::1]:3000',
  'http://[::ffff:127.0.0.1]',
];
const FOREIGN_ORIGINS = [
  'http://127.attacker.example',
  'https://evil.example',
  'http://93.184.216.34',
  'null',
  'file://localhost/x',
];

describe.each(FACES)('$name: the shared access rule', (face) => {
  it('anonymous: loopback Host names pass; foreign names are 403 FORBIDDEN (DNS rebinding)', async () => {
    const s = await face.start('127.0.0.1', false);
    try {
      for (const host of LOOPBACK_HOSTS)
        expect((await send(face, s.port, { host })).status, host).toBe(200);
      for (const host of FOREIGN_HOSTS) {
        const r = await send(face, s.port, { host });
        expect(r.status, host).toBe(403);
        expect(face.codeOf(r.body), host).toBe('FORBIDDEN');
      }
    } finally {
      await s.close();
    }
  });

  it('anonymous: a loopback Origin passes; a foreign or opaque Origin is 403', async () => {
    const s = await face.start('127.0.0.1', false);
    try {
      for (const origin of LOOPBACK_ORIGINS)
        expect((await send(face, s.port, { origin })).status, origin).toBe(200);
      for (const origin of FOREIGN_ORIGINS)
        expect((await send(face, s.port, { origin })).status, origin).toBe(403);
    } finally {
      await s.close();
    }
  });

  it('anonymous over an IPv4-mapped loopback bind (::ffff:127.0.0.1 peer and Host)', async () => {
    const s = await face.start('::ffff:127.0.0.1', false);
    try {
      const r = await send(face, s.port, { host: `${MAPPED}:${s.port}` });
      expect(r.status).toBe(200);
      expect((await send(face, s.port, { host: `127.0.0.1:${s.port}` })).status).toBe(200);
      expect((await send(face, s.port, { host: '127.attacker.example' })).status).toBe(403);
    } finally {
      await s.close();
    }
  });

  it('refuses to start anonymous on a public or wildcard address', async () => {
    for (const host of ['0.0.0.0', '::', '192.0.2.10', '127.attacker.example']) {
      let caught: unknown;
      try {
        const s = await face.start(host, false);
        await s.close();
      } catch (err) {
        caught = err;
      }
      expect(isIsocodeError(caught) && caught.code, host).toBe('INVALID_CONFIG');
    }
  });

  it('with keys: no key or a wrong key is 401; the right key passes whatever the Host and Origin', async () => {
    const s = await face.start('127.0.0.1', true);
    try {
      const none = await send(face, s.port, {});
      expect(none.status).toBe(401);
      expect(face.codeOf(none.body)).toBe('UNAUTHORIZED');
      expect(none.headers['www-authenticate']).toMatch(/^Bearer/);
      const wrong = await send(face, s.port, { authorization: `Bearer ${KEY}x` });
      expect(wrong.status).toBe(401);
      expect(wrong.headers['www-authenticate']).toContain('invalid_token');
      expect((await send(face, s.port, { authorization: `Basic ${KEY}` })).status).toBe(401);
      for (const host of ['127.0.0.1', 'api.example.com', '127.attacker.example'])
        expect(
          (
            await send(face, s.port, {
              host,
              origin: 'https://evil.example',
              authorization: `Bearer ${KEY}`,
            })
          ).status,
          host,
        ).toBe(200);
    } finally {
      await s.close();
    }
  });
});
