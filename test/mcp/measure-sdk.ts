/**
 * Measures the size of the `run_code` description (instructions + generated SDK) that `isocode mcp`
 * lists under `code` mode, for real catalogs: the filesystem and everything fixtures, and
 * server-memory captured live. Figures for docs/decisions/008-mcp-face.md.
 * Run: `node --no-node-snapshot --import tsx test/mcp/measure-sdk.ts`
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { createRuntime, type ToolDefinition, type ToolSchema } from '../../src/index.js';
import { countTokens } from '../../src/tokens.js';
import { builtinDemoTools } from '../../src/sources/index.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const require = createRequire(import.meta.url);

function fixture(name: string): ToolSchema[] {
  return JSON.parse(
    readFileSync(join(root, 'test/fixtures/catalogs', `${name}.json`), 'utf8'),
  ) as ToolSchema[];
}

async function memoryCatalog(): Promise<ToolSchema[]> {
  const manifest = require.resolve('@modelcontextprotocol/server-memory/package.json');
  const bin = Object.values((require(manifest) as { bin: Record<string, string> }).bin)[0] ?? '';
  const client = new Client({ name: 'measure', version: '0.0.0' });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [join(dirname(manifest), bin)],
      stderr: 'ignore',
      env: { MEMORY_FILE_PATH: '/tmp/isocode-measure-memory.jsonl' },
    }),
  );
  try {
    const { tools } = await client.listTools();
    return tools.map((t) => ({
      name: t.name,
      description: t.description ?? '',
      inputSchema: t.inputSchema,
      ...(t.outputSchema === undefined ? {} : { outputSchema: t.outputSchema }),
    }));
  } finally {
    await client.close();
  }
}

const asTools = (ns: string, catalog: ToolSchema[]): ToolDefinition[] =>
  catalog.map((t) => ({
    name: `${ns}.${t.name}`,
    description: t.description,
    input: t.inputSchema,
    ...(t.outputSchema === undefined ? {} : { output: t.outputSchema }),
    execute: () => null,
  }));

async function measure(label: string, tools: ToolDefinition[]): Promise<void> {
  const runtime = await createRuntime({
    tools,
    scopes: { default: { mode: 'code' } },
    codeMode: { warmup: false, typecheck: 'off' },
  });
  try {
    const [runCode] = runtime.wireTools('mcp', 'default', { mode: 'never' });
    const native = runtime.schemas().reduce((n, t) => n + JSON.stringify(t).length, 0);
    const desc = runCode?.description ?? '';
    const sdk = runtime.sdk().text;
    const compact = (runtime.wireTools('mcp', 'default', { mode: 'always' })[0]?.description ?? '')
      .length;
    console.log(
      `${label.padEnd(34)} tools=${String(tools.length).padStart(3)}  run_code description=${String(desc.length).padStart(6)} chars (${countTokens(desc)} tokens)  sdk=${String(sdk.length).padStart(6)}  native tools/list JSON=${String(native).padStart(6)}  compact=${String(compact).padStart(6)}`,
    );
  } finally {
    await runtime.close();
  }
}

const fs = asTools('fs', fixture('filesystem'));
const everything = asTools('everything', fixture('everything'));
const memory = asTools('memory', await memoryCatalog());
await measure('demo (kv + text)', builtinDemoTools());
await measure('filesystem', fs);
await measure('memory', memory);
await measure('everything', everything);
await measure('filesystem + memory', [...fs, ...memory]);
await measure('filesystem + memory + everything', [...fs, ...memory, ...everything]);
// A large catalog: the three servers repeated under 5 namespaces each (~200 tools).
const big = [1, 2, 3, 4, 5].flatMap((i) => [
  ...asTools(`fs${i}`, fixture('filesystem')),
  ...everything.map((t) => ({ ...t, name: t.name.replace('everything.', `everything${i}.`) })),
  ...memory.map((t) => ({ ...t, name: t.name.replace('memory.', `memory${i}.`) })),
]);
await measure('x5 (all three under 5 namespaces)', big);
