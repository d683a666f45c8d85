/**
 * MCP HTTP sessions (`serveMcpHttp`, stateful) through the SDK's Client over streamable HTTP:
 * per-key quotas, sessions with a call in flight are never evicted, a full table refuses the
 * newcomer, and one tenant can neither use nor close another tenant's session.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createRuntime, defineTool, type Runtime } from '../../src/index.js';
import { serveMcpHttp, type McpHttpHandle, type McpHttpOptions } from '../../src/mcp/index.js';
import { initializeRequest, MCP_PROTOCOL_VERSION } from '../support/mcp-initialize.js';

const KEY_A = 'tenant-a-0123456789abcdef';
const KEY_B = 'tenant-b-0123456789abcdef';
const KEYS = [
  { key: KEY_A, scope: 'default' },
  { key: KEY_B, scope: 'default' },
];

/** `gate.wait` calls block until the test opens the gate. */
let open: () => void = () => undefined;
let gate = Promise.resolve();
let waiting = 0;
let aborts = 0;
const closeGate = (): void => {
  gate = new Promise((r) => (open = r));
};

let runtime: Runtime;
const handles: McpHttpHandle[] = [];
const clients: Client[] = [];
beforeAll(async () => {
  runtime = await createRuntime({
    tools: [
      defineTool({
        name: 'gate.wait',
        description: 'Waits until the test opens the gate.',
        input: { type: 'object', properties: {} },
        execute: async () => {
          waiting += 1;
          try {
            await gate;
          } finally {
            waiting -= 1;
          }
          return 'passed';
        },
      }),
      defineTool({
        name: 'gate.until_abort',
        description: 'Runs until its call is aborted.',
        input: { type: 'object', properties: {} },
        execute: (_args: object, ctx) =>
          new Promise((_, reject) => {
            waiting += 1;
            ctx.signal.addEventListener('abort', () => {
              waiting -= 1;
              aborts += 1;
              reject(new Error('aborted'));
            });
          }),
      }),
    ],
    scopes: { default: { mode: 'native' } },
    codeMode: false,
  });
});
afterEach(async () => {
  open();
  await Promise.allSettled(clients.splice(0).map((c) => c.close()));
  await Promise.all(handles.splice(0).map((h) => h.close()));
});
afterAll(() => runtime.close());

const serve = async (o: Partial<McpHttpOptions>): Promise<McpHttpHandle> => {
  const h = await serveMcpHttp({ runtime, apiKeys: KEYS, ...o });
  handles.push(h);
  return h;
};
const connect = async (
  h: McpHttpHandle,
  key: string,
): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> => {
  const client = new Client({ name: 'sessions-test', version: '0.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(h.url), {
    requestInit: { headers: { authorization: `Bearer ${key}` } },
  });
  await client.connect(transport);
  clients.push(client);
  return { client, transport };
};
const refusalOf = async (h: McpHttpHandle, key: string): Promise<unknown> => {
  try {
    await connect(h, key);
  } catch (err) {
    return err;
  }
  return undefined;
};
const until = async (check: () => boolean, what: string): Promise<void> => {
  for (let i = 0; i < 400 && !check(); i++) await new Promise((r) => setTimeout(r, 25));
  if (!check()) throw new Error(`timed out waiting for ${what}`);
};
const text = (r: unknown): string =>
  (r as CallToolResult).content.map((c) => (c.type === 'text' ? c.text : '')).join('');
/** A raw request to the endpoint as `key`, in session `session` when given. */
const raw = (
  h: McpHttpHandle,
  key: string,
  method: string,
  body?: unknown,
  session?: string,
  signal?: AbortSignal,
): Promise<Response> =>
  fetch(h.url, {
    method,
    ...(signal === undefined ? {} : { signal }),
    headers: {
      authorization: `Bearer ${key}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(session === undefined
        ? {}
        : { 'mcp-session-id': session, 'mcp-protocol-version': MCP_PROTOCOL_VERSION }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
const initialize = (h: McpHttpHandle, key: string): Promise<Response> =>
  raw(h, key, 'POST', initializeRequest());

describe('MCP HTTP sessions', () => {
  it('a key over its quota is refused with 429 while its sessions are busy; other keys are unaffected', async () => {
    const h = await serve({ maxSessionsPerKey: 2 });
    closeGate();
    const a1 = await connect(h, KEY_A);
    const a2 = await connect(h, KEY_A);
    const calls = [a1, a2].map((s) =>
      s.client.callTool({ name: 'gate.wait', arguments: {} }).then(text, (err: unknown) => err),
    );
    await until(() => waiting === 2, 'two calls in flight');

    const raw = await initialize(h, KEY_A);
    expect(raw.status).toBe(429);
    expect(raw.headers.get('retry-after')).toMatch(/^\d+$/);
    const body = (await raw.json()) as {
      jsonrpc: string;
      error: { message: string; data: unknown };
    };
    expect(body.jsonrpc).toBe('2.0');
    expect(body.error.data).toMatchObject({ reason: 'session-quota', limit: 2 });
    expect(await refusalOf(h, KEY_A)).toMatchObject({ code: 429 });

    // Tenant B has its own quota.
    const b = await connect(h, KEY_B);
    expect((await b.client.listTools()).tools.map((t) => t.name)).toContain('gate.wait');

    // The busy sessions were not touched: their calls complete.
    open();
    expect(await Promise.all(calls)).toEqual(['passed', 'passed']);
  });

  it('over its quota, a key displaces only its own least recently used idle session', async () => {
    const h = await serve({ maxSessionsPerKey: 2 });
    // Raw requests: no client opens a GET stream behind our back, so the order of use is ours.
    const begin = async (key: string): Promise<string> =>
      (await initialize(h, key)).headers.get('mcp-session-id') ?? '';
    const ping = async (key: string, id: string): Promise<number> =>
      (await raw(h, key, 'POST', { jsonrpc: '2.0', id: 2, method: 'ping' }, id)).status;
    const b = await begin(KEY_B);
    const a1 = await begin(KEY_A);
    const a2 = await begin(KEY_A);
    expect(await ping(KEY_A, a2)).toBe(200); // a1 is now A's least recently used
    const a3 = await begin(KEY_A);
    expect(a3).not.toBe('');
    expect(await ping(KEY_A, a1)).toBe(404);
    expect(await ping(KEY_A, a2)).toBe(200);
    expect(await ping(KEY_A, a3)).toBe(200);
    expect(await ping(KEY_B, b)).toBe(200); // B's older, idle session was not A's to take
  });

  it('a full table refuses the newcomer with 503 instead of closing another tenant’s session', async () => {
    const h = await serve({ maxSessions: 2, maxSessionsPerKey: 2 });
    const a1 = await connect(h, KEY_A);
    const a2 = await connect(h, KEY_A);
    const raw = await initialize(h, KEY_B);
    expect(raw.status).toBe(503);
    expect(raw.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(((await raw.json()) as { error: { data: unknown } }).error.data).toMatchObject({
      reason: 'session-table-full',
    });
    expect(await refusalOf(h, KEY_B)).toMatchObject({ code: 503 });
    // A's sessions are idle, but they are A's: both still work.
    await a1.client.ping();
    await a2.client.ping();
  });

  it('a request id still in flight in the session is refused at once; the first call completes; the id is free after', async () => {
    const h = await serve({});
    closeGate();
    const session = (await initialize(h, KEY_A)).headers.get('mcp-session-id') ?? '';
    expect(
      (
        await raw(
          h,
          KEY_A,
          'POST',
          { jsonrpc: '2.0', method: 'notifications/initialized' },
          session,
        )
      ).status,
    ).toBe(202);
    const call = (id: number | string): Promise<Response> =>
      raw(
        h,
        KEY_A,
        'POST',
        { jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'gate.wait', arguments: {} } },
        session,
      );
    const first = call(7);
    await until(() => waiting === 1, 'the first call in flight');
    const again = await call(7);
    expect(again.status).toBe(400);
    expect(await again.json()).toMatchObject({ id: 7, error: { code: -32600 } });
    // "7" is another id than 7; a batch that repeats an id is refused whole.
    const other = call('7');
    await until(() => waiting === 2, 'the second call in flight');
    const batch = await raw(
      h,
      KEY_A,
      'POST',
      [8, 8].map((id) => ({ jsonrpc: '2.0', id, method: 'ping' })),
      session,
    );
    expect(batch.status).toBe(400);
    open();
    // Each call gets its own answer (before, the first one's went to the reused id's stream).
    for (const [r, id] of [
      [first, 7],
      [other, '7'],
    ] as const) {
      const text = await (await r).text();
      expect(text).toContain('passed');
      expect(text).toContain(`"id":${JSON.stringify(id)}`);
    }
    const later = await call(7);
    expect(later.status).toBe(200);
    expect(await later.text()).toContain('passed');
  });

  it('one tenant can neither use nor close another tenant’s session', async () => {
    const h = await serve({});
    closeGate();
    const a = await connect(h, KEY_A);
    const call = a.client
      .callTool({ name: 'gate.wait', arguments: {} })
      .then(text, (err: unknown) => err);
    await until(() => waiting === 1, 'a call in flight');
    const id = a.transport.sessionId ?? '';
    expect(id).not.toBe('');
    const as = (key: string, method: string, body?: unknown): Promise<Response> =>
      raw(h, key, method, body, id);
    expect((await as(KEY_B, 'DELETE')).status).toBe(404);
    const cancel = {
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: 1, reason: 'hostile' },
    };
    expect((await as(KEY_B, 'POST', cancel)).status).toBe(404);
    expect((await as(KEY_B, 'GET')).status).toBe(404);
    open();
    expect(await call).toBe('passed');
    await a.client.ping();
  });

  it('the idle sweep never closes a session with a call in flight', async () => {
    const h = await serve({ sessionIdleMs: 1000 });
    closeGate();
    const busy = await connect(h, KEY_A);
    const call = busy.client
      .callTool({ name: 'gate.wait', arguments: {} })
      .then(text, (err: unknown) => err);
    const idle = await connect(h, KEY_B);
    await until(() => waiting === 1, 'a call in flight');
    // Sweeps run every second meanwhile; nothing touches either session for over three idle periods.
    await new Promise((r) => setTimeout(r, 3500));
    await expect(idle.client.ping()).rejects.toThrow();
    open();
    expect(await call).toBe('passed');
    await busy.client.ping();
  });

  it('stateless: a client that goes away aborts its call', async () => {
    const h = await serve({ sessions: 'stateless' });
    const before = aborts;
    const gone = new AbortController();
    const request = raw(
      h,
      KEY_A,
      'POST',
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'gate.until_abort', arguments: {} },
      },
      undefined,
      gone.signal,
    ).catch((err: unknown) => err);
    await until(() => waiting === 1, 'the call to start');
    gone.abort();
    await request;
    await until(() => aborts === before + 1, 'the call to be aborted');
    expect(waiting).toBe(0);
  });
});
