import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ERROR_CODES,
  type McpTool,
  type ProgramDiagnostic,
  type RunCodeValue,
  type ToolResult,
} from '../../src/index.js';
import {
  createHttpApp,
  HTTP_STATUS,
  httpStatus,
  type HttpApp,
  type HttpErrorBody,
} from '../../src/server/index.js';
import { buildHttpApp } from '../../src/server/app.js';
import {
  API_KEYS,
  jsonHeaders,
  KEY_A,
  KEY_B,
  parseSse,
  testRuntime,
  type TestRuntime,
} from './fixtures.js';

let t: TestRuntime;
let app: HttpApp;
let anon: HttpApp;

beforeAll(async () => {
  t = await testRuntime();
  app = createHttpApp({
    runtime: t.runtime,
    defaultScope: 'default',
    apiKeys: API_KEYS,
    maxBodyBytes: 4096,
  });
  anon = createHttpApp({ runtime: t.runtime, defaultScope: 'alpha', apiKeys: [] });
});
afterAll(() => t.runtime.close());

/** `key`: null sends no Authorization header. */
const post = (
  path: string,
  body: unknown,
  key: string | null = KEY_A,
  extra: Record<string, string> = {},
) =>
  app.request(path, {
    method: 'POST',
    headers: { ...jsonHeaders(key ?? undefined), ...extra },
    body: JSON.stringify(body),
  });
const get = (path: string, key: string | null = KEY_A, extra: Record<string, string> = {}) =>
  app.request(path, { headers: { ...(key ? { authorization: `Bearer ${key}` } : {}), ...extra } });
const errorOf = async (res: Response): Promise<HttpErrorBody> =>
  (await res.json()) as HttpErrorBody;
const value = (r: ToolResult): RunCodeValue => {
  if (!r.ok) throw new Error(`run failed: ${r.error.code} ${r.error.message}`);
  return r.value as unknown as RunCodeValue;
};

describe('status table', () => {
  it('maps every error code to a 4xx or 5xx status', () => {
    for (const code of ERROR_CODES) {
      expect(Object.hasOwn(HTTP_STATUS, code), code).toBe(true);
      expect(HTTP_STATUS[code]).toBeGreaterThanOrEqual(400);
      expect(HTTP_STATUS[code]).toBeLessThan(600);
    }
    expect(Object.keys(HTTP_STATUS).sort()).toEqual([...ERROR_CODES].sort());
    expect(httpStatus('NOT_A_CODE')).toBe(500);
    expect(httpStatus('UNAUTHORIZED')).toBe(401);
  });
});

describe('options', () => {
  it('rejects an unknown default scope, a key bound to an unknown scope, and a duplicated key', () => {
    const bad = [
      { runtime: t.runtime, defaultScope: 'nope', apiKeys: [] },
      { runtime: t.runtime, defaultScope: 'default', apiKeys: [{ key: 'k', scope: 'gamma' }] },
      {
        runtime: t.runtime,
        defaultScope: 'default',
        apiKeys: [
          { key: 'k', scope: 'alpha' },
          { key: 'k', scope: 'beta' },
        ],
      },
      {
        runtime: t.runtime,
        defaultScope: 'default',
        apiKeys: [{ key: 'has space', scope: 'alpha' }],
      },
    ];
    for (const options of bad)
      expect(() => createHttpApp(options)).toThrow(
        expect.objectContaining({ code: 'INVALID_CONFIG' }),
      );
  });
});

describe('authentication', () => {
  it('a missing key is 401 with a Bearer challenge; an unknown key is 401 invalid_token', async () => {
    const missing = await get('/v1/tools', null);
    expect(missing.status).toBe(401);
    expect(missing.headers.get('www-authenticate')).toBe('Bearer realm="isocode"');
    expect((await errorOf(missing)).error.code).toBe('UNAUTHORIZED');
    const wrong = await get('/v1/tools', 'not-a-key');
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('www-authenticate')).toContain('error="invalid_token"');
    const basic = await get('/v1/tools', null, { authorization: `Basic ${KEY_A}` });
    expect(basic.status).toBe(401);
    const prefix = await get('/v1/tools', KEY_A.slice(0, -1));
    expect(prefix.status).toBe(401);
  });

  it('a key bound to scope alpha never sees scope beta tools, and the reverse', async () => {
    const a = (await (await get('/v1/tools?format=mcp', KEY_A)).json()) as { tools: McpTool[] };
    expect(a.tools.map((x) => x.name)).toEqual(['run_code']);
    expect(a.tools[0]!.description).toContain('echo');
    expect(a.tools[0]!.description).not.toContain('secret');
    const sdkA = await (await get('/v1/sdk', KEY_A)).text();
    expect(sdkA).toContain('echo');
    expect(sdkA).not.toContain('secret');

    const b = (await (await get('/v1/tools', KEY_B)).json()) as { tools: McpTool[] };
    expect(b.tools.map((x) => x.name)).toEqual(['beta.secret']);
    const direct = (await (
      await post('/v1/execute', { name: 'alpha.echo', args: { text: 'x' } }, KEY_B)
    ).json()) as ToolResult;
    expect(!direct.ok && direct.error.code).toBe('UNKNOWN_TOOL');
    const run = (await (
      await post(
        '/v1/run',
        { code: 'return await (tools as any).beta.secret({});', description: 'reach' },
        KEY_A,
      )
    ).json()) as ToolResult;
    expect(run.ok).toBe(false);
    expect(JSON.stringify(run)).not.toContain('beta-secret-value');
  });

  it('without keys, anonymous requests run in the default scope only when addressed to a loopback host', async () => {
    const local = await anon.request('/v1/tools');
    expect(local.status).toBe(200);
    expect(((await local.json()) as { tools: McpTool[] }).tools[0]!.description).toContain('echo');
    for (const host of ['127.0.0.1:8787', '[::1]:8787']) {
      expect((await anon.request(`http://${host}/v1/tools`)).status).toBe(200);
    }
    // DNS rebinding: a foreign name pointing at 127.0.0.1 is refused (403: no key could help).
    const rebound = await anon.request('http://evil.example:8787/v1/tools');
    expect(rebound.status).toBe(403);
    expect((await errorOf(rebound)).error.code).toBe('FORBIDDEN');
    // With keys configured there is no anonymous access.
    expect((await get('/v1/tools', null)).status).toBe(401);
  });

  it('health and metrics need no key', async () => {
    const h = await get('/healthz', null);
    expect(h.status).toBe(200);
    // The second wall's state is reported, on or off (decision record 032).
    const body = (await h.json()) as { status: string; wall: { mode: string; active: unknown } };
    expect(body).toMatchObject({ status: 'ok', wall: { mode: 'auto' } });
    expect(typeof body.wall.active).toBe('boolean');
    expect((await get('/metrics', null)).status).toBe(200);
  });
});

describe('request ids and errors', () => {
  it('echoes a sane x-request-id and replaces an unsafe one, on successes and failures', async () => {
    const ok = await get('/healthz', null, { 'x-request-id': 'abc-123_X=' });
    expect(ok.headers.get('x-request-id')).toBe('abc-123_X=');
    const unsafe = await get('/v1/tools', null, { 'x-request-id': 'bad id;<script>' });
    const id = unsafe.headers.get('x-request-id');
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect((await errorOf(unsafe)).requestId).toBe(id);
    const long = await get('/healthz', null, { 'x-request-id': 'a'.repeat(129) });
    expect(long.headers.get('x-request-id')).not.toBe('a'.repeat(129));
    const generated = await get('/nope');
    expect(generated.status).toBe(404);
    const body = await errorOf(generated);
    expect(body.error.code).toBe('NOT_FOUND');
    expect(body.requestId).toBe(generated.headers.get('x-request-id'));
  });

  it('invalid JSON is 400 BAD_REQUEST; so is a wrong content type and a body the schema rejects', async () => {
    const bad = await app.request('/v1/execute', {
      method: 'POST',
      headers: jsonHeaders(KEY_A),
      body: '{"name": ',
    });
    expect(bad.status).toBe(400);
    expect((await errorOf(bad)).error.code).toBe('BAD_REQUEST');
    const text = await app.request('/v1/execute', {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY_A}`, 'content-type': 'text/plain' },
      body: JSON.stringify({ name: 'run_code', args: {} }),
    });
    expect(text.status).toBe(400);
    expect((await errorOf(text)).error.message).toContain('application/json');
    const missing = await post('/v1/run', { code: 'return 1' });
    expect(missing.status).toBe(400);
    expect((await errorOf(missing)).error.details).toMatchObject({
      issues: [{ path: '$.description' }],
    });
  });

  it('a body nested past 512 levels is 400 BAD_REQUEST (every route parses with parseBody); a call a little past 256 still gets INVALID_ARGS', async () => {
    const nest = (depth: number): string => '['.repeat(depth) + ']'.repeat(depth);
    for (const [path, body] of [
      ['/v1/execute', `{"name":"kv.get","args":{"a":${nest(1_000)}}}`],
      ['/v1/run', `{"code":"return 1;","description":${nest(1_000)}}`],
      ['/v1/check', `{"code":${nest(1_000)}}`],
    ] as const) {
      const res = await app.request(path, { method: 'POST', headers: jsonHeaders(KEY_A), body });
      expect(res.status, path).toBe(400);
      expect((await errorOf(res)).error).toMatchObject({
        code: 'BAD_REQUEST',
        message: expect.stringContaining('deeper than 512') as unknown,
      });
    }
    const call = await app.request('/v1/execute', {
      method: 'POST',
      headers: jsonHeaders(KEY_A),
      body: `{"name":"run_code","args":{"a":${nest(300)}}}`,
    });
    expect(call.status).toBe(200);
    expect(((await call.json()) as { error: { code: string } }).error.code).toBe('INVALID_ARGS');
  });

  it('a rejected body is reported in bounded text, however long the keys it carries', async () => {
    const res = await post('/v1/run', {
      code: 'return 1',
      description: 'x',
      ['k'.repeat(3_000)]: 1,
    });
    expect(res.status).toBe(400);
    const { error } = await errorOf(res);
    expect(error.code).toBe('BAD_REQUEST');
    expect(error.message.length).toBeLessThan(800);
    expect(error.message).toMatch(/more characters/);
  });

  it('no request field can carry a parent token: unknown body keys are rejected', async () => {
    for (const extra of ['parent', 'parentToken', 'scope', 'signal']) {
      const res = await post('/v1/execute', {
        name: 'run_code',
        args: { code: 'return 1', description: 'x' },
        [extra]: 'tok',
      });
      expect(res.status, extra).toBe(400);
      expect((await errorOf(res)).error.message).toContain(extra);
    }
    expect(
      (await post('/v1/run', { code: 'return 1', description: 'x', parent: 'tok' })).status,
    ).toBe(400);
    // ids of the server's own run streams cannot be chosen by a client
    expect(
      (await post('/v1/execute', { name: 'run_code', args: {}, id: 'http-1234' })).status,
    ).toBe(400);
  });

  it('once draining, every request is 503 SHUTTING_DOWN with Connection: close', async () => {
    const parts = buildHttpApp({ runtime: t.runtime, defaultScope: 'default', apiKeys: API_KEYS });
    expect(await parts.inflight.drain(1_000)).toBe(0);
    for (const res of [
      await parts.app.request('/healthz'),
      await parts.app.request('/v1/run', {
        method: 'POST',
        headers: jsonHeaders(KEY_A),
        body: '{}',
      }),
    ]) {
      expect(res.status).toBe(503);
      expect(res.headers.get('connection')).toBe('close');
      expect((await errorOf(res)).error.code).toBe('SHUTTING_DOWN');
    }
    parts.metrics.dispose();
  });

  it('a body over maxBodyBytes is 413 PAYLOAD_TOO_LARGE, with or without a Content-Length', async () => {
    const big = { code: `return ${JSON.stringify('x'.repeat(5000))};`, description: 'big' };
    const res = await post('/v1/run', big);
    expect(res.status).toBe(413);
    expect((await errorOf(res)).error.code).toBe('PAYLOAD_TOO_LARGE');
    const bytes = new TextEncoder().encode(JSON.stringify(big));
    const chunked = await app.request('/v1/run', {
      method: 'POST',
      headers: jsonHeaders(KEY_A),
      body: new ReadableStream({
        start(controller) {
          for (let i = 0; i < bytes.length; i += 1000) controller.enqueue(bytes.slice(i, i + 1000));
          controller.close();
        },
      }),
      duplex: 'half',
    });
    expect(chunked.status).toBe(413);
    expect(chunked.headers.get('x-request-id')).toBeTruthy();
  });
});

describe('catalog routes', () => {
  it('GET /v1/tools in each wire format; an unknown format is 400', async () => {
    const openai = (await (await get('/v1/tools?format=openai', KEY_B)).json()) as {
      tools: { type: string; function: { name: string } }[];
    };
    expect(openai.tools.map((x) => [x.type, x.function.name])).toEqual([
      ['function', 'beta__secret'], // provider-legal wire name (decision record 014)
    ]);
    const anthropic = (await (await get('/v1/tools?format=anthropic', KEY_B)).json()) as {
      tools: { name: string; input_schema: unknown }[];
    };
    expect(anthropic.tools[0]?.name).toBe('beta__secret');
    expect(typeof anthropic.tools[0]?.input_schema).toBe('object');
    const responses = (await (await get('/v1/tools?format=openai-responses', KEY_B)).json()) as {
      format: string;
      tools: { type: string; name: string; strict: boolean }[];
    };
    expect(responses.format).toBe('openai-responses');
    expect(responses.tools.map((x) => [x.type, x.name, x.strict])).toEqual([
      ['function', 'beta__secret', false],
    ]);
    const xml = await get('/v1/tools?format=xml', KEY_B);
    expect(xml.status).toBe(400);
    expect(((await xml.json()) as { error: { message: string } }).error.message).toBe(
      'format must be one of openai, openai-responses, anthropic, mcp',
    );
  });

  it('GET /v1/sdk is text/plain with an ETag of its hash, and 304 when it matches', async () => {
    const res = await get('/v1/sdk');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
    const etag = res.headers.get('etag')!;
    expect(etag).toBe(`"${t.runtime.sdk('alpha').hash}"`);
    expect(await res.text()).toBe(t.runtime.sdk('alpha').text);
    const again = await get('/v1/sdk', KEY_A, { 'if-none-match': `W/${etag}, "other"` });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe('');
    expect((await get('/v1/sdk', KEY_A, { 'if-none-match': '"stale"' })).status).toBe(200);
    // another scope, another SDK
    expect((await get('/v1/sdk', KEY_B)).headers.get('etag')).not.toBe(etag);
  });

  it('GET /v1/prompt returns the scope mode and system prompt sections', async () => {
    const p = (await (await get('/v1/prompt')).json()) as {
      mode: string;
      sections: { id: string; text: string }[];
    };
    expect(p.mode).toBe('code');
    expect(p.sections.map((s) => s.id)).toEqual(['tools:code-only', 'tools:sdk']);
    expect(p.sections[1]!.text).toContain('echo');
    const native = (await (await get('/v1/prompt', KEY_B)).json()) as {
      mode: string;
      sections: unknown[];
    };
    expect(native).toEqual({ mode: 'native', sections: [] });
  });
});

describe('calls', () => {
  it('POST /v1/check returns diagnostics in program coordinates, and ok for a well-typed program', async () => {
    const bad = (await (
      await post('/v1/check', { code: 'const a = 1;\nreturn await tools.alpha.echo({ text: 3 });' })
    ).json()) as {
      ok: boolean;
      diagnostics: ProgramDiagnostic[];
    };
    expect(bad.ok).toBe(false);
    expect(bad.diagnostics[0]).toMatchObject({ kind: 'typecheck', line: 2 });
    const good = await (
      await post('/v1/check', { code: "return (await tools.alpha.echo({ text: 'hi' })).text;" })
    ).json();
    expect(good).toEqual({ ok: true, diagnostics: [] });
  });

  it('the collapse over HTTP: a direct native call under code is a 200 UNKNOWN_TOOL outcome; the program reaches it', async () => {
    const res = await post('/v1/execute', { name: 'alpha.echo', args: { text: 'hi' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-isocode-outcome')).toBe('UNKNOWN_TOOL');
    const direct = (await res.json()) as ToolResult;
    expect(direct.ok).toBe(false);
    expect(!direct.ok && direct.error.code).toBe('UNKNOWN_TOOL');
    const viaCode = (await (
      await post('/v1/run', {
        code: "return (await tools.alpha.echo({ text: 'hi' })).text;",
        description: 'echo',
      })
    ).json()) as ToolResult;
    expect(value(viaCode).result).toBe('hi');
    const viaExecute = await post('/v1/execute', {
      name: 'run_code',
      args: { code: "return (await tools.alpha.echo({ text: 'yo' })).text;", description: 'echo' },
      id: 'client-id-1',
    });
    expect(viaExecute.headers.get('x-isocode-outcome')).toBe('ok');
    const r = (await viaExecute.json()) as ToolResult;
    expect(value(r).result).toBe('yo');
    expect(r.meta.callId).toBe('client-id-1');
  });

  it('a native scope executes its tools directly; args default to {}', async () => {
    const r = (await (
      await post('/v1/execute', { name: 'beta.secret' }, KEY_B)
    ).json()) as ToolResult;
    expect(r.ok && r.value).toBe('beta-secret-value');
  });

  it('a failing program is a 200 tool outcome carrying the failure kind and content', async () => {
    const res = await post('/v1/run', {
      code: "console.log('before');\nthrow new Error('boom');",
      description: 'fail',
    });
    expect(res.status).toBe(200);
    const r = (await res.json()) as ToolResult;
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error.code).toBe('CODE_RUN_FAILED');
    expect(r.error.details).toMatchObject({
      kind: 'exception',
      logs: [{ level: 'log', text: 'before' }],
    });
    expect(JSON.stringify(r.content)).toContain('boom');
  });

  it('POST /v1/run with Accept: text/event-stream streams typecheck, call-start, call-end, log, then result', async () => {
    const res = await post(
      '/v1/run',
      {
        code: "const r = await tools.alpha.echo({ text: 'a' });\nconsole.log('got', r.text);\nreturn r.text;",
        description: 'sse',
      },
      KEY_A,
      { accept: 'text/event-stream' },
    );
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(res.headers.get('x-request-id')).toBeTruthy();
    const events = parseSse(await res.text());
    expect(events.map((e) => e.event)).toEqual([
      'typecheck',
      'call-start',
      'call-end',
      'log',
      'result',
    ]);
    expect(events.map((e) => e.id)).toEqual(['0', '1', '2', '3', '4']);
    expect(events[0]!.data).toMatchObject({ type: 'typecheck', ok: true });
    expect(events[1]!.data).toEqual({
      type: 'call-start',
      name: 'alpha.echo',
      seq: 1,
      args: { text: 'a' },
      at: expect.any(Number) as unknown,
    });
    expect(events[2]!.data).toMatchObject({
      type: 'call-end',
      name: 'alpha.echo',
      seq: 1,
      ok: true,
      result: { text: 'a' },
    });
    expect(events[3]!.data).toMatchObject({ type: 'log', text: 'got a' });
    expect(value(events[4]!.data as ToolResult).result).toBe('a');
  });

  it('SSE streams of concurrent runs do not see each other', async () => {
    const mk = (text: string) =>
      post(
        '/v1/run',
        { code: `console.log(${JSON.stringify(text)}); return 1;`, description: 'iso' },
        KEY_A,
        { accept: 'text/event-stream' },
      );
    const [a, b] = await Promise.all([mk('from-a'), mk('from-b')]);
    const ea = parseSse(await a.text());
    const eb = parseSse(await b.text());
    expect(
      ea.filter((e) => e.event === 'log').map((e) => (e.data as { text: string }).text),
    ).toEqual(['from-a']);
    expect(
      eb.filter((e) => e.event === 'log').map((e) => (e.data as { text: string }).text),
    ).toEqual(['from-b']);
  });
});

describe('metrics', () => {
  it('counts runs, failures by kind, nested calls, latency and isolates in Prometheus text', async () => {
    await post('/v1/run', {
      code: "return (await tools.alpha.echo({ text: 'm' })).text;",
      description: 'ok',
    });
    await post('/v1/run', { code: 'const x: number = "s"; return x;', description: 'typecheck' });
    await post('/v1/run', { code: "throw new Error('x');", description: 'throw' });
    const res = await get('/metrics', null);
    expect(res.headers.get('content-type')).toContain('text/plain; version=0.0.4');
    const text = await res.text();
    const sample = (name: string): number => {
      const line = text.split('\n').find((l) => l.startsWith(`${name} `));
      return line === undefined ? NaN : Number(line.slice(name.length + 1));
    };
    expect(sample('isocode_runs_total{outcome="ok"}')).toBeGreaterThanOrEqual(1);
    expect(sample('isocode_runs_total{outcome="error"}')).toBeGreaterThanOrEqual(2);
    expect(
      sample('isocode_run_failures_total{code="CODE_RUN_FAILED",kind="typecheck"}'),
    ).toBeGreaterThanOrEqual(1);
    expect(
      sample('isocode_run_failures_total{code="CODE_RUN_FAILED",kind="exception"}'),
    ).toBeGreaterThanOrEqual(1);
    expect(sample('isocode_nested_calls_total{outcome="ok"}')).toBeGreaterThanOrEqual(1);
    expect(sample('isocode_run_duration_seconds_count')).toBeGreaterThanOrEqual(3);
    expect(sample('isocode_run_duration_seconds_bucket{le="+Inf"}')).toBe(
      sample('isocode_run_duration_seconds_count'),
    );
    expect(
      sample('isocode_tool_call_duration_seconds_count{nested="true"}'),
    ).toBeGreaterThanOrEqual(1);
    expect(sample('isocode_isolates_alive')).toBeGreaterThanOrEqual(0);
    expect(
      sample('isocode_http_requests_total{route="/v1/run",status="200"}'),
    ).toBeGreaterThanOrEqual(3);
    expect(text).toContain('# TYPE isocode_run_duration_seconds histogram');
    // no tool or scope names in the exposition
    expect(text).not.toContain('alpha');
    expect(text).not.toContain('echo');
  });
});
