import { mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isIsocodeError } from '../../src/index.js';
import { MCP_TEXT_RESULT_SCHEMA, mcpTools } from '../../src/sources/index.js';
import type { McpSource } from '../../src/sources/index.js';
import { alive, ctx, rejection, serverScript, tool, until } from './helpers.js';

const node = process.execPath;

describe('mcpTools over stdio: @modelcontextprotocol/server-filesystem', () => {
  let dir: string;
  let fs: McpSource;
  beforeAll(async () => {
    dir = await realpath(await mkdtemp(join(tmpdir(), 'isocode-fs-')));
    fs = await mcpTools({
      name: 'fs',
      mcp: { command: node, args: [serverScript('filesystem'), dir] },
    });
  });
  afterAll(async () => {
    await fs.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('lists the upstream tools as <namespace>.<name> with their schemas and read-only hints', () => {
    const names = fs.tools.map((t) => t.name);
    expect(names).toEqual(
      expect.arrayContaining([
        'fs.read_text_file',
        'fs.write_file',
        'fs.list_directory',
        'fs.list_allowed_directories',
      ]),
    );
    const write = tool(fs.tools, 'fs.write_file');
    expect(write.input).toMatchObject({
      type: 'object',
      properties: { path: { type: 'string' }, content: { type: 'string' } },
    });
    expect(write.isConcurrencySafe).toBe(false);
    expect(tool(fs.tools, 'fs.read_text_file').isConcurrencySafe).toBe(true);
    expect(write.description.length).toBeGreaterThan(10);
    expect(fs.upstreamNames.get('fs.write_file')).toBe('write_file');
    expect(fs.status()).toMatchObject({
      kind: 'mcp',
      name: 'fs',
      transport: 'stdio',
      state: 'connected',
      toolCount: fs.tools.length,
    });
  });

  it('writes a file through the upstream (checked on disk) and reads it back as structured content', async () => {
    const file = join(dir, 'hello.txt');
    const written = await tool(fs.tools, 'fs.write_file').execute(
      { path: file, content: 'hello from isocode\n' },
      ctx(),
    );
    expect(await readFile(file, 'utf8')).toBe('hello from isocode\n');
    expect(written).toMatchObject({
      content: expect.stringContaining('Successfully wrote') as unknown,
    });
    const read = tool(fs.tools, 'fs.read_text_file');
    expect(read.output).toMatchObject({ type: 'object' }); // the upstream outputSchema, passed through
    expect(await read.execute({ path: file }, ctx())).toEqual({ content: 'hello from isocode\n' });
  });

  it('turns an isError result into TOOL_ERROR with the upstream text', async () => {
    const error = await rejection(
      tool(fs.tools, 'fs.read_text_file').execute({ path: '/etc/hostname' }, ctx()),
    );
    expect(isIsocodeError(error) && error.code).toBe('TOOL_ERROR');
    expect((error as Error).message).toMatch(/access denied|outside allowed/i);
  });

  it('close() leaves no child process, and later calls are UPSTREAM_UNAVAILABLE', async () => {
    const other = await mcpTools({
      name: 'fs2',
      mcp: { command: node, args: [serverScript('filesystem'), dir] },
    });
    const pid = other.status().pid;
    expect(pid).toBeTypeOf('number');
    expect(alive(pid ?? 0)).toBe(true);
    await other.close();
    expect(alive(pid ?? 0)).toBe(false);
    expect(other.status().state).toBe('closed');
    const error = await rejection(
      tool(other.tools, 'fs2.list_allowed_directories').execute({}, ctx()),
    );
    expect(isIsocodeError(error) && error.code).toBe('UPSTREAM_UNAVAILABLE');
    await other.close(); // idempotent
  });
});

describe('mcpTools over stdio: @modelcontextprotocol/server-memory', () => {
  let dir: string;
  let mem: McpSource;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'isocode-mem-'));
    mem = await mcpTools({
      name: 'mem',
      mcp: {
        command: node,
        args: [serverScript('memory')],
        env: { MEMORY_FILE_PATH: join(dir, 'memory.jsonl') },
      },
    });
  });
  afterAll(async () => {
    await mem.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('creates entities and relations, then reads the graph back', async () => {
    await tool(mem.tools, 'mem.create_entities').execute(
      {
        entities: [
          { name: 'Ada', entityType: 'person', observations: ['wrote the first program'] },
          { name: 'Analytical Engine', entityType: 'machine', observations: [] },
        ],
      },
      ctx(),
    );
    await tool(mem.tools, 'mem.create_relations').execute(
      { relations: [{ from: 'Ada', to: 'Analytical Engine', relationType: 'programmed' }] },
      ctx(),
    );
    const graph = (await tool(mem.tools, 'mem.read_graph').execute({}, ctx())) as {
      entities: { name: string; observations: string[] }[];
      relations: { from: string; to: string; relationType: string }[];
    };
    expect(graph.entities.map((e) => e.name).sort()).toEqual(['Ada', 'Analytical Engine']);
    expect(graph.relations).toEqual([
      { from: 'Ada', to: 'Analytical Engine', relationType: 'programmed' },
    ]);
    expect(await readFile(join(dir, 'memory.jsonl'), 'utf8')).toContain('"Ada"');
  });
});

describe('mcpTools over stdio: @modelcontextprotocol/server-everything', () => {
  let ev: McpSource;
  beforeAll(async () => {
    ev = await mcpTools({
      name: 'ev',
      mcp: { command: node, args: [serverScript('everything')] },
      reconnect: { initialDelayMs: 50 },
    });
  });
  afterAll(async () => {
    await ev.close();
  });

  it('maps a tool without outputSchema to { text, content } with the matching output schema', async () => {
    const echo = tool(ev.tools, 'ev.echo');
    expect(echo.output).toBe(MCP_TEXT_RESULT_SCHEMA);
    expect(await echo.execute({ message: 'hi' }, ctx())).toEqual({
      text: 'Echo: hi',
      content: [{ type: 'text', text: 'Echo: hi' }],
    });
    const image = (await tool(ev.tools, 'ev.get-tiny-image').execute({}, ctx())) as {
      text: string;
      content: { type: string; mimeType?: string }[];
    };
    expect(image.content.map((c) => c.type)).toEqual(['text', 'image', 'text']);
    expect(image.content[1]?.mimeType).toBe('image/png');
    expect(image.text).toBe("Here's the image you requested:\nThe image above is the MCP logo.");
  });

  it('maps a tool with outputSchema to its structuredContent', async () => {
    const t = tool(ev.tools, 'ev.get-structured-content');
    expect(t.output).toMatchObject({
      type: 'object',
      properties: { temperature: { type: 'number' } },
    });
    expect(await t.execute({ location: 'Chicago' }, ctx())).toEqual({
      temperature: 36,
      conditions: 'Light rain / drizzle',
      humidity: 82,
    });
  });

  it('leaves out tools that require task-based execution, and says so in status', () => {
    expect(ev.tools.map((t) => t.name)).not.toContain('ev.simulate-research-query');
    expect(ev.status().skippedTools).toEqual([
      { name: 'simulate-research-query', reason: 'requires task-based execution' },
    ]);
  });

  it('cancels a long-running call when its signal aborts, with the abort reason, and stays usable', async () => {
    const controller = new AbortController();
    const call = tool(ev.tools, 'ev.trigger-long-running-operation').execute(
      { duration: 30, steps: 30 },
      ctx(controller.signal),
    );
    setTimeout(() => controller.abort(new Error('caller gave up')), 100);
    const error = await rejection(call);
    expect((error as Error).message).toBe('caller gave up');
    expect(await tool(ev.tools, 'ev.echo').execute({ message: 'still here' }, ctx())).toMatchObject(
      { text: 'Echo: still here' },
    );
  });

  it('reports a killed upstream as UPSTREAM_UNAVAILABLE, then reconnects on a later call', async () => {
    const pid = ev.status().pid ?? 0;
    const call = tool(ev.tools, 'ev.trigger-long-running-operation').execute(
      { duration: 30, steps: 30 },
      ctx(),
    );
    await new Promise((r) => setTimeout(r, 100));
    process.kill(pid, 'SIGKILL');
    const error = await rejection(call);
    expect(isIsocodeError(error) && error.code).toBe('UPSTREAM_UNAVAILABLE');
    expect((error as Error).message).toBe(
      'upstream MCP server "ev" is not reachable: the server process exited',
    );
    expect(ev.status()).toMatchObject({
      state: 'disconnected',
      consecutiveFailures: 1,
      lastError: 'the server process exited',
    });
    await until(() => !alive(pid), 'the killed server to be reaped');

    expect(await tool(ev.tools, 'ev.echo').execute({ message: 'back' }, ctx())).toMatchObject({
      text: 'Echo: back',
    });
    const status = ev.status();
    expect(status).toMatchObject({ state: 'connected', reconnects: 1, consecutiveFailures: 0 });
    expect(status.pid).not.toBe(pid);
    expect(alive(status.pid ?? 0)).toBe(true);
  });
});

describe('mcpTools: failing upstreams', () => {
  it('fails the first connection with UPSTREAM_UNAVAILABLE for a command that does not exist', async () => {
    const error = await rejection(
      mcpTools({ name: 'nope', mcp: { command: '/nonexistent/isocode-no-such-server' } }),
    );
    expect(isIsocodeError(error) && error.code).toBe('UPSTREAM_UNAVAILABLE');
    expect((error as Error).message).toMatch(
      /^upstream MCP server "nope" is not reachable: .*ENOENT/,
    );
  });

  it('includes the stderr tail when a server exits during the handshake', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'isocode-crash-'));
    const script = join(dir, 'crash.mjs');
    await writeFile(script, 'console.error("fatal: missing API key"); process.exit(3);\n');
    const error = await rejection(
      mcpTools({ name: 'crash', mcp: { command: node, args: [script] } }),
    );
    expect(isIsocodeError(error) && error.code).toBe('UPSTREAM_UNAVAILABLE');
    expect((error as Error).message).toContain('fatal: missing API key');
    await rm(dir, { recursive: true, force: true });
  });

  it('rejects an invalid namespace', async () => {
    const error = await rejection(mcpTools({ name: 'bad name', mcp: { command: node } }));
    expect(isIsocodeError(error) && error.code).toBe('INVALID_CONFIG');
  });
});
