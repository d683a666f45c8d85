/**
 * Approvals by elicitation over a durable runtime (in-memory embedded store): a capable MCP client
 * is asked directly and nothing is parked; the run_code program of a client without the capability
 * runs as a durable run, whose ask is parked and seen and decided over HTTP (the call answers when
 * the run settles, naming the run); a durable run started in the background still parks its ask.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import {
  ElicitRequestSchema,
  LoggingMessageNotificationSchema,
  type CallToolResult,
} from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from '../../src/index.js';
import { createDurableRuntime, type DurableRuntime } from '../../src/durable/index.js';
import { createMcpServer } from '../../src/mcp/index.js';
import { createHttpApp } from '../../src/server/index.js';

/** Runs wait for a sandbox worker, which a cancelled run's replacement may still be starting. */
const POLL = { timeout: 20_000, interval: 100 };
const ran: string[] = [];
let runtime: DurableRuntime;

beforeAll(async () => {
  runtime = await createDurableRuntime({
    scopes: { default: { mode: 'code' } },
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

  it('a client without the capability: the program runs as a durable run, its ask decided over HTTP', async () => {
    const app = createHttpApp({
      runtime,
      defaultScope: 'default',
      apiKeys: [],
      runs: runtime.runs,
    });
    const { client } = await connect(false);
    const answer = client.callTool({
      name: 'run_code',
      arguments: { code: program('b'), description: 'delete b' },
    }) as Promise<CallToolResult>;
    type Approval = { id: string; runId: string; tool: string; args: unknown };
    let pending: Approval[] = [];
    await expect
      .poll(async () => {
        const res = await app.request('/v1/approvals');
        pending = ((await res.json()) as { approvals: Approval[] }).approvals;
        return pending.length;
      }, POLL)
      .toBe(1);
    expect(pending[0]).toMatchObject({ tool: 'kv.delete', args: { key: 'b' } });
    expect(ran).toEqual(['a']);
    const decided = await app.request(`/v1/approvals/${pending[0]!.id}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ decision: 'allowed-once' }),
    });
    expect(decided.status).toBe(200);
    const r = await answer;
    expect(r.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n')).toContain(
      '"deleted": "b"',
    );
    expect(r._meta?.['isocode/run']).toEqual({ id: pending[0]!.runId });
    expect(ran).toEqual(['a', 'b']);
    // A rejection reaches the program as DENIED, as for any approver.
    const rejected = client.callTool({
      name: 'run_code',
      arguments: { code: program('x'), description: 'delete x' },
    }) as Promise<CallToolResult>;
    await expect
      .poll(async () => (await runtime.store.listApprovals({ status: ['pending'] })).length, POLL)
      .toBe(1);
    const [p] = await runtime.store.listApprovals({ status: ['pending'] });
    await runtime.store.decideApproval(p!.id, 'rejected', 'test');
    expect(
      (await rejected).content.map((c) => (c.type === 'text' ? c.text : '')).join(''),
    ).toContain('DENIED');
    expect(ran).toEqual(['a', 'b']);
    await client.close();
  });

  it('arguments run_code refuses are INVALID_ARGS, as for any client, and store no run', async () => {
    const { client } = await connect(false);
    const before = (await runtime.store.listRuns({})).length;
    for (const args of [
      { code: program('z') },
      { code: 'x'.repeat(100_001), description: 'too long' },
      { code: program('z'), description: '   ' },
    ]) {
      const r = (await client.callTool({ name: 'run_code', arguments: args })) as CallToolResult;
      expect(r.isError).toBe(true);
      expect(r._meta?.['isocode/error']).toMatchObject({ code: 'INVALID_ARGS' });
    }
    expect((await runtime.store.listRuns({})).length).toBe(before);
    await client.close();
  });

  it('cancelling the MCP call cancels its durable run, and its pending approval with it', async () => {
    const { client } = await connect(false);
    const controller = new AbortController();
    const call = client
      .callTool(
        { name: 'run_code', arguments: { code: program('y'), description: 'y' } },
        undefined,
        {
          signal: controller.signal,
        },
      )
      .catch((e: unknown) => e);
    await expect
      .poll(async () => (await runtime.store.listApprovals({ status: ['pending'] })).length, POLL)
      .toBe(1);
    const [p] = await runtime.store.listApprovals({ status: ['pending'] });
    controller.abort();
    await call;
    await expect
      .poll(async () => (await runtime.runs.get(p!.runId))?.status, POLL)
      .toBe('cancelled');
    await expect
      .poll(async () => (await runtime.store.listApprovals({ status: ['pending'] })).length, POLL)
      .toBe(0);
    expect(ran).toEqual(['a', 'b']);
    await client.close();
  });

  it('a client that asked for progress is told each ask as it happens, and where to decide it', async () => {
    const { client } = await connect(false);
    const messages: string[] = [];
    const call = client.callTool(
      { name: 'run_code', arguments: { code: program('p'), description: 'p' } },
      undefined,
      { onprogress: (p) => void messages.push(p.message ?? '') },
    ) as Promise<CallToolResult>;
    await expect
      .poll(() => messages.some((m) => m.includes('waits for approval')), POLL)
      .toBe(true);
    const [p] = await runtime.store.listApprovals({ status: ['pending'] });
    expect(messages.find((m) => m.includes('waits for approval'))).toBe(
      `run ${p!.runId}: kv.delete waits for approval ${p!.id} (${p!.reason}); decide it with POST /v1/approvals/${p!.id}`,
    );
    await runtime.store.decideApproval(p!.id, 'allowed-once', 'test');
    const r = await call;
    expect(r.content.map((c) => (c.type === 'text' ? c.text : '')).join('')).toContain(
      '"deleted": "p"',
    );
    expect(messages).toContain(`run ${p!.runId}: approval ${p!.id} for kv.delete allowed-once`);
    expect(ran).toEqual(['a', 'b', 'p']);
    await client.close();
  });

  it('a client without elicitation that set a log level gets its durable run console lines as notifications/message', async () => {
    const { client } = await connect(false);
    const logs: { level: string; data: unknown }[] = [];
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
      logs.push({ level: n.params.level, data: n.params.data });
    });
    await client.setLoggingLevel('info');
    const r = (await client.callTool({
      name: 'run_code',
      arguments: {
        code: `console.debug('hidden'); console.warn('careful'); console.log('done'); return 1;`,
        description: 'logs',
      },
    })) as CallToolResult;
    expect(r._meta?.['isocode/run']).toMatchObject({ id: expect.any(String) as string });
    await expect.poll(() => logs.length, POLL).toBe(2);
    expect(logs).toEqual([
      { level: 'warning', data: 'careful' },
      { level: 'info', data: 'done' },
    ]);
    await client.close();
  });

  it('a durable run started in the background still parks its ask', async () => {
    const handle = await runtime.start({ code: program('c'), description: 'background' });
    await expect
      .poll(async () => (await runtime.store.listApprovals({ status: ['pending'] })).length, POLL)
      .toBe(1);
    await handle.cancel();
    await handle.wait();
    expect(ran).toEqual(['a', 'b', 'p']);
  });
});
