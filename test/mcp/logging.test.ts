/**
 * MCP logging through the SDK's own Client: `logging/setLevel`, and a run_code program's console
 * output as `notifications/message` at its level (in memory, and over stateful streamable HTTP).
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  LoggingMessageNotificationSchema,
  type LoggingMessageNotification,
} from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRuntime, type Runtime } from '../../src/index.js';
import { createMcpServer, serveMcpHttp, type McpHttpHandle } from '../../src/mcp/index.js';
import { builtinDemoTools } from '../../src/sources/index.js';

let runtime: Runtime;
let http: McpHttpHandle;
beforeAll(async () => {
  runtime = await createRuntime({
    tools: builtinDemoTools(),
    scopes: { default: { mode: 'code' } },
  });
  http = await serveMcpHttp({ runtime, port: 0 });
});
afterAll(async () => {
  await http.close();
  await runtime.close();
});

const PROGRAM = {
  name: 'run_code',
  arguments: {
    description: 'logs at every level',
    code: [
      `console.debug('d');`,
      `console.log('l');`,
      `console.info('i');`,
      `console.warn('w');`,
      `console.error('e \\u001b[2J');`,
      `return 1;`,
    ].join('\n'),
  },
};

type Params = LoggingMessageNotification['params'];

async function connect(transport: Transport): Promise<{ client: Client; logs: Params[] }> {
  const client = new Client({ name: 'logging-test', version: '0.0.0' });
  const logs: Params[] = [];
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logs.push(n.params));
  await client.connect(transport);
  return { client, logs };
}

function inMemory(): Transport {
  const [a, b] = InMemoryTransport.createLinkedPair();
  void createMcpServer({ runtime }).connect(a);
  return b;
}

const shown = (logs: Params[]): string[] => logs.map((l) => `${l.level}:${String(l.data)}`);

describe('logging/setLevel and notifications/message', () => {
  it('declares the logging capability; without setLevel no log notification is sent', async () => {
    const { client, logs } = await connect(inMemory());
    expect(client.getServerCapabilities()?.logging).toEqual({});
    const r = await client.callTool(PROGRAM);
    expect(r.isError).toBeFalsy();
    expect(logs).toEqual([]);
    await client.close();
  });

  it('after setLevel("debug"): every line, at its level, in order, from the run_code logger, shown safely', async () => {
    const { client, logs } = await connect(inMemory());
    expect(await client.setLoggingLevel('debug')).toEqual({});
    await client.callTool(PROGRAM);
    expect(shown(logs)).toEqual(['debug:d', 'info:l', 'info:i', 'warning:w', 'error:e \\u001B[2J']);
    expect(logs.every((l) => l.logger === 'run_code')).toBe(true);
    await client.close();
  });

  it('over stateful HTTP: setLevel("warning") filters, and a later setLevel changes it', async () => {
    const { client, logs } = await connect(new StreamableHTTPClientTransport(new URL(http.url)));
    await client.setLoggingLevel('warning');
    await client.callTool(PROGRAM);
    expect(shown(logs)).toEqual(['warning:w', 'error:e \\u001B[2J']);
    logs.length = 0;
    await client.setLoggingLevel('emergency');
    await client.callTool(PROGRAM);
    expect(logs).toEqual([]);
    await client.close();
  });

  it('refuses an unknown level as invalid params', async () => {
    const { client } = await connect(inMemory());
    await expect(
      client.request(
        { method: 'logging/setLevel', params: { level: 'loud' } },
        // the SDK's own schema of the empty result
        (await import('@modelcontextprotocol/sdk/types.js')).EmptyResultSchema,
      ),
    ).rejects.toMatchObject({ code: -32602 });
    await client.close();
  });

  it('answers tools/call and tools/list with wrong params as invalid params (-32602)', async () => {
    const { client } = await connect(inMemory());
    const { EmptyResultSchema } = await import('@modelcontextprotocol/sdk/types.js');
    for (const [method, params] of [
      ['tools/call', { name: 5 }],
      ['tools/call', { name: 'run_code', arguments: 'x' }],
      ['tools/list', { cursor: 5 }],
    ] as const) {
      const error = await client.request({ method, params }, EmptyResultSchema).then(
        () => undefined,
        (e: unknown) => e as { code: number; message: string },
      );
      expect(error?.code, method).toBe(-32602);
      // (tools/call's text is the SDK's own check, which runs before the handler.)
      if (method === 'tools/list') expect(error?.message).not.toContain('\n');
      expect(error?.message.length).toBeLessThan(2000);
    }
    // The server serves on.
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('run_code');
    await client.close();
  });
});
