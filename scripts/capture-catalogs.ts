/**
 * Re-captures the tool catalogs used as SDK golden fixtures from real MCP servers over stdio.
 * Run: `npx tsx scripts/capture-catalogs.ts`. Writes test/fixtures/catalogs/{filesystem,everything}.json
 * (an array of `{ name, description, inputSchema, outputSchema }` in the server's own order), then
 * `UPDATE_GOLDEN=1 npx vitest run test/sdk` rewrites the golden SDK files.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
/** A stable allowed directory so the filesystem server's descriptions do not vary per machine. */
const FIXTURE_DIR = '/tmp/isocode-fixture';

interface Server {
  file: string;
  pkg: string;
  args: string[];
}

const servers: Server[] = [
  { file: 'filesystem', pkg: '@modelcontextprotocol/server-filesystem', args: [FIXTURE_DIR] },
  { file: 'everything', pkg: '@modelcontextprotocol/server-everything', args: ['stdio'] },
];

function serverEntry(pkg: string): string {
  const manifest = require.resolve(`${pkg}/package.json`);
  const json = require(manifest) as { bin: Record<string, string> };
  const bin = Object.values(json.bin)[0];
  if (bin === undefined) throw new Error(`${pkg} has no bin`);
  return join(dirname(manifest), bin);
}

async function capture(server: Server): Promise<void> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [serverEntry(server.pkg), ...server.args],
    stderr: 'ignore',
  });
  const client = new Client({ name: 'isocode-capture', version: '0.0.0' });
  await client.connect(transport);
  try {
    const tools: unknown[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor === undefined ? {} : { cursor });
      for (const t of page.tools) {
        tools.push({
          name: t.name,
          description: t.description ?? '',
          inputSchema: t.inputSchema,
          ...(t.outputSchema === undefined ? {} : { outputSchema: t.outputSchema }),
        });
      }
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    const out = join(root, 'test/fixtures/catalogs', `${server.file}.json`);
    writeFileSync(out, `${JSON.stringify(tools, null, 2)}\n`);
    console.log(`${server.pkg}: ${tools.length} tools → ${out}`);
  } finally {
    await client.close();
  }
}

mkdirSync(FIXTURE_DIR, { recursive: true });
mkdirSync(join(root, 'test/fixtures/catalogs'), { recursive: true });
for (const server of servers) await capture(server);
