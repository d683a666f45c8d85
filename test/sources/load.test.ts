import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isIsocodeError } from '../../src/index.js';
import { loadModuleTools, loadSources, parseConfig } from '../../src/sources/index.js';
import { alive, ctx, rejection, serverScript, tool } from './helpers.js';
import { childPids } from '../support/children.js';

const fixtures = fileURLToPath(new URL('../fixtures/tools/', import.meta.url));
const node = process.execPath;

/** Pids of this process's live children whose command line contains `match`. */
const children = (match: string): number[] => childPids(match).filter((pid) => alive(pid));

async function failure(p: Promise<unknown>): Promise<{ code: string; message: string }> {
  const error = await rejection(p);
  if (!isIsocodeError(error)) throw error;
  return { code: error.code, message: error.message };
}

describe('loadModuleTools', () => {
  it('loads a default export of plain objects from an .mjs file', async () => {
    const tools = await loadModuleTools(join(fixtures, 'plain-tools.mjs'));
    expect(tools.map((t) => t.name)).toEqual(['fixture.add']);
    expect(await tool(tools, 'fixture.add').execute({ a: 2, b: 3 }, ctx())).toEqual({ sum: 5 });
  });

  it('loads a named tools export from a .ts file (through tsx)', async () => {
    const tools = await loadModuleTools(join(fixtures, 'named-tools.ts'));
    expect(await tool(tools, 'fixture.greet').execute({ name: 'Ada' }, ctx())).toEqual({
      greeting: 'Hello, Ada!',
    });
  });

  it('loads module.exports.tools from a .cjs file', async () => {
    const tools = await loadModuleTools(join(fixtures, 'cjs-tools.cjs'));
    expect(tools.map((t) => t.name)).toEqual(['fixture.cjs']);
  });

  it('names the file and index of a malformed tool', async () => {
    const file = join(fixtures, 'bad-execute.mjs');
    expect(await failure(loadModuleTools(file))).toEqual({
      code: 'INVALID_TOOL_DEFINITION',
      message: `tools module ${file}, default export[1]: (fixture.broken) .execute: expected a function`,
    });
    const named = join(fixtures, 'bad-name.mjs');
    expect(await failure(loadModuleTools(named))).toEqual({
      code: 'INVALID_TOOL_DEFINITION',
      message: `tools module ${named}, export "tools"[0]: .name: expected a tool name of 1-64 letters, digits, "_", "." or "-", got "has space"`,
    });
  });

  it('fails with INVALID_CONFIG for a module without a tools array, one that throws, a missing file, and an unknown extension', async () => {
    expect(await failure(loadModuleTools(join(fixtures, 'no-tools.mjs')))).toMatchObject({
      code: 'INVALID_CONFIG',
      message: expect.stringContaining('exports no tools') as unknown,
    });
    expect(await failure(loadModuleTools(join(fixtures, 'throws.mjs')))).toMatchObject({
      code: 'INVALID_CONFIG',
      message: expect.stringContaining('boom at import') as unknown,
    });
    expect(await failure(loadModuleTools(join(fixtures, 'missing.mjs')))).toEqual({
      code: 'INVALID_CONFIG',
      message: `tools module not found: ${join(fixtures, 'missing.mjs')}`,
    });
    expect(await failure(loadModuleTools(join(fixtures, 'tools.json')))).toMatchObject({
      code: 'INVALID_CONFIG',
      message: expect.stringContaining('unsupported extension ".json"') as unknown,
    });
  });
});

describe('loadSources', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'isocode-load-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('loads the demo when the config names no sources', async () => {
    const loaded = await loadSources(parseConfig({}, dir));
    expect(loaded.tools.map((t) => t.name)).toContain('kv.get');
    expect(loaded.sources).toEqual([{ kind: 'builtin', name: 'demo', toolCount: 8 }]);
    await loaded.close();
  });

  it('loads demo, modules and an MCP server together, in config order, and closes the server', async () => {
    const config = parseConfig(
      {
        sources: [
          { builtin: 'demo' },
          { module: './plain-tools.mjs' },
          { module: './named-tools.ts', name: 'greeter' },
          {
            name: 'mem',
            mcp: {
              command: node,
              args: [serverScript('memory')],
              env: { MEMORY_FILE_PATH: '${ISOCODE_TEST_MEM}' },
            },
          },
        ],
      },
      fixtures,
    );
    const memFile = join(dir, 'mem.jsonl');
    const loaded = await loadSources(config, { env: { ISOCODE_TEST_MEM: memFile } });
    const names = loaded.tools.map((t) => t.name);
    expect(names.slice(0, 10)).toEqual([
      'kv.get',
      'kv.set',
      'kv.delete',
      'kv.list',
      'text.word_count',
      'text.transform',
      'text.split_lines',
      'text.search',
      'fixture.add',
      'fixture.greet',
    ]);
    expect(names).toContain('mem.create_entities');
    expect(loaded.status().map((s) => [s.kind, s.name])).toEqual([
      ['builtin', 'demo'],
      ['module', 'plain-tools.mjs'],
      ['module', 'greeter'],
      ['mcp', 'mem'],
    ]);
    // ${VAR} in mcp.env reached the child
    await tool(loaded.tools, 'mem.create_entities').execute(
      { entities: [{ name: 'X', entityType: 't', observations: [] }] },
      ctx(),
    );
    expect(await readFile(memFile, 'utf8')).toContain('"X"');
    const mcpStatus = loaded.sources[3];
    const pid = mcpStatus?.kind === 'mcp' ? (mcpStatus.pid ?? 0) : 0;
    expect(alive(pid)).toBe(true);
    expect(children('server-memory')).toContain(pid); // the helper the failure test relies on sees it
    await loaded.close();
    expect(alive(pid)).toBe(false);
  });

  it('fails naming the source when one MCP server is unreachable, and closes the ones that connected', async () => {
    const config = parseConfig(
      {
        sources: [
          {
            name: 'mem',
            mcp: {
              command: node,
              args: [serverScript('memory')],
              env: { MEMORY_FILE_PATH: join(dir, 'm2.jsonl') },
            },
          },
          { name: 'gone', mcp: { command: '/nonexistent/isocode-server' } },
        ],
      },
      dir,
    );
    const before = children('server-memory');
    const error = await failure(loadSources(config));
    expect(error.code).toBe('UPSTREAM_UNAVAILABLE');
    expect(error.message).toMatch(
      /^sources\[1\] \(mcp "gone"\): upstream MCP server "gone" is not reachable: /,
    );
    expect(children('server-memory')).toEqual(before);
  });

  it('names the source and the variable when ${VAR} is unset', async () => {
    const config = parseConfig(
      {
        sources: [
          {
            name: 'web',
            mcp: {
              url: 'http://127.0.0.1:9/mcp',
              headers: { Authorization: 'Bearer ${ISOCODE_NO_SUCH_VAR}' },
            },
          },
        ],
      },
      dir,
    );
    expect(await failure(loadSources(config, { env: {} }))).toEqual({
      code: 'INVALID_CONFIG',
      message:
        'sources[0] (mcp "web"): mcp.headers.Authorization: environment variable ISOCODE_NO_SUCH_VAR is not set',
    });
  });

  it('names both sources when two offer the same tool name', async () => {
    const config = parseConfig(
      { sources: [{ builtin: 'demo' }, { module: './clash.mjs' }] },
      fixtures,
    );
    expect(await failure(loadSources(config))).toEqual({
      code: 'INVALID_CONFIG',
      message: `sources[1] (module ${join(fixtures, 'clash.mjs')}): tool "kv.get" is also offered by sources[0] (builtin "demo")`,
    });
  });

  it('keeps the code of a module failure and names the source', async () => {
    const config = parseConfig({ sources: [{ module: './bad-execute.mjs' }] }, fixtures);
    const error = await failure(loadSources(config));
    expect(error.code).toBe('INVALID_TOOL_DEFINITION');
    expect(
      error.message.startsWith(
        `sources[0] (module ${join(fixtures, 'bad-execute.mjs')}): tools module `,
      ),
    ).toBe(true);
  });

  it('gives every load its own demo store', async () => {
    const a = await loadSources(parseConfig({}, dir));
    const b = await loadSources(parseConfig({}, dir));
    await tool(a.tools, 'kv.set').execute({ key: 'k', value: 1 }, ctx());
    expect(await tool(b.tools, 'kv.get').execute({ key: 'k' }, ctx())).toMatchObject({
      found: false,
    });
  });
});

describe('the examples', () => {
  it('examples/isocode.config.json loads the demo and examples/tools.mjs, whose tools work', async () => {
    const { loadConfig } = await import('../../src/sources/index.js');
    const config = await loadConfig(
      fileURLToPath(new URL('../../examples/isocode.config.json', import.meta.url)),
    );
    const loaded = await loadSources(config);
    const names = loaded.tools.map((t) => t.name);
    expect(names).toEqual(
      expect.arrayContaining([
        'kv.get',
        'text.search',
        'weather.lookup',
        'weather.cities',
        'units.convert_temperature',
      ]),
    );
    expect(
      await tool(loaded.tools, 'weather.lookup').execute({ city: 'tokyo', unit: 'F' }, ctx()),
    ).toEqual({
      city: 'Tokyo',
      country: 'JP',
      temperature: 75,
      unit: 'F',
      conditions: 'sunny',
      humidity: 60,
    });
    expect(
      await tool(loaded.tools, 'units.convert_temperature').execute(
        { value: 100, from: 'C', to: 'K' },
        ctx(),
      ),
    ).toEqual({ value: 373.15, unit: 'K' });
    expect(() => tool(loaded.tools, 'weather.lookup').execute({ city: 'Atlantis' }, ctx())).toThrow(
      /no weather for "Atlantis"/,
    );
    await loaded.close();
  });
});
