/**
 * Measures what approval by elicitation costs over an in-process approver: the same `tools/call`
 * of a tool a hook asks for, through the MCP face, answered (1) by the runtime's in-process
 * approver (client without the capability) and (2) by the client itself over `elicitation/create`
 * (an SDK Client that approves at once). A call without an ask is the baseline. In-memory and
 * streamable HTTP (stateful session) transports. Figures for docs/decisions/024-mcp-elicitation.md.
 * Run: `node --no-node-snapshot --import tsx test/mcp/measure-elicitation.ts`
 */
import { performance } from 'node:perf_hooks';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ElicitRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { createRuntime, defineTool } from '../../src/index.js';
import { createMcpServer, serveMcpHttp } from '../../src/mcp/index.js';

const N = Number(process.env['N'] ?? 1000);
const WARM = 50;

const runtime = await createRuntime({
  tools: ['safe', 'danger'].map((name) =>
    defineTool({
      name,
      description: `${name} tool`,
      input: z.object({ n: z.number() }),
      execute: ({ n }: { n: number }) => n,
    }),
  ),
  codeMode: false,
  hooks: {
    preExecute: (ctx) =>
      ctx.call.name === 'danger' ? { action: 'ask', message: 'danger?' } : undefined,
  },
  approver: () => 'allowed-once',
});

function newClient(elicits: boolean): Client {
  const client = new Client(
    { name: 'measure', version: '0.0.0' },
    elicits ? { capabilities: { elicitation: {} } } : {},
  );
  if (elicits)
    client.setRequestHandler(ElicitRequestSchema, () => ({
      action: 'accept',
      content: { approve: true },
    }));
  return client;
}

interface Stat {
  median: number;
  p95: number;
}

/** Times the three kinds of call interleaved (one of each per round), so drift hits all alike. */
async function sample(rows: { client: Client; tool: string }[]): Promise<Stat[]> {
  const times = rows.map((): number[] => []);
  for (let i = 0; i < WARM + N; i++) {
    for (const [k, { client, tool }] of rows.entries()) {
      const t0 = performance.now();
      const r = (await client.callTool({ name: tool, arguments: { n: i } })) as CallToolResult;
      const ms = performance.now() - t0;
      if (r.isError) throw new Error(`call failed: ${JSON.stringify(r.content)}`);
      if (i >= WARM) times[k]?.push(ms);
    }
  }
  return times.map((t) => {
    t.sort((a, b) => a - b);
    const at = (q: number): number => t[Math.min(t.length - 1, Math.floor(q * t.length))] ?? NaN;
    return { median: at(0.5), p95: at(0.95) };
  });
}

const fmt = (s: Stat | undefined): string =>
  s ? `median ${s.median.toFixed(3)} ms, p95 ${s.p95.toFixed(3)} ms` : '-';

async function measure(
  label: string,
  open: (elicits: boolean) => Promise<Transport>,
): Promise<void> {
  const plain = newClient(false);
  await plain.connect(await open(false));
  const eliciting = newClient(true);
  await eliciting.connect(await open(true));
  const [baseline, inProcess, elicited] = await sample([
    { client: plain, tool: 'safe' },
    { client: plain, tool: 'danger' },
    { client: eliciting, tool: 'danger' },
  ]);
  console.log(`${label}:`);
  console.log(`  no ask                  ${fmt(baseline)}`);
  console.log(`  in-process approver     ${fmt(inProcess)}`);
  console.log(`  elicitation round trip  ${fmt(elicited)}`);
  console.log(
    `  overhead of elicitation over the in-process approver (medians): ${((elicited?.median ?? NaN) - (inProcess?.median ?? NaN)).toFixed(3)} ms`,
  );
  await plain.close();
  await eliciting.close();
}

await measure('in-memory transport', async () => {
  const server = createMcpServer({ runtime, scope: 'default' });
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(a);
  return b;
});

const http = await serveMcpHttp({ runtime, port: 0 });
await measure('streamable HTTP (stateful)', () =>
  Promise.resolve(new StreamableHTTPClientTransport(new URL(http.url))),
);
await http.close();
await runtime.close();
console.log(`(N=${N} calls per row after ${WARM} warm-up; node ${process.version})`);
