import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ToolResult } from '../../src/index.js';
import { startHttpServer, type HttpServer } from '../../src/server/index.js';
import {
  API_KEYS,
  deferred,
  Gate,
  jsonHeaders,
  KEY_A,
  parseSse,
  testRuntime,
  type TestRuntime,
} from './fixtures.js';

let t: TestRuntime;
const servers: HttpServer[] = [];
const start = async (shutdownGraceMs = 10_000): Promise<HttpServer> => {
  const s = await startHttpServer({
    runtime: t.runtime,
    defaultScope: 'default',
    apiKeys: API_KEYS,
    port: 0,
    shutdownGraceMs,
  });
  servers.push(s);
  return s;
};
const waitProgram = { code: 'return await tools.alpha.wait({});', description: 'wait' };
const runWait = (s: HttpServer, headers: Record<string, string> = {}) =>
  fetch(`${s.url}/v1/run`, {
    method: 'POST',
    headers: { ...jsonHeaders(KEY_A), ...headers },
    body: JSON.stringify(waitProgram),
  });
const rejection = async (p: Promise<unknown>): Promise<unknown> =>
  p.then(
    () => {
      throw new Error('expected a rejection');
    },
    (e: unknown) => e,
  );
const until = async (check: () => boolean, what: string): Promise<void> => {
  for (let i = 0; i < 400 && !check(); i++) await new Promise((r) => setTimeout(r, 25));
  if (!check()) throw new Error(`timed out waiting for ${what}`);
};

beforeAll(async () => {
  t = await testRuntime();
});
afterEach(async () => {
  t.gate.release.resolve('cleanup');
  await Promise.all(servers.splice(0).map((s) => s.close()));
  t.gate = new Gate();
});
afterAll(() => t.runtime.close());

describe('startHttpServer', () => {
  it('binds 127.0.0.1 on an ephemeral port and serves the routes', async () => {
    const s = await start();
    expect(s.host).toBe('127.0.0.1');
    expect(s.port).toBeGreaterThan(0);
    expect(s.url).toBe(`http://127.0.0.1:${s.port}`);
    const res = await fetch(`${s.url}/v1/run`, {
      method: 'POST',
      headers: jsonHeaders(KEY_A),
      body: JSON.stringify({
        code: "return (await tools.alpha.echo({ text: 'net' })).text;",
        description: 'net',
      }),
    });
    expect(res.status).toBe(200);
    const r = (await res.json()) as ToolResult;
    expect(r.ok && r.value).toMatchObject({ result: 'net' });
  });

  it('a request the adapter cannot read (its Host) gets the JSON error with a request id', async () => {
    const s = await start();
    for (const host of ['127.1', '0', 'a b']) {
      const raw = await new Promise<string>((resolve, reject) => {
        const socket = connect(s.port, '127.0.0.1', () => {
          socket.write(`GET /healthz HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`);
        });
        let text = '';
        socket.setEncoding('utf8');
        socket.on('data', (chunk: string) => (text += chunk));
        socket.on('end', () => resolve(text));
        socket.on('error', reject);
      });
      expect(raw, host).toMatch(/^HTTP\/1\.1 400 /);
      expect(raw.toLowerCase()).toMatch(/\r\nx-request-id: [0-9a-f-]{36}\r\n/);
      const body = JSON.parse(raw.slice(raw.indexOf('\r\n\r\n') + 4)) as {
        error: { code: string };
        requestId: string;
      };
      expect(body.error.code, host).toBe('BAD_REQUEST');
    }
    // The server serves on.
    expect((await fetch(`${s.url}/healthz`)).status).toBe(200);
  });

  it('refuses anonymous access on a non-loopback host with INVALID_CONFIG', async () => {
    for (const options of [
      { host: '0.0.0.0', apiKeys: [] },
      { host: '192.168.1.10', apiKeys: [] },
      { host: '0.0.0.0', apiKeys: API_KEYS, allowAnonymous: true },
    ]) {
      await expect(
        startHttpServer({ runtime: t.runtime, defaultScope: 'default', port: 0, ...options }),
      ).rejects.toMatchObject({
        code: 'INVALID_CONFIG',
      });
    }
    const anon = await startHttpServer({
      runtime: t.runtime,
      defaultScope: 'alpha',
      apiKeys: [],
      port: 0,
    });
    servers.push(anon);
    expect((await fetch(`${anon.url}/v1/tools`)).status).toBe(200);
  });
  it('plain-JS options without apiKeys, defaultScope or runtime are INVALID_CONFIG naming each, not a TypeError', async () => {
    // What a caller without TypeScript can pass: the types require these, the checks say so.
    const plain = (o: Record<string, unknown>): Parameters<typeof startHttpServer>[0] =>
      o as unknown as Parameters<typeof startHttpServer>[0];
    const noKeys = await rejection(startHttpServer(plain({ runtime: t.runtime, port: 0 })));
    expect(noKeys).toMatchObject({ code: 'INVALID_CONFIG' });
    expect((noKeys as Error).message).toMatch(
      /apiKeys: required, .*pass \[\] to serve without keys/,
    );
    expect((noKeys as Error).message).toMatch(/defaultScope: required/);
    const bad = await rejection(
      startHttpServer(plain({ runtime: {}, defaultScope: 'default', apiKeys: [null], port: 0 })),
    );
    expect((bad as { details?: unknown }).details).toEqual({
      problems: [
        'runtime: required, a runtime from createRuntime()',
        'apiKeys[0]: expected { key: string, scope: string }',
      ],
    });
    expect(await rejection(startHttpServer(plain(undefined as never)))).toMatchObject({
      code: 'INVALID_CONFIG',
    });
  });

  it('an address in use is INVALID_CONFIG naming the errno', async () => {
    const s = await start();
    await expect(
      startHttpServer({
        runtime: t.runtime,
        defaultScope: 'default',
        apiKeys: API_KEYS,
        port: s.port,
      }),
    ).rejects.toMatchObject({ code: 'INVALID_CONFIG', details: { errno: 'EADDRINUSE' } });
  });
});

describe('client disconnect', () => {
  it('a client that disconnects mid-run aborts the run and the nested call it waits on', async () => {
    const s = await start();
    const req = httpRequest(`${s.url}/v1/run`, { method: 'POST', headers: jsonHeaders(KEY_A) });
    req.on('error', () => undefined);
    req.end(JSON.stringify(waitProgram));
    await t.gate.started.promise;
    expect(t.runtime.stats().liveRuns).toBe(1);
    req.destroy();
    await t.gate.aborted.promise;
    expect(t.gate.sawAbort).toBe(true);
    await until(() => t.runtime.stats().liveRuns === 0, 'the run to settle');
  });

  it('an SSE client that disconnects aborts the run too', async () => {
    const s = await start();
    const res = await runWait(s, { accept: 'text/event-stream' });
    await t.gate.started.promise;
    await res.body!.cancel();
    await t.gate.aborted.promise;
    expect(t.gate.sawAbort).toBe(true);
  });
});

describe('a 413 over a raw socket', () => {
  /** Writes `wire` on one connection; resolves with everything read until the server closes it. */
  const exchange = (port: number, wire: string[]): Promise<string> =>
    new Promise((resolve, reject) => {
      const socket = connect(port, '127.0.0.1');
      let data = '';
      socket.setEncoding('utf8').on('data', (d: string) => (data += d));
      socket.on('error', (e: NodeJS.ErrnoException) => {
        // the server may close while the refused body is still being written: it said it would
        if (e.code !== 'EPIPE' && e.code !== 'ECONNRESET') reject(e);
      });
      socket.on('close', () => resolve(data));
      const timer = setTimeout(() => {
        socket.destroy();
        reject(new Error(`the server kept the connection open after: ${data.slice(0, 400)}`));
      }, 20_000);
      socket.on('close', () => clearTimeout(timer));
      for (const part of wire) socket.write(part);
    });
  const health = 'GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n';
  const post = (headers: string, body: string): string =>
    `POST /v1/execute HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${KEY_A}\r\n` +
    `Content-Type: application/json\r\n${headers}\r\n${body}`;

  it('says Connection: close and closes after it, for a small and a large body, with a request queued behind', async () => {
    const s = await startHttpServer({
      runtime: t.runtime,
      defaultScope: 'default',
      apiKeys: API_KEYS,
      port: 0,
      maxBodyBytes: 1000,
    });
    servers.push(s);
    for (const size of [5_000, 300_000]) {
      const body = 'x'.repeat(size);
      const got = await exchange(s.port, [post(`Content-Length: ${size}\r\n`, body), health]);
      expect(got).toMatch(/^HTTP\/1\.1 413 /);
      expect(got.toLowerCase()).toContain('\r\nconnection: close\r\n');
      expect(got.toLowerCase()).not.toContain('keep-alive');
      // the queued request got no answer on this connection, as the header promised
      expect(got.match(/HTTP\/1\.1 /g)).toHaveLength(1);
    }
    // chunked, no Content-Length: refused once the body passes the limit
    const chunk = 'y'.repeat(4000);
    const chunked = await exchange(s.port, [
      post(
        'Transfer-Encoding: chunked\r\n',
        `${chunk.length.toString(16)}\r\n${chunk}\r\n0\r\n\r\n`,
      ),
      health,
    ]);
    expect(chunked).toMatch(/^HTTP\/1\.1 413 /);
    expect(chunked.toLowerCase()).toContain('\r\nconnection: close\r\n');
    // a request that fits keeps its connection: the next one on it is answered
    const fits = await exchange(s.port, [
      post('Content-Length: 2\r\n', '{}'),
      health.replace('\r\n\r\n', '\r\nConnection: close\r\n\r\n'),
    ]);
    expect(fits.match(/HTTP\/1\.1 /g)).toHaveLength(2);
    expect(fits).toContain('{"status":"ok"');
  });
});

describe('SSE over a socket', () => {
  it('streams events as they happen: call-start arrives while the tool is still waiting', async () => {
    const s = await start();
    const res = await runWait(s, { accept: 'text/event-stream' });
    const reader = res.body!.getReader() as ReadableStreamDefaultReader<Uint8Array>;
    const decoder = new TextDecoder();
    let text = '';
    while (!text.includes('event: call-start')) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`stream ended early: ${text}`);
      text += decoder.decode(value, { stream: true });
    }
    expect(t.gate.sawAbort).toBe(false);
    t.gate.release.resolve('released');
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
    const events = parseSse(text);
    expect(events.map((e) => e.event)).toEqual(['typecheck', 'call-start', 'call-end', 'result']);
    const r = events.at(-1)!.data as ToolResult;
    expect(r.ok && r.value).toMatchObject({ result: 'released' });
  });
});

describe('graceful shutdown', () => {
  it('lets a run in flight finish, refuses new work with 503 SHUTTING_DOWN, and stops accepting connections', async () => {
    const s = await start();
    const pending = runWait(s);
    await t.gate.started.promise;

    // A second request whose body is still arriving when the shutdown starts.
    const late = connect(s.port, '127.0.0.1');
    const lateResponse = deferred<string>();
    let lateText = '';
    late.on('data', (d: Buffer) => {
      lateText += d.toString();
    });
    late.on('close', () => lateResponse.resolve(lateText));
    late.on('error', () => undefined);
    const body = JSON.stringify({ code: 'return 1;', description: 'late' });
    late.write(
      `POST /v1/run HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${KEY_A}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`,
    );
    await new Promise((r) => setTimeout(r, 100));

    const closing = s.close();
    await expect(fetch(`${s.url}/healthz`)).rejects.toThrow();
    late.end(body);
    const lateRaw = await lateResponse.promise;
    expect(lateRaw).toMatch(/^HTTP\/1\.1 503/);
    expect(lateRaw).toContain('SHUTTING_DOWN');

    t.gate.release.resolve('finished');
    const res = await pending;
    expect(res.status).toBe(200);
    const r = (await res.json()) as ToolResult;
    expect(r.ok && r.value).toMatchObject({ result: 'finished' });
    await closing;
    expect(t.gate.sawAbort).toBe(false);
  });

  it('aborts a run still in flight after the deadline; its tool sees the abort', async () => {
    const s = await start(200);
    const pending = runWait(s);
    await t.gate.started.promise;
    await s.close();
    expect(t.gate.sawAbort).toBe(true);
    const res = await pending;
    expect(res.status).toBe(200);
    const r = (await res.json()) as ToolResult;
    expect(r.ok).toBe(false);
    expect(t.runtime.stats().liveRuns).toBe(0);
  });
});
