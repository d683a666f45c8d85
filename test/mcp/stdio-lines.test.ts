// isocode's stdio MCP face answers a line that is not a message, as JSON-RPC asks, instead of
// dropping it (the client then waited for ever): a parse error without an id, an invalid request
// with its id. The session stays healthy.
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRuntime, defineTool, type Runtime } from '../../src/index.js';
import { serveMcpStdio, type McpStdioHandle } from '../../src/mcp/index.js';
import { z } from 'zod';
import { initializeRequest } from '../support/mcp-initialize.js';

let runtime: Runtime;
let handle: McpStdioHandle;
const stdin = new PassThrough();
const stdout = new PassThrough();
const received: Array<Record<string, unknown>> = [];
let waiters: Array<() => void> = [];
let pending = '';
stdout.on('data', (chunk: Buffer) => {
  pending += chunk.toString('utf8');
  let end: number;
  while ((end = pending.indexOf('\n')) >= 0) {
    received.push(JSON.parse(pending.slice(0, end)) as Record<string, unknown>);
    pending = pending.slice(end + 1);
  }
  for (const wake of waiters) wake();
  waiters = [];
});

/** Writes `line` and waits for the next message the server writes. */
async function exchange(line: string): Promise<Record<string, unknown>> {
  const before = received.length;
  stdin.write(`${line}\n`);
  while (received.length === before) await new Promise<void>((r) => waiters.push(r));
  return received[before] as Record<string, unknown>;
}

beforeAll(async () => {
  runtime = await createRuntime({
    tools: [
      defineTool({
        name: 'echo',
        description: 'echo',
        input: z.object({ text: z.string() }),
        execute: ({ text }) => ({ text }),
      }),
    ],
    scopes: { default: { mode: 'native' } },
  });
  handle = await serveMcpStdio({ runtime, stdin, stdout });
  expect(await exchange(JSON.stringify(initializeRequest('lines')))).toMatchObject({ id: 1 });
  stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
});
afterAll(async () => {
  await handle?.close();
  await runtime?.close();
});

describe('the stdio face answers lines that are not messages', () => {
  it('a line that is not JSON: a parse error, its id null', async () => {
    expect(await exchange('this is not json {')).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32700, message: 'Parse error' },
    });
  });

  it.each([
    [{ jsonrpc: '2.0', id: 7, method: 5 }, 7, 'its "method" is not a string'],
    [{ id: 8, method: 'ping' }, 8, 'its "jsonrpc" is not "2.0"'],
    [
      { jsonrpc: '2.0', id: { a: 1 }, method: 'ping' },
      null,
      'its "id" is not a string or an integer',
    ],
    [{ jsonrpc: '2.0', id: 9, method: 'ping', params: 3 }, 9, 'its "params" is not an object'],
  ])(
    'a request spelled wrong (%j): an invalid request, with its id, saying why',
    async (line, id, why) => {
      expect(await exchange(JSON.stringify(line))).toEqual({
        jsonrpc: '2.0',
        id,
        error: {
          code: -32600,
          message: `Invalid Request: not a valid JSON-RPC request or notification: ${why}`,
        },
      });
    },
  );

  it('JSON that is not an object: an invalid request, its id null', async () => {
    expect(await exchange('[1,2]')).toMatchObject({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32600 },
    });
  });

  it('blank lines are skipped; a request after a BOM is read', async () => {
    stdin.write('\n   \n\t\r\n');
    const answer = await exchange(
      `\uFEFF${JSON.stringify({ jsonrpc: '2.0', id: 10, method: 'ping' })}`,
    );
    expect(answer).toEqual({ jsonrpc: '2.0', id: 10, result: {} });
  });

  it('a response without a usable id is not answered (JSON-RPC answers no response)', async () => {
    stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1.5, result: {} })}\n`);
    const answer = await exchange(JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'ping' }));
    expect(answer).toEqual({ jsonrpc: '2.0', id: 9, result: {} });
  });

  it('the session goes on: the next request is answered', async () => {
    const answer = await exchange(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 8,
        method: 'tools/call',
        params: { name: 'echo', arguments: { text: 'still here' } },
      }),
    );
    expect(answer).toMatchObject({ id: 8, result: {} });
    expect((answer.result as { isError?: boolean }).isError).not.toBe(true);
    expect(JSON.stringify(answer)).toContain('still here');
    expect(handle.failure()).toBeUndefined();
  });
});
