/**
 * Approvals by elicitation over a durable runtime (in-memory embedded store): a capable MCP client
 * is asked directly and nothing is parked; a client without the capability keeps the runtime's
 * approver (the parked approver, which parks only asks of durable runs: a call made over the MCP
 * face is not one, so its ask fails closed); a durable run started in the background still parks
 * its ask as a pending approval.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { ElicitRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from '../../src/index.js';
import { createDurableRuntime, type DurableRuntime } from '../../src/durable/index.js';
import { createMcpServer } from '../../src/mcp/index.js';

const ran: string[] = [];
let runtime: DurableRuntime;

beforeAll(async () => {
  runtime = await createDurableRuntime({
    scopes: { default: { mode: 'code' } },
    recovery: false,
    tools: [
      defineTool({
        name: 'kv.delete',
        description: 'Deletes a key (asks a human first).',
        input: z.object({ key: z.string() }),
        execute: ({ key }: { key: string }) => {
          ran.push(key);
          return { deleted: key };
        },
      }),
    ],
    hooks: {
      preExecute: (ctx) =>
        ctx.call.name === 'kv.delete' ? { action: 'ask', message: 'deletes data' } : undefined,
    },
  });
});
afterAll(async () => {
  await runtime.close();
});

async function connect(elicits: boolean): Promise<{ client: Client; asked: string[] }> {
  const server = createMcpServer({ runtime });
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(a);
  const asked: string[] = [];
  const client = new Client(
    { name: 'durable-test', version: '0.0.0' },
    elicits ? { capabilities: { elicitation: {} } } : {},
  );
  if (elicits)
    client.setRequestHandler(ElicitRequestSchema, (request) => {
      asked.push((request.params as { message: string }).message);
      return { action: 'accept', content: { approve: true } };
    });
  await client.connect(b);
  return { client, asked };
}

const program = (key: string): string =>
  `try { return await tools.kv.delete({ key: ${JSON.stringify(key)} }); } catch (e) { return (e as ToolCallError).code; }`;
const call = async (client: Client, key: string): Promise<string> => {
  const r = (await client.callTool({
    name: 'run_code',
    arguments: { code: program(key), description: 'delete' },
  })) as CallToolResult;
  return r.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
};

describe('elicitation over a durable runtime', () => {
  it('a capable client is asked directly; nothing is parked', async () => {
    const { client, asked } = await connect(true);
    expect(await call(client, 'a')).toContain('"deleted": "a"');
    expect(asked).toHaveLength(1);
    expect(ran).toEqual(['a']);
    expect(await runtime.store.listApprovals()).toEqual([]);
    await client.close();
  });

  it('a client without the capability keeps the parked approver: not a durable run, so it fails closed', async () => {
    const { client } = await connect(false);
    expect(await call(client, 'b')).toContain('DENIED');
    expect(ran).toEqual(['a']);
    expect(await runtime.store.listApprovals()).toEqual([]);
    await client.close();
  });

  it('a durable run started in the background still parks its ask', async () => {
    const handle = await runtime.start({ code: program('c'), description: 'background' });
    await expect
      .poll(async () => (await runtime.store.listApprovals({ status: ['pending'] })).length)
      .toBe(1);
    await handle.cancel();
    await handle.wait();
    expect(ran).toEqual(['a']);
  });
});
