/**
 * Discovery through the HTTP face: the same compact mode, search and describe as the library and
 * MCP faces, under the key's scope.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Runtime, ToolResult } from '../../src/index.js';
import { createHttpApp, type HttpApp } from '../../src/server/index.js';
import { discoveryRuntime } from '../run-code/discovery/fixtures.js';

const BIG = 'key-big-0123456789abcdef';
const SMALL = 'key-small-0123456789abcdef';
let rt: Runtime;
let app: HttpApp;
beforeAll(async () => {
  rt = await discoveryRuntime();
  app = createHttpApp({
    runtime: rt,
    defaultScope: 'default',
    apiKeys: [
      { key: BIG, scope: 'big' },
      { key: SMALL, scope: 'small' },
    ],
  });
});
afterAll(() => rt.close());

const get = async (path: string, key = BIG): Promise<{ status: number; body: unknown }> => {
  const res = await app.request(path, { headers: { authorization: `Bearer ${key}` } });
  return { status: res.status, body: await res.json() };
};

describe('discovery over HTTP', () => {
  it('GET /v1/discovery reports the decision and its figures for the key’s scope', async () => {
    expect(await get('/v1/discovery')).toEqual({
      status: 200,
      body: { mode: 'code', discovery: rt.discovery('big') },
    });
    const small = (await get('/v1/discovery', SMALL)).body as { discovery: { compact: boolean } };
    expect(small.discovery.compact).toBe(false);
  });

  it('GET /v1/tools and /v1/prompt show the compact index and the helpers', async () => {
    const { body } = await get('/v1/tools?format=anthropic');
    const tools = (body as { tools: { name: string; description: string }[] }).tools;
    expect(tools.map((t) => t.name)).toEqual(['run_code', 'search_tools', 'describe_tool']);
    expect(tools[0]!.description).toContain('Tool index:');
    const prompt = (await get('/v1/prompt')).body as { sections: { id: string; text: string }[] };
    expect(prompt.sections[1]!.text).toContain('- tools.big.list_order — ');
  });

  it('GET /v1/tools/search says how many matched of how many exist', async () => {
    const { status, body } = await get('/v1/tools/search?query=archive%20refund&limit=2');
    expect(status).toBe(200);
    expect(body).toMatchObject({
      query: 'archive refund',
      total: 60,
      tools: [{ name: 'big.archive_refund' }, {}],
    });
    expect((body as { matched: number }).matched).toBeGreaterThan(2);
    // The key's scope only: the small scope has one tool and none of these.
    expect((await get('/v1/tools/search?query=refund', SMALL)).body).toMatchObject({
      total: 1,
      matched: 0,
    });
  });

  it('GET /v1/tools/describe gives declarations; unknown is 404, bad input 400', async () => {
    const { status, body } = await get(
      '/v1/tools/describe?name=big.get_ticket&name=tools.big.tag_order,zzz',
    );
    expect(status).toBe(200);
    const d = body as { tools: { name: string }[]; missing: string[]; declarations: string };
    expect(d.tools.map((t) => t.name)).toEqual(['big.get_ticket', 'big.tag_order']);
    expect(d.missing).toEqual(['zzz']);
    expect(d.declarations).toContain('tag_order(');
    const unknown = await get('/v1/tools/describe?name=big.get_ticket', SMALL);
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ error: { code: 'UNKNOWN_TOOL' } });
    expect((await get('/v1/tools/describe')).status).toBe(400);
    const badLimit = await get('/v1/tools/search?query=a&limit=abc');
    expect(badLimit).toMatchObject({ status: 400, body: { error: { code: 'INVALID_ARGS' } } });
    expect((await get(`/v1/tools/search?query=${'x'.repeat(201)}`)).status).toBe(400);
  });

  it('POST /v1/execute answers the helpers like the library', async () => {
    const res = await app.request('/v1/execute', {
      method: 'POST',
      headers: { authorization: `Bearer ${BIG}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'search_tools', args: { query: 'count customer', limit: 1 } }),
    });
    const r = (await res.json()) as ToolResult;
    expect(r.ok && r.value).toEqual(rt.searchTools('count customer', 'big', 1));
  });

  it('needs a key like every catalog route', async () => {
    const res = await app.request('/v1/tools/search?query=a');
    expect(res.status).toBe(401);
  });
});
