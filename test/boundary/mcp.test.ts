/** OVERLOADED on the MCP face: a run that gets no slot is an MCP error result with the code and Retry-After details. */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Runtime } from '../../src/index.js';
import { createMcpServer, ERROR_META_KEY } from '../../src/mcp/index.js';
import { until } from '../sources/helpers.js';
import { echo, gate, tenants } from './helpers.js';

const g = gate();
let rt: Runtime;
beforeAll(async () => {
  rt = await tenants(
    {
      typecheck: 'off',
      workers: { maxWorkers: 2, spareWorkers: 1 },
      admission: { maxConcurrentRuns: 2, maxConcurrentRunsPerScope: 1, maxQueuedRunsPerScope: 0 },
    },
    [echo, g.tool],
  );
});
afterAll(async () => {
  g.open();
  await rt.close();
});

async function connect(scope: string): Promise<Client> {
  const server = createMcpServer({ runtime: rt, scope });
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(a);
  const client = new Client({ name: 'boundary-test', version: '1' });
  await client.connect(b);
  return client;
}

describe('OVERLOADED through the MCP face', () => {
  it('is an error result naming the code, and the other tenant still runs', async () => {
    const a = await connect('a');
    const b = await connect('b');
    const call = (client: Client, code: string) =>
      client.callTool({
        name: 'run_code',
        arguments: { code, description: 'boundary over MCP' },
      }) as Promise<CallToolResult>;
    const first = call(a, 'return await tools.wait({});');
    await until(() => g.entered() === 1, 'the first run to hold its slot');
    const refused = await call(a, 'return 1;');
    expect(refused.isError).toBe(true);
    const error = refused._meta?.[ERROR_META_KEY] as {
      code: string;
      details: { retryAfterSeconds: number };
    };
    expect(error.code).toBe('OVERLOADED');
    expect(error.details.retryAfterSeconds).toBe(1);
    const other = await call(b, 'return await tools.echo({ v: "b" });');
    expect(other.isError).not.toBe(true);
    g.open();
    expect((await first).isError).not.toBe(true);
    await a.close();
    await b.close();
  });
});
