/**
 * End to end over HTTP with real upstream MCP servers: a config with two stdio sources
 * (@modelcontextprotocol/server-filesystem on a temp dir, @modelcontextprotocol/server-memory),
 * opened with openRuntime, served with startHttpServer, driven with fetch.
 */
import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunCodeValue, ToolResult } from '../../src/index.js';
import { httpOptionsFromConfig, startHttpServer, type HttpServer } from '../../src/server/index.js';
import { openRuntime, type OpenedRuntime } from '../../src/sources/open.js';
import { serverScript } from '../sources/helpers.js';
import { jsonHeaders, parseSse } from './fixtures.js';

const KEY = 'e2e-key-5f0c1d7a9b3e4c2d';
let tmp: string;
let files: string;
let opened: OpenedRuntime;
let server: HttpServer;

const run = async (code: string, headers: Record<string, string> = {}): Promise<Response> =>
  fetch(`${server.url}/v1/run`, {
    method: 'POST',
    headers: { ...jsonHeaders(KEY), ...headers },
    body: JSON.stringify({ code, description: 'e2e' }),
  });
const value = (r: ToolResult): RunCodeValue => {
  if (!r.ok) throw new Error(`run failed: ${r.error.code} ${r.error.message}`);
  return r.value as unknown as RunCodeValue;
};

beforeAll(async () => {
  tmp = await realpath(await mkdtemp(join(tmpdir(), 'isocode-http-e2e-')));
  files = join(tmp, 'files');
  await mkdir(files);
  await writeFile(join(files, 'alpha.md'), 'Alpha notes\nThe first file.\n');
  await writeFile(join(files, 'beta.md'), 'Beta notes\nThe second file, a little longer.\n');
  const config = {
    sources: [
      { name: 'fs', mcp: { command: process.execPath, args: [serverScript('filesystem'), files] } },
      {
        name: 'mem',
        mcp: {
          command: process.execPath,
          args: [serverScript('memory')],
          env: { MEMORY_FILE_PATH: join(tmp, 'memory.jsonl') },
        },
      },
    ],
    scopes: { default: { mode: 'code' } },
    server: { port: 0, apiKeys: [{ keyEnv: 'ISOCODE_E2E_KEY', scope: 'default' }] },
  };
  const configPath = join(tmp, 'isocode.config.json');
  await writeFile(configPath, JSON.stringify(config, null, 2));
  opened = await openRuntime({ configPath });
  server = await startHttpServer(httpOptionsFromConfig(opened, { ISOCODE_E2E_KEY: KEY }));
}, 120_000);

afterAll(async () => {
  await server?.close();
  await opened?.close();
  await rm(tmp, { recursive: true, force: true });
});

describe('HTTP end to end with server-filesystem and server-memory', () => {
  it('the SDK over HTTP names both upstreams as namespaces', async () => {
    const res = await fetch(`${server.url}/v1/sdk`, {
      headers: { authorization: `Bearer ${KEY}` },
    });
    const sdk = await res.text();
    expect(sdk).toMatch(/interface Tools \{\s*fs: ToolsFs;\s*mem: ToolsMem;\s*\}/);
    for (const fn of [
      'list_directory(',
      'read_text_file(',
      'write_file(',
      'create_entities(',
      'create_relations(',
      'read_graph(',
    ])
      expect(sdk).toContain(fn);
    const tools = (await (
      await fetch(`${server.url}/v1/tools`, { headers: { authorization: `Bearer ${KEY}` } })
    ).json()) as {
      tools: { name: string }[];
    };
    expect(tools.tools.map((t) => t.name)).toEqual(['run_code']);
  });

  it('a program lists, reads and writes files and builds a knowledge graph; the file lands on disk', async () => {
    const program = `
const dir = ${JSON.stringify(files)};
const listing = (await tools.fs.list_directory({ path: dir })).content;
const names = listing.split('\\n').filter((l) => l.startsWith('[FILE]')).map((l) => l.slice(6).trim()).sort();
const texts = await Promise.all(names.map((n) => tools.fs.read_text_file({ path: dir + '/' + n })));
await tools.mem.create_entities({
  entities: names.map((n, i) => ({ name: n, entityType: 'note', observations: [texts[i]!.content.split('\\n')[0]!] })),
});
await tools.mem.create_relations({ relations: [{ from: names[0]!, to: names[1]!, relationType: 'precedes' }] });
const summary = names.map((n, i) => '- ' + n + ': ' + texts[i]!.content.split('\\n')[0]).join('\\n');
await tools.fs.write_file({ path: dir + '/summary.md', content: '# Notes\\n' + summary + '\\n' });
console.log('indexed', names.length, 'files');
return { names };`;
    const res = await run(program, { accept: 'text/event-stream' });
    expect(res.status).toBe(200);
    const events = parseSse(await res.text());
    const result = events.at(-1)!;
    expect(result.event).toBe('result');
    expect(value(result.data as ToolResult).result).toEqual({ names: ['alpha.md', 'beta.md'] });
    const started = events
      .filter((e) => e.event === 'call-start')
      .map((e) => (e.data as { name: string }).name);
    expect(started).toEqual([
      'fs.list_directory',
      'fs.read_text_file',
      'fs.read_text_file',
      'mem.create_entities',
      'mem.create_relations',
      'fs.write_file',
    ]);
    expect(events.find((e) => e.event === 'log')?.data).toMatchObject({ text: 'indexed 2 files' });

    expect(await readFile(join(files, 'summary.md'), 'utf8')).toBe(
      '# Notes\n- alpha.md: Alpha notes\n- beta.md: Beta notes\n',
    );
  });

  it('a second run reads the graph back', async () => {
    const res = await run(`
const g = await tools.mem.read_graph({});
return {
  entities: g.entities.map((e) => [e.name, e.entityType, e.observations]).sort(),
  relations: g.relations.map((r) => r.from + ' -' + r.relationType + '-> ' + r.to),
};`);
    const v = value((await res.json()) as ToolResult);
    expect(v.result).toEqual({
      entities: [
        ['alpha.md', 'note', ['Alpha notes']],
        ['beta.md', 'note', ['Beta notes']],
      ],
      relations: ['alpha.md -precedes-> beta.md'],
    });
  });

  it('the collapse over HTTP: a direct upstream tool call is UNKNOWN_TOOL and touches nothing', async () => {
    const res = await fetch(`${server.url}/v1/execute`, {
      method: 'POST',
      headers: jsonHeaders(KEY),
      body: JSON.stringify({
        name: 'fs.write_file',
        args: { path: join(files, 'direct.md'), content: 'x' },
      }),
    });
    expect(res.status).toBe(200);
    const r = (await res.json()) as ToolResult;
    expect(!r.ok && r.error.code).toBe('UNKNOWN_TOOL');
    await expect(readFile(join(files, 'direct.md'), 'utf8')).rejects.toMatchObject({
      code: 'ENOENT',
    });
  });

  it('an upstream error reaches the program as a ToolCallError with its code', async () => {
    const res = await run(`
try {
  await tools.fs.read_text_file({ path: '/etc/passwd' });
  return 'read';
} catch (e) {
  return e instanceof ToolCallError ? e.code : String(e);
}`);
    expect(value((await res.json()) as ToolResult).result).toMatch(/^(UPSTREAM_ERROR|TOOL_ERROR)$/);
  });
});
