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
  it('a line that is not JSON: a parse error, without an id', async () => {
    expect(await exchange('this is not json {')).toEqual({
      jsonrpc: '2.0',
      error: { code: -32700, message: 'Parse error' },
    });
  });

  it('a request spelled wrong: an invalid request, with its id', async () => {
    const answer = await exchange(JSON.stringify({ jsonrpc: '2.0', id: 7, method: 5 }));
    expect(answer).toMatchObject({ jsonrpc: '2.0', id: 7, error: { code: -32600 } });
    expect((answer.error as { message: string }).message).toMatch(/^Invalid Request: /);
  });

  it('JSON that is not an object: an invalid request, without an id', async () => {
    expect(await exchange('[1,2]')).toMatchObject({ jsonrpc: '2.0', error: { code: -32600 } });
    expect(received.at(-1)).not.toHaveProperty('id');
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
