/**
 * Hostile scenarios that are not one program: floods of runs and of queued arguments, cross-tenant
 * probes on the checker and on MCP sessions, DNS-rebinding Host and Origin names. Each is a function
 * over a running face, so a test file can hold it in the default run or in a pending file.
 */
import { request } from 'node:http';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { expect } from 'vitest';
import { checkProgram, runProgram, type RunReply } from '../../benchmarks/load/client.js';
import { sampleTreeRss } from '../../benchmarks/load/proc.js';
import { HOSTILE_PROGRAMS } from '../../benchmarks/load/programs.js';
import { ROOT } from '../../benchmarks/load/server.js';
import type { TenantConfigOptions } from '../../benchmarks/load/tenants.js';
import { BENIGN, type TenantFace } from '../load/face.js';
import { CHECKER_PROBES } from './classes.js';
import { expectOtherTenantServed, expectRunAnswer, RSS_BUDGET_BYTES } from './suite.js';

/** Tenant b sees `vault.open_sesame_b`; tenant a sees only the demo tools. */
export const VAULT_CONFIG: TenantConfigOptions = {
  sources: [{ module: join(ROOT, 'test/hostile/fixtures/vault-tools.mjs') }],
  scopes: {
    'tenant-a': { mode: 'code', allow: ['kv.*', 'text.*'] },
    'tenant-b': { mode: 'code', allow: ['kv.*', 'text.*', 'vault.*'] },
  },
};

/** A run that holds ~32 MB of heap and computes for a while: within every limit on its own. */
const HEAVY_BUT_LEGAL = `const keep = new Array(4e6).fill(1.5);
let x = 0;
for (let i = 0; i < 2e7; i++) x += keep[i % 1000];
return x;`;

const FLOOD_KINDS = ['ok', 'timeout', 'memory'];

/** 30 concurrent legal runs of tenant a: each answered or refused with Retry-After; b is not starved. */
export async function concurrentRunFlood(face: TenantFace): Promise<void> {
  const [a, b] = face.setup.tenants;
  const rss = sampleTreeRss(face.server.pid);
  const flood = Array.from({ length: 30 }, () =>
    runProgram(face.server.url, a.key, HEAVY_BUT_LEGAL, 120_000),
  );
  const during = await runProgram(face.server.url, b.key, BENIGN, 120_000);
  const replies = await Promise.all(flood);
  const peak = rss.stop();
  for (const reply of replies) expectRunAnswer(reply, FLOOD_KINDS);
  expect(during.outcome, 'tenant b during tenant a flood').toBe('ok');
  expect(peak, 'peak RSS of the server tree').toBeLessThanOrEqual(RSS_BUDGET_BYTES);
  await expectOtherTenantServed(face, b);
}

/** Three concurrent runs that queue many nested calls with large arguments. */
export async function queuedArgumentFlood(face: TenantFace): Promise<void> {
  const program = HOSTILE_PROGRAMS.find((p) => p.class === 'queued-argument-flood')!;
  const rss = sampleTreeRss(face.server.pid);
  const replies: RunReply[] = await Promise.all(
    [0, 1, 2].map(() =>
      runProgram(face.server.url, face.setup.tenants[0].key, program.code, 120_000),
    ),
  );
  const peak = rss.stop();
  for (const reply of replies) expectRunAnswer(reply, program.kinds);
  expect(peak, 'peak RSS of the server tree').toBeLessThanOrEqual(RSS_BUDGET_BYTES);
  await expectOtherTenantServed(face);
}

/** Tenant a probes the checker for tenant b's SDK files; nothing of b's catalog comes back. */
export async function checkerProbes(face: TenantFace): Promise<void> {
  const a = face.setup.tenants[0];
  for (const code of CHECKER_PROBES) {
    for (const reply of [
      await checkProgram(face.server.url, a.key, code),
      await runProgram(face.server.url, a.key, code),
    ]) {
      expect('body' in reply ? reply.body : reply.error).not.toMatch(/open_sesame|vault/i);
    }
  }
  await expectOtherTenantServed(face);
}

const mcpClient = async (url: string, key: string): Promise<Client> => {
  const client = new Client({ name: 'hostile-suite', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), {
      requestInit: { headers: { authorization: `Bearer ${key}` } },
    }),
  );
  return client;
};

/** Tenant a opens more sessions than the table holds; tenant b's open session keeps working. */
export async function mcpSessionFlood(face: TenantFace): Promise<void> {
  const [a, b] = face.setup.tenants;
  const victim = await mcpClient(face.server.url, b.key);
  const attackers: Client[] = [];
  try {
    for (let i = 0; i < 110; i++) {
      try {
        attackers.push(await mcpClient(face.server.url, a.key));
      } catch {
        break; // refused: the table is full for a, which is a correct answer
      }
    }
    const result = await victim.callTool({
      name: 'run_code',
      arguments: { code: BENIGN, description: 'victim' },
    });
    expect(result.isError ?? false, JSON.stringify(result).slice(0, 500)).toBe(false);
  } finally {
    await Promise.allSettled([victim, ...attackers].map((c) => c.close()));
  }
}

/** POSTs to a face with chosen Host and Origin headers (fetch cannot set Host); resolves to the status. */
export function postWithHost(
  url: string,
  headers: Record<string, string>,
  body: string,
): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...headers,
        },
      },
      (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** Host and Origin names a DNS-rebinding page would send. */
export const REBINDING_NAMES: readonly string[] = [
  '127.attacker.example',
  '127.0.0.1.attacker.example',
  'localhost.attacker.example',
  'attacker.example',
];
