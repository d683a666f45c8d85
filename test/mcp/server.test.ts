/**
 * The MCP server face in process: the SDK's own Client over a linked in-memory transport.
 * Real runtime, real isolate runner and checker; demo tools plus a few test tools.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import {
  createRuntime,
  defineTool,
  isIsocodeError,
  type Runtime,
  type ToolSchema,
} from '../../src/index.js';
import {
  createMcpServer,
  DEFAULT_HELPER_THRESHOLD_TOKENS,
  ERROR_META_KEY,
  type McpServerOptions,
} from '../../src/mcp/index.js';
import { builtinDemoTools } from '../../src/sources/index.js';
import { countTokens } from '../../src/tokens.js';
import { ROOT } from '../cli/helpers.js';

let runtime: Runtime;
const started: string[] = [];
const aborted: string[] = [];

beforeAll(async () => {
  runtime = await createRuntime({
    tools: [
      ...builtinDemoTools(),
      defineTool({
        name: 'test.wait_for_abort',
        description: 'Waits until the call is aborted.',
        input: z.object({ label: z.string() }),
        execute: ({ label }: { label: string }, ctx) =>
          new Promise((_, reject) => {
            started.push(label);
            ctx.signal.addEventListener('abort', () => {
              aborted.push(label);
              reject(new Error('aborted'));
            });
          }),
      }),
    ],
    scopes: {
      default: { mode: 'code' },
      native: { mode: 'native' },
      both: { mode: 'both' },
    },
  });
});
afterAll(async () => {
  await runtime.close();
});

async function connect(options: Partial<McpServerOptions> = {}): Promise<Client> {
  const server = createMcpServer({ runtime, ...options });
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(a);
  const client = new Client({ name: 'test', version: '0.0.0' });
  await client.connect(b);
  return client;
}

const text = (r: unknown): string =>
  (r as CallToolResult).content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');

describe('code mode', () => {
  it('lists only run_code, whose description carries the SDK; the instructions say code-only', async () => {
    const client = await connect();
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['run_code']);
    const description = tools[0]?.description ?? '';
    expect(description).toContain('interface Tools');
    expect(description).toContain('word_count(');
    expect(tools[0]?.inputSchema.required).toEqual(expect.arrayContaining(['code']));
    expect(client.getInstructions()).toContain('run_code');
    await client.close();
  });

  it('runs a program through run_code and returns its logs and result', async () => {
    const client = await connect();
    const r = await client.callTool({
      name: 'run_code',
      arguments: {
        description: 'store and count',
        code: `await tools.kv.set({ key: 'greeting', value: 'hello brave new world' });
const got = await tools.kv.get({ key: 'greeting' });
const n = await tools.text.word_count({ text: String(got.value) });
console.log('words:', n.words);
return { words: n.words };`,
      },
    });
    expect(r.isError).toBeFalsy();
    expect(text(r)).toContain('words: 4');
    expect(text(r)).toContain('"words": 4');
    await client.close();
  });

  it('answers a direct call of a native tool name with isError UNKNOWN_TOOL', async () => {
    const client = await connect();
    const r = await client.callTool({ name: 'kv.get', arguments: { key: 'x' } });
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(/^Error UNKNOWN_TOOL: /);
    expect((r._meta?.[ERROR_META_KEY] as { code: string }).code).toBe('UNKNOWN_TOOL');
    await client.close();
  });

  it('reports a type error as isError CODE_RUN_FAILED with the failure kind', async () => {
    const client = await connect();
    const r = await client.callTool({
      name: 'run_code',
      arguments: { description: 'bad', code: `const n: number = 'x';\nreturn n;` },
    });
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(/^Error CODE_RUN_FAILED: typecheck/);
    const error = r._meta?.[ERROR_META_KEY] as { details: { kind: string } };
    expect(error.details.kind).toBe('typecheck');
    await client.close();
  });

  it('sends run_code progress (logs, nested calls) as notifications/progress', async () => {
    const client = await connect();
    const messages: string[] = [];
    const r = await client.callTool(
      {
        name: 'run_code',
        arguments: {
          description: 'progress',
          code: `console.log('step one');\nawait tools.kv.list({});\nreturn 1;`,
        },
      },
      undefined,
      { onprogress: (p) => messages.push(p.message ?? '') },
    );
    expect(r.isError).toBeFalsy();
    expect(messages).toContain('step one');
    expect(messages).toContain('call kv.list');
    await client.close();
  });

  it('aborts the run and its nested calls when the client cancels the request', async () => {
    const client = await connect();
    const controller = new AbortController();
    const call = client.callTool(
      {
        name: 'run_code',
        arguments: {
          description: 'wait',
          code: `await tools.test.wait_for_abort({ label: 'cancel-1' });\nreturn 1;`,
        },
      },
      undefined,
      { signal: controller.signal },
    );
    await vi.waitFor(() => expect(started).toContain('cancel-1'), { timeout: 10_000 });
    controller.abort();
    await expect(call).rejects.toThrow();
    await vi.waitFor(() => expect(aborted).toContain('cancel-1'), { timeout: 10_000 });
    await vi.waitFor(() => expect(runtime.stats().liveRuns).toBe(0), { timeout: 10_000 });
    await client.close();
  });
});

describe('native and both modes', () => {
  it('native: lists the tools with their schemas and returns structuredContent for output schemas', async () => {
    const client = await connect({ scope: 'native' });
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    expect(names).toContain('kv.set');
    expect(names).not.toContain('run_code');
    expect(tools.find((t) => t.name === 'kv.get')?.outputSchema).toBeDefined();
    await client.callTool({ name: 'kv.set', arguments: { key: 'k', value: [1, 2] } });
    const r = await client.callTool({ name: 'kv.get', arguments: { key: 'k' } });
    expect(r.structuredContent).toEqual({ key: 'k', found: true, value: [1, 2] });
    const bad = await client.callTool({ name: 'kv.get', arguments: { key: 42 } });
    expect(bad.isError).toBe(true);
    expect(text(bad)).toMatch(/^Error INVALID_ARGS/);
    await client.close();
  });

  it('both: lists run_code and the native tools', async () => {
    const client = await connect({ scope: 'both' });
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toContain('run_code');
    expect(names).toContain('text.search');
    await client.close();
  });

  it('refuses an unknown scope with INVALID_SCOPE', () => {
    let caught: unknown;
    try {
      createMcpServer({ runtime, scope: 'nope' });
    } catch (err) {
      caught = err;
    }
    expect(isIsocodeError(caught) && caught.code).toBe('INVALID_SCOPE');
  });
});

describe('discovery helpers', () => {
  it('auto: below the threshold there are no helpers', async () => {
    const client = await connect();
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(['run_code']);
    const r = await client.callTool({ name: 'search_tools', arguments: { query: 'kv' } });
    expect(text(r)).toMatch(/^Error UNKNOWN_TOOL/);
    await client.close();
  });

  it('auto above the threshold: a compact run_code description plus search_tools and describe_tool', async () => {
    const client = await connect({ helperThresholdTokens: 300 });
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['run_code', 'search_tools', 'describe_tool']);
    const description = tools[0]?.description ?? '';
    expect(description).not.toContain('interface Tools');
    expect(description).toContain('- tools.text.word_count — ');
    expect(description).toContain('search_tools');

    const found = await client.callTool({
      name: 'search_tools',
      arguments: { query: 'count words' },
    });
    const result = found.structuredContent as {
      total: number;
      matched: number;
      tools: { name: string; binding: string }[];
    };
    expect(result.total).toBe(runtime.sdk().bindings.length);
    expect(result.matched).toBeGreaterThan(0);
    expect(text(found)).toMatch(/^\d+ of \d+ tools match "count words"/);
    const first = result.tools[0];
    expect(first).toEqual(
      expect.objectContaining({ name: 'text.word_count', binding: 'tools.text.word_count' }),
    );

    const described = await client.callTool({
      name: 'describe_tool',
      arguments: { names: ['tools.text.word_count', 'kv.get'] },
    });
    expect(described.isError).toBeFalsy();
    expect(text(described)).toContain('word_count(');
    expect(text(described)).toContain('get(');
    expect(text(described)).not.toContain('type JsonValue');

    const missing = await client.callTool({
      name: 'describe_tool',
      arguments: { names: ['nope.x'] },
    });
    expect(missing.isError).toBe(true);
    expect(text(missing)).toMatch(/^Error UNKNOWN_TOOL/);
    const bad = await client.callTool({ name: 'search_tools', arguments: { query: 7 } });
    expect(text(bad)).toMatch(/^Error INVALID_ARGS/);

    // run_code still works: programs are checked against the full SDK.
    const r = await client.callTool({
      name: 'run_code',
      arguments: {
        description: 'wc',
        code: `return (await tools.text.word_count({ text: 'a b' })).words;`,
      },
    });
    expect(text(r)).toBe('2');
    await client.close();
  });

  it('auto at the default threshold: 324 real upstream tools switch to the helpers and a compact index', async () => {
    const catalog = [
      ...(JSON.parse(
        readFileSync(join(ROOT, 'test/fixtures/catalogs/filesystem.json'), 'utf8'),
      ) as ToolSchema[]),
      ...(JSON.parse(
        readFileSync(join(ROOT, 'test/fixtures/catalogs/everything.json'), 'utf8'),
      ) as ToolSchema[]),
    ];
    const big = await createRuntime({
      // Twelve copies: the SDK declares a type shared by copies once, so nine no longer pass 16,000.
      tools: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12].flatMap((i) =>
        catalog.map((t) => ({
          name: `server${i}.${t.name}`,
          description: t.description,
          input: t.inputSchema,
          execute: () => null,
        })),
      ),
      scopes: { default: { mode: 'code' } },
      codeMode: { warmup: false },
    });
    try {
      const full = big.wireTools('mcp', 'default', { mode: 'never' })[0]?.description ?? '';
      const status = big.discovery();
      expect(status?.fullTokens).toBeGreaterThan(DEFAULT_HELPER_THRESHOLD_TOKENS);
      expect(status?.compact).toBe(true);
      const server = createMcpServer({ runtime: big });
      const [a, b] = InMemoryTransport.createLinkedPair();
      await server.connect(a);
      const client = new Client({ name: 'test', version: '0.0.0' });
      await client.connect(b);
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(['run_code', 'search_tools', 'describe_tool']);
      const compact = tools[0]?.description ?? '';
      // One line per tool instead of its whole binding: well under half the full SDK.
      expect(compact.length).toBeLessThan(full.length / 2);
      expect(countTokens(compact)).toBeLessThan(DEFAULT_HELPER_THRESHOLD_TOKENS);
      expect(compact).toContain('- tools.server9.read_text_file — ');
      await client.close();
    } finally {
      await big.close();
    }
  });

  it('composes the compact description from the runtime’s parts; bindings are the SDK’s routes', async () => {
    const rt = await createRuntime({
      tools: ['fs.read-file', 'get-user'].map((name) => ({
        name,
        description: `The ${name} tool.`,
        input: { type: 'object', properties: {} },
        execute: () => name,
      })),
      scopes: { default: { mode: 'code' }, plain: { mode: 'native' } },
      codeMode: { warmup: false },
    });
    try {
      expect(rt.runCodeDescription('plain')).toBeUndefined();
      const parts = rt.runCodeDescription();
      if (!parts) throw new Error('run_code is shown under code mode');
      const full = rt.wireTools('mcp')[0]?.description ?? '';
      expect(full.startsWith(`${parts.base}\n\n${parts.instructions}`)).toBe(true);
      expect(full).toContain(parts.sdk.text.trimEnd());

      const server = createMcpServer({ runtime: rt, helpers: 'always' });
      const [a, b] = InMemoryTransport.createLinkedPair();
      await server.connect(a);
      const client = new Client({ name: 'test', version: '0.0.0' });
      await client.connect(b);
      const compact = (await client.listTools()).tools[0]?.description ?? '';
      expect(compact.startsWith(`${parts.base.trim()}\n\n${parts.instructions.trimEnd()}`)).toBe(
        true,
      );
      expect(compact).not.toContain(parts.sdk.text.trimEnd());
      expect(compact).toContain('- tools.fs["read-file"] — The fs.read-file tool.');
      expect(compact).toContain('- tools["get-user"] — The get-user tool.');
      const found = await client.callTool({ name: 'search_tools', arguments: { query: 'read' } });
      expect(found.structuredContent).toEqual({
        query: 'read',
        total: 2,
        matched: 1,
        tools: [
          {
            name: 'fs.read-file',
            binding: 'tools.fs["read-file"]',
            summary: 'The fs.read-file tool.',
          },
        ],
      });
      const described = await client.callTool({
        name: 'describe_tool',
        arguments: { names: ['tools.fs["read-file"]'] },
      });
      expect(text(described)).toContain('// Bindings: tools.fs["read-file"]');
      await client.close();
    } finally {
      await rt.close();
    }
  });

  it('never: no helpers however large the description', async () => {
    const client = await connect({ helpers: 'never', helperThresholdTokens: 10 });
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['run_code']);
    await client.close();
  });
});
