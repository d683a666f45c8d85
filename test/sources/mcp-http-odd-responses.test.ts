// An HTTP upstream (Streamable HTTP, written by hand) whose answers the SDK's strict message schema
// refuses, as a JSON body or as an SSE event: every answer reaches its call — a usable one is
// delivered, an unusable one fails the call with UPSTREAM_ERROR saying why — where the SDK failed a
// JSON body as a lost connection and dropped an SSE event (its call waited out its time limit).
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isIsocodeError } from '../../src/index.js';
import { mcpTools, type McpSource } from '../../src/sources/index.js';
import { ctx, rejection, tool } from './helpers.js';

type Answer = { json: unknown } | { raw: string } | { sse: string };
const ok = (name: string) => ({ content: [{ type: 'text', text: `ok ${name}` }] });
const event = (data: unknown, extra = ''): string => `${extra}data: ${JSON.stringify(data)}\n\n`;

/** What the server answers a `tools/call` of `name` with id `id`. */
function callAnswer(name: string, id: unknown): Answer {
  switch (name) {
    case 'json_result_text':
      return { json: { jsonrpc: '2.0', id, result: 'done' } };
    case 'json_no_version':
      return { json: { id, result: ok(name) } };
    case 'sse_result_text':
      return { sse: event({ jsonrpc: '2.0', id, result: 'done' }, 'id: e1\n') };
    case 'sse_extra_key':
      return { sse: event({ jsonrpc: '2.0', id, result: ok(name), extra: true }) };
    case 'sse_multiline':
      // One event whose data spans lines (pretty-printed JSON), after a retry field and a comment.
      return {
        sse: `retry: 1000\n\n: keep-alive\n\n${JSON.stringify(
          { jsonrpc: '2.0', id, result: ok(name) },
          null,
          2,
        )
          .split('\n')
          .map((line) => `data: ${line}\n`)
          .join('')}\n`,
      };
    case 'json_batch_with_junk':
      return { json: [{ jsonrpc: '2.0', id, result: ok(name) }, 42] };
    case 'json_deep': {
      // A usable answer whose value nests deeper than JSON.stringify can write again.
      let deep = '0';
      for (let i = 0; i < 200_000; i++) deep = `[${deep}]`;
      return {
        raw: `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{"content":[],"deep":${deep}}}`,
      };
    }
    case 'json_not_jsonrpc':
      return { json: { hello: 'world' } };
    case 'json_empty_batch':
      return { json: [] };
    case 'json_other_id':
      return { json: { jsonrpc: '2.0', id: 'not-yours', result: ok(name) } };
    case 'sse_nothing_then_end':
      return { sse: ': nothing to say\n\n' };
    case 'sse_truncated_then_end':
      return { sse: 'data: {"jsonrpc":"2.0","id":\n\n' };
    case 'json_huge':
      return {
        json: {
          jsonrpc: '2.0',
          id,
          result: { content: [{ type: 'text', text: 'h'.repeat(11 * 1024 * 1024) }] },
        },
      };
    case 'sse_huge':
      return {
        sse: event({
          jsonrpc: '2.0',
          id,
          result: { content: [{ type: 'text', text: 'h'.repeat(11 * 1024 * 1024) }] },
        }),
      };
    case 'sse_error_minus_32000':
      return {
        sse: event({ jsonrpc: '2.0', id, error: { code: -32000, message: 'upstream says no' } }),
      };
    default:
      return { json: { jsonrpc: '2.0', id, result: ok(name) } };
  }
}
const TOOLS = [
  'json_result_text',
  'json_no_version',
  'sse_result_text',
  'sse_extra_key',
  'sse_multiline',
  'fine',
  'json_batch_with_junk',
  'json_deep',
  'json_not_jsonrpc',
  'json_empty_batch',
  'json_other_id',
  'sse_nothing_then_end',
  'sse_truncated_then_end',
  'sse_error_minus_32000',
  'json_huge',
  'sse_huge',
];

async function bodyOf(req: IncomingMessage): Promise<string> {
  let text = '';
  for await (const chunk of req) text += (chunk as Buffer).toString('utf8');
  return text;
}

let server: Server;
let source: McpSource;
const call = (name: string): Promise<unknown> =>
  Promise.resolve(tool(source.tools, `odd.${name}`).execute({}, ctx()));

beforeAll(async () => {
  server = createServer((req, res) => {
    void (async () => {
      if (req.method !== 'POST') return void res.writeHead(405).end();
      const message = JSON.parse(await bodyOf(req)) as {
        id?: unknown;
        method: string;
        params: { name: string; protocolVersion: string };
      };
      if (message.id === undefined) return void res.writeHead(202).end();
      let answer: Answer;
      if (message.method === 'initialize')
        answer = {
          json: {
            jsonrpc: '2.0',
            id: message.id,
            result: {
              protocolVersion: message.params.protocolVersion,
              capabilities: { tools: {} },
              serverInfo: { name: 'odd-http', version: '1.0.0' },
            },
          },
        };
      else if (message.method === 'tools/list')
        answer = {
          json: {
            jsonrpc: '2.0',
            id: message.id,
            result: { tools: TOOLS.map((name) => ({ name, inputSchema: { type: 'object' } })) },
          },
        };
      else answer = callAnswer(message.params.name, message.id);
      if ('sse' in answer)
        res.writeHead(200, { 'content-type': 'text/event-stream' }).end(answer.sse);
      else
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end('raw' in answer ? answer.raw : JSON.stringify(answer.json));
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  source = await mcpTools({ name: 'odd', mcp: { url: `http://127.0.0.1:${port}/mcp` } });
});
afterAll(async () => {
  await source?.close();
  await new Promise((resolve) => server?.close(resolve));
});

describe('HTTP answers the SDK would refuse reach their call', () => {
  it.each(['json_no_version', 'sse_extra_key', 'sse_multiline', 'json_batch_with_junk'])(
    '%s: a usable answer is delivered',
    async (name) => {
      expect(await call(name)).toMatchObject({ text: `ok ${name}` });
    },
  );

  it.each(['json_result_text', 'sse_result_text'])(
    '%s: an unusable answer fails the call with UPSTREAM_ERROR saying why; the connection stays',
    async (name) => {
      const error = await rejection(call(name));
      expect(isIsocodeError(error) && error.code).toBe('UPSTREAM_ERROR');
      expect((error as Error).message).toBe(
        `MCP server "odd" answered the call of "${name}" with a response that is not valid JSON-RPC: its result is a string, not an object`,
      );
      expect(await call('fine')).toMatchObject({ text: 'ok fine' });
      expect(source.status().reconnects).toBe(0);
    },
  );

  it('json_deep: an answer nested deeper than it can be written again is delivered as it came', async () => {
    expect(await call('json_deep')).toEqual({ text: '', content: [] });
  });

  it.each([
    ['json_not_jsonrpc', 'the answer holds no response to this request'],
    ['json_empty_batch', 'the answer holds no response to this request'],
    ['json_other_id', 'the answer holds no response to this request'],
    ['sse_nothing_then_end', 'the answer stream ended without a response'],
    ['sse_truncated_then_end', 'the answer stream ended without a response'],
  ])(
    '%s: an answer without a response to the call fails it at once, saying so',
    async (name, why) => {
      const error = await rejection(call(name));
      expect(isIsocodeError(error) && error.code).toBe('UPSTREAM_ERROR');
      expect((error as Error).message).toBe(
        `MCP server "odd" answered the call of "${name}" with a response that is not valid JSON-RPC: ${why}`,
      );
      expect(await call('fine')).toMatchObject({ text: 'ok fine' });
    },
  );

  it("an upstream's own -32000 error over SSE is its answer, not a lost connection", async () => {
    const error = await rejection(call('sse_error_minus_32000'));
    expect(isIsocodeError(error) && error.code).toBe('UPSTREAM_ERROR');
    expect(await call('fine')).toMatchObject({ text: 'ok fine' });
    expect(source.status().reconnects).toBe(0);
  });

  it('a JSON body over 10 MiB fails its call, saying so, and is read no further; the connection stays', async () => {
    const error = await rejection(call('json_huge'));
    expect(isIsocodeError(error) && error.code).toBe('UPSTREAM_ERROR');
    expect((error as Error).message).toBe(
      'MCP server "odd" answered the call of "json_huge" with a response that is not valid JSON-RPC: the answer is over 10 MiB',
    );
    expect(await call('fine')).toMatchObject({ text: 'ok fine' });
  });

  it('an SSE event over 10 MiB ends the connection; the next call reconnects', async () => {
    const error = await rejection(call('sse_huge'));
    expect(isIsocodeError(error) && error.code).toBe('UPSTREAM_UNAVAILABLE');
    expect((error as Error).message).toContain('a message over 10 MiB');
    expect(await call('fine')).toMatchObject({ text: 'ok fine' });
  }, 60_000);
});
