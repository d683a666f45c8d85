// An upstream whose answers the SDK's strict message schema refuses (a hand-written stdio server):
// every answer reaches its call, promptly — a usable one is delivered, an unusable one fails the call
// with UPSTREAM_ERROR saying why — instead of the SDK dropping the line and the call waiting out its
// time limit; an answer over the 10 MiB a stdio message may have ends the connection with that reason.
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isIsocodeError } from '../../src/index.js';
import { mcpTools, type McpSource } from '../../src/sources/index.js';
import { ctx, rejection, tool } from './helpers.js';

const fixture = fileURLToPath(new URL('../fixtures/mcp/odd-responses-server.mjs', import.meta.url));
let source: McpSource;
const call = (name: string): Promise<unknown> =>
  Promise.resolve(tool(source.tools, `odd.${name}`).execute({}, ctx()));

beforeAll(async () => {
  source = await mcpTools({
    name: 'odd',
    mcp: { command: process.execPath, args: [fixture] },
    reconnect: { initialDelayMs: 0 },
  });
});
afterAll(async () => {
  await source?.close();
});

describe('answers the SDK would drop reach their call', () => {
  it.each(['extra_key', 'no_version', 'stray_line', 'with_method', 'bom', 'error_null'])(
    '%s: a usable answer is delivered',
    async (name) => {
      expect(await call(name)).toMatchObject({ text: `ok ${name}` });
    },
  );

  it.each([
    ['result_text', 'its result is a string, not an object'],
    ['both', 'it has both a result and an error'],
  ])('%s: an unusable answer fails the call with UPSTREAM_ERROR saying why', async (name, why) => {
    const error = await rejection(call(name));
    expect(isIsocodeError(error) && error.code).toBe('UPSTREAM_ERROR');
    expect((error as Error).message).toBe(
      `MCP server "odd" answered the call of "${name}" with a response that is not valid JSON-RPC: ${why}`,
    );
    expect((error as { details?: unknown }).details).toMatchObject({
      source: 'odd',
      upstreamTool: name,
      malformedResponse: true,
    });
    // The connection is healthy: the next call is answered.
    expect(await call('fine')).toMatchObject({ text: 'ok fine' });
  });

  it('a request the server spelled wrong is answered -32600; a stray line is not answered', async () => {
    const answer = JSON.parse(((await call('ask_badly')) as { text: string }).text) as unknown;
    expect(answer).toMatchObject({ jsonrpc: '2.0', id: 's1', error: { code: -32600 } });
    // The stray_line case above wrote a line that is not JSON: nothing was sent back for it.
    expect(await call('unasked')).toMatchObject({ text: '0' });
  });

  it("an upstream's own -32000 error is its answer, not a closed connection", async () => {
    const pid = source.status().pid;
    const error = await rejection(call('server_error'));
    expect(isIsocodeError(error) && error.code).toBe('UPSTREAM_ERROR');
    expect((error as Error).message).toBe(
      'MCP server "odd" rejected the call of "server_error": MCP error -32000: upstream says no',
    );
    expect(await call('fine')).toMatchObject({ text: 'ok fine' });
    expect(source.status().pid).toBe(pid);
  });

  it("a result: null beside an error keeps the upstream's own error", async () => {
    const error = await rejection(call('result_null'));
    expect(isIsocodeError(error) && error.code).toBe('UPSTREAM_ERROR');
    expect((error as Error).message).toBe(
      'MCP server "odd" rejected the call of "result_null": MCP error 7: nope',
    );
  });

  it('an answer just under 10 MiB, written with the line after it, is read', async () => {
    const pid = source.status().pid;
    const value = (await call('near_limit')) as { text: string };
    expect(value.text).toHaveLength(10 * 1024 * 1024 - 200);
    expect(source.status().pid).toBe(pid);
  }, 60_000);

  it('an answer over 10 MiB ends the connection with that reason; the next call reconnects', async () => {
    const error = await rejection(call('huge'));
    expect(isIsocodeError(error) && error.code).toBe('UPSTREAM_UNAVAILABLE');
    expect((error as Error).message).toContain(
      'the server sent a message over the 10 MiB a stdio message may have',
    );
    expect(await call('fine')).toMatchObject({ text: 'ok fine' });
  }, 60_000);
});
