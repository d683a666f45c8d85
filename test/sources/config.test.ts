import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isIsocodeError } from '../../src/index.js';
import { loadConfig, parseConfig, resolveApiKeys } from '../../src/sources/index.js';

const base = resolve('/srv/app');

function configError(fn: () => unknown): {
  message: string;
  details: Record<string, unknown> | undefined;
} {
  try {
    fn();
  } catch (error) {
    if (isIsocodeError(error) && error.code === 'INVALID_CONFIG')
      return { message: error.message, details: error.details };
    throw error;
  }
  throw new Error('expected INVALID_CONFIG');
}

async function asyncConfigError(p: Promise<unknown>): Promise<string> {
  const error: unknown = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (isIsocodeError(error) && error.code === 'INVALID_CONFIG') return error.message;
  throw new Error(`expected INVALID_CONFIG, got ${String(error)}`);
}

describe('parseConfig', () => {
  it('reads inferOutputs (true: a directory under the config) and discovery', () => {
    const c = parseConfig(
      { inferOutputs: true, discovery: { mode: 'always', thresholdTokens: 100 } },
      base,
    );
    expect(c.inferOutputs).toEqual({ dir: join(base, '.isocode/inferred') });
    expect(c.discovery).toEqual({ mode: 'always', thresholdTokens: 100 });
    expect(parseConfig({ inferOutputs: { dir: 'x' } }, base).inferOutputs).toEqual({
      dir: join(base, 'x'),
    });
    expect(() => parseConfig({ discovery: { mode: 'sometimes' } }, base)).toThrow();
  });

  it('fills defaults for an empty config: the demo source and a code-mode default scope', () => {
    const c = parseConfig({}, base);
    expect(c).toEqual({
      configPath: undefined,
      baseDir: base,
      sources: [{ kind: 'builtin', builtin: 'demo' }],
      defaultScope: 'default',
      scopes: {
        default: {
          parent: undefined,
          allow: undefined,
          deny: undefined,
          mode: 'code',
          limits: undefined,
        },
      },
      limits: {},
      inferOutputs: false,
      discovery: {},
      typecheck: 'error',
      sandbox: 'process',
      wall: 'auto',
      workers: {},
      admission: {},
      maxParallelSubCalls: 10,
      defaultTimeoutMs: 60000,
      audit: undefined,
      mcp: { elicitation: true },
      server: { host: '127.0.0.1', port: 8787, apiKeys: [], maxBodyBytes: 1048576 },
    });
  });

  it('reads the sandbox, workers and admission keys, and names a bad one by its path', () => {
    const c = parseConfig(
      {
        sandbox: 'in-process',
        workers: { maxWorkers: 2, rssBudgetMb: 128 },
        admission: { maxConcurrentRunsPerScope: 1, maxQueueWaitMs: 500 },
        limits: { maxQueuedCalls: 8, maxQueuedBytes: 4096 },
      },
      base,
    );
    expect(c.sandbox).toBe('in-process');
    expect(c.workers).toEqual({ maxWorkers: 2, rssBudgetMb: 128 });
    expect(c.admission).toEqual({ maxConcurrentRunsPerScope: 1, maxQueueWaitMs: 500 });
    expect(c.limits).toEqual({ maxQueuedCalls: 8, maxQueuedBytes: 4096 });
    expect(() => parseConfig({ workers: { rssBudgetMb: 8 } }, base)).toThrow(
      /workers\.rssBudgetMb/,
    );
    expect(() => parseConfig({ admission: { maxWorkers: 1 } }, base)).toThrow(/admission/);
    expect(() => parseConfig({ sandbox: 'thread' }, base)).toThrow(/sandbox/);
  });

  it('reads mcp.elicitation (default true) and names a bad value by its path', () => {
    expect(parseConfig({}, base).mcp).toEqual({ elicitation: true });
    expect(parseConfig({ mcp: {} }, base).mcp).toEqual({ elicitation: true });
    expect(parseConfig({ mcp: { elicitation: false } }, base).mcp).toEqual({ elicitation: false });
    expect(() => parseConfig({ mcp: { elicitation: 'no' } }, base)).toThrow(/mcp\.elicitation/);
    expect(() => parseConfig({ mcp: { elicit: false } }, base)).toThrow(/mcp/);
  });

  it('parses the full example and resolves relative paths against the base directory', () => {
    const c = parseConfig(
      {
        $schema: './isocode.schema.json',
        sources: [
          { builtin: 'demo' },
          { module: './tools.mjs' },
          {
            name: 'fs',
            mcp: {
              command: 'npx',
              args: ['-y', '@modelcontextprotocol/server-filesystem', '/tmp/x'],
              env: {},
              cwd: '.',
            },
          },
          {
            name: 'mem',
            mcp: { url: 'http://127.0.0.1:3000/mcp', headers: { Authorization: 'Bearer x' } },
            timeoutMs: 5000,
          },
          {
            name: 'local',
            mcp: {
              command: './bin/server.js',
              cwd: 'work',
              stderr: 'inherit',
              env: { GITHUB_TOKEN: '${GITHUB_TOKEN}' },
            },
          },
        ],
        defaultScope: 'default',
        scopes: {
          default: { mode: 'code' },
          'tenant-a': {
            parent: 'default',
            allow: ['fs.*'],
            deny: ['fs.write_file'],
            ask: ['fs.move_*'],
            mode: 'code',
          },
          'tenant-b': { parent: 'tenant-a' },
        },
        limits: {
          memoryMb: 64,
          cpuMs: 5000,
          wallMs: 30000,
          maxLogBytes: 65536,
          maxResultBytes: 1048576,
          maxCalls: 1000,
          maxCallsInFlight: 32,
        },
        typecheck: 'warn',
        maxParallelSubCalls: 4,
        defaultTimeoutMs: 1000,
        audit: { path: './isocode-audit.jsonl' },
        server: {
          host: '0.0.0.0',
          port: 9000,
          apiKeys: [
            { key: 'secret-a', scope: 'tenant-a' },
            { keyEnv: 'ISOCODE_KEY_B', scope: 'default' },
          ],
          maxBodyBytes: 4096,
        },
      },
      base,
    );
    expect(c.sources).toEqual([
      { kind: 'builtin', builtin: 'demo' },
      { kind: 'module', module: join(base, 'tools.mjs'), name: 'tools.mjs' },
      {
        kind: 'mcp',
        name: 'fs',
        timeoutMs: undefined,
        connectTimeoutMs: 30000,
        mcp: {
          command: 'npx',
          args: ['-y', '@modelcontextprotocol/server-filesystem', '/tmp/x'],
          env: {},
          inheritEnv: [],
          cwd: base,
          stderr: 'capture',
        },
      },
      {
        kind: 'mcp',
        name: 'mem',
        timeoutMs: 5000,
        connectTimeoutMs: 30000,
        mcp: {
          url: 'http://127.0.0.1:3000/mcp',
          headers: { Authorization: 'Bearer x' },
        },
      },
      {
        kind: 'mcp',
        name: 'local',
        timeoutMs: undefined,
        connectTimeoutMs: 30000,
        mcp: {
          command: join(base, 'bin/server.js'),
          args: [],
          env: { GITHUB_TOKEN: '${GITHUB_TOKEN}' },
          inheritEnv: [],
          cwd: join(base, 'work'),
          stderr: 'inherit',
        },
      },
    ]);
    expect(c.scopes['tenant-a']).toEqual({
      parent: 'default',
      allow: ['fs.*'],
      deny: ['fs.write_file'],
      ask: ['fs.move_*'],
      mode: 'code',
      limits: undefined,
    });
    // a child scope without a mode inherits (left undefined); only root scopes default to "code"
    expect(c.scopes['tenant-b']?.mode).toBeUndefined();
    expect(c.audit).toEqual({ path: join(base, 'isocode-audit.jsonl') });
    expect(c.typecheck).toBe('warn');
    expect(c.server.apiKeys).toEqual([
      { key: 'secret-a', scope: 'tenant-a' },
      { keyEnv: 'ISOCODE_KEY_B', scope: 'default' },
    ]);
    expect(c.limits.memoryMb).toBe(64);
  });

  it('keeps an explicitly empty source list empty', () => {
    expect(parseConfig({ sources: [] }, base).sources).toEqual([]);
  });

  it('a scope set without the default scope must name its defaultScope', () => {
    expect(configError(() => parseConfig({ scopes: { a: {} } }, base)).message).toContain(
      'defaultScope: unknown scope "default" (not in scopes)',
    );
    expect(parseConfig({ scopes: { a: {} }, defaultScope: 'a' }, base).scopes.a?.mode).toBe('code');
  });

  const bad: [string, unknown, string][] = [
    ['a non-object', [], '(top level): expected an object'],
    ['an unknown top-level key', { sourcs: [] }, 'sourcs: unknown key'],
    [
      'a wrong command type',
      { sources: [{ builtin: 'demo' }, { name: 'fs', mcp: { command: 42 } }] },
      'sources[1].mcp.command: expected string, received number',
    ],
    [
      'an unknown mcp key',
      { sources: [{ name: 'fs', mcp: { command: 'x', argv: [] } }] },
      'sources[0].mcp.argv: unknown key',
    ],
    [
      'an unknown source key',
      { sources: [{ module: './a.mjs', export: 'x' }] },
      'sources[0].export: unknown key',
    ],
    [
      'a source of no kind',
      { sources: [{ name: 'x' }] },
      'sources[0]: expected one of the keys "builtin", "module", "mcp" or "openapi"',
    ],
    [
      'a source of two kinds',
      { sources: [{ builtin: 'demo', module: './a.mjs' }] },
      'sources[0]: expected only one of the keys "builtin", "module", "mcp" or "openapi", got "builtin" and "module"',
    ],
    ['a source that is not an object', { sources: ['demo'] }, 'sources[0]: expected an object'],
    [
      'an unknown builtin',
      { sources: [{ builtin: 'kitchen-sink' }] },
      'sources[0].builtin: expected "demo"',
    ],
    [
      'an mcp source without a name',
      { sources: [{ mcp: { command: 'x' } }] },
      'sources[0].name: expected string, received undefined',
    ],
    [
      'a bad source name',
      { sources: [{ name: 'my.fs', mcp: { command: 'x' } }] },
      'sources[0].name: expected a source name',
    ],
    [
      'an mcp of neither transport',
      { sources: [{ name: 'a', mcp: { args: [] } }] },
      'sources[0].mcp: expected "command" (stdio) or "url" (streamable HTTP)',
    ],
    [
      'an mcp of both transports',
      { sources: [{ name: 'a', mcp: { command: 'x', url: 'http://x' } }] },
      'sources[0].mcp: expected either "command" (stdio) or "url" (HTTP), not both',
    ],
    [
      'a non-http url',
      { sources: [{ name: 'a', mcp: { url: 'ftp://x/mcp' } }] },
      'sources[0].mcp.url: expected an http: or https: URL',
    ],
    [
      'a bad env value',
      { sources: [{ name: 'a', mcp: { command: 'x', env: { A: 1 } } }] },
      'sources[0].mcp.env.A: expected string, received number',
    ],
    [
      'a bad stderr mode',
      { sources: [{ name: 'a', mcp: { command: 'x', stderr: 'pipe' } }] },
      'sources[0].mcp.stderr: expected one of',
    ],
    [
      'duplicate source names',
      {
        sources: [
          { name: 'a', mcp: { command: 'x' } },
          { name: 'a', mcp: { url: 'http://h/mcp' } },
        ],
      },
      'sources[1].name: duplicate source name "a" (also sources[0])',
    ],
    ['a negative limit', { limits: { memoryMb: -1 } }, 'limits.memoryMb: Too small'],
    ['a fractional limit', { limits: { cpuMs: 1.5 } }, 'limits.cpuMs: expected int'],
    ['an unknown limit', { limits: { memory: 64 } }, 'limits.memory: unknown key'],
    [
      'a bad typecheck mode',
      { typecheck: 'strict' },
      'typecheck: expected one of "error"|"warn"|"off"',
    ],
    [
      'a bad scope mode',
      { scopes: { default: { mode: 'hybrid' } } },
      'scopes.default.mode: expected one of "native"|"code"|"both"',
    ],
    [
      'an unknown scope key',
      { scopes: { default: { tools: [] } } },
      'scopes.default.tools: unknown key',
    ],
    [
      'a bad allow pattern',
      { scopes: { default: { allow: ['fs/*'] } } },
      'scopes.default.allow[0]: expected a tool-name pattern',
    ],
    [
      'a bad ask pattern',
      { scopes: { default: { ask: ['kv delete'] } } },
      'scopes.default.ask[0]: expected a tool-name pattern',
    ],
    [
      'an unknown parent',
      { scopes: { default: {}, 'tenant-a': { parent: 'nope' } } },
      'scopes["tenant-a"].parent: unknown scope "nope"',
    ],
    [
      'a parent cycle',
      { scopes: { default: {}, a: { parent: 'b' }, b: { parent: 'a' } } },
      'scopes.a.parent: cycle: a -> b -> a',
    ],
    ['a bad scope name', { scopes: { default: {}, '-x': {} } }, 'scopes["-x"]: invalid scope name'],
    [
      'an api key with an unknown scope',
      { server: { apiKeys: [{ key: 'k', scope: 'other' }] } },
      'server.apiKeys[0].scope: unknown scope "other"',
    ],
    [
      'an api key with key and keyEnv',
      { server: { apiKeys: [{ key: 'k', keyEnv: 'K', scope: 'default' }] } },
      'server.apiKeys[0]: expected exactly one of "key" or "keyEnv"',
    ],
    [
      'duplicate api keys',
      {
        server: {
          apiKeys: [
            { key: 'k', scope: 'default' },
            { key: 'k', scope: 'default' },
          ],
        },
      },
      'server.apiKeys[1].key: duplicate key',
    ],
    [
      'duplicate api key names',
      {
        server: {
          apiKeys: [
            { key: 'k1', scope: 'default', name: 'alice' },
            { keyEnv: 'K2', scope: 'default', name: 'alice' },
          ],
        },
      },
      'server.apiKeys[1].name: duplicate key name',
    ],
    [
      'a bad api key name',
      { server: { apiKeys: [{ key: 'k', scope: 'default', name: 'http:x y' }] } },
      'server.apiKeys[0].name: a key name is 1 to 64',
    ],
    ['a bad port', { server: { port: 70000 } }, 'server.port: Too big'],
    ['a bad audit', { audit: { file: 'x' } }, 'audit.file: unknown key'],
  ];
  it.each(bad)('names the key path of %s', (_what, json, expected) => {
    const { message } = configError(() => parseConfig(json, base));
    expect(message).toContain(expected);
  });

  it('lists several problems at once, each with its path, and keeps them all in details', () => {
    const { message, details } = configError(() =>
      parseConfig(
        {
          typecheck: 'nope',
          sources: [{ name: 'a', mcp: { command: 1 } }, { builtin: 'x' }],
          limits: { wallMs: 0 },
        },
        base,
      ),
    );
    expect(message).toMatch(/^invalid config: /);
    for (const p of [
      'typecheck:',
      'sources[0].mcp.command:',
      'sources[1].builtin:',
      'limits.wallMs:',
    ])
      expect(message).toContain(p);
    expect(details?.issues).toHaveLength(4);
  });
});

describe('loadConfig', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'isocode-config-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('returns the default config when there is no isocode.config.json in the directory', async () => {
    const empty = await mkdtemp(join(dir, 'empty-'));
    const c = await loadConfig(undefined, { cwd: empty });
    expect(c.configPath).toBeUndefined();
    expect(c.baseDir).toBe(empty);
    expect(c.sources).toEqual([{ kind: 'builtin', builtin: 'demo' }]);
  });

  it('reads ./isocode.config.json by default, with comments and trailing commas, resolving paths against its directory', async () => {
    const project = join(dir, 'project');
    await mkdir(project);
    await writeFile(
      join(project, 'isocode.config.json'),
      `// my config\n{\n  "sources": [\n    { "module": "./tools.mjs" }, /* local tools */\n    { "name": "fs", "mcp": { "command": "node", "args": ["server.js"], }, },\n  ],\n  "typecheck": "off", // no checks\n  "audit": { "path": "logs/a.jsonl" },\n}\n`,
    );
    const c = await loadConfig(undefined, { cwd: project });
    expect(c.configPath).toBe(join(project, 'isocode.config.json'));
    expect(c.sources[0]).toEqual({
      kind: 'module',
      module: join(project, 'tools.mjs'),
      name: 'tools.mjs',
    });
    expect(c.sources[1]).toMatchObject({ kind: 'mcp', mcp: { command: 'node', cwd: project } });
    expect(c.audit?.path).toBe(join(project, 'logs', 'a.jsonl'));
    expect(c.typecheck).toBe('off');
  });

  it('leaves comment and comma look-alikes inside strings alone', async () => {
    const file = join(dir, 'strings.jsonc');
    await writeFile(
      file,
      '{ "sources": [ { "name": "web", "mcp": { "url": "http://h:1/mcp", "headers": { "X-A": "a // b /* c */ d,]", "X-B": "q\\"// ,}" } } } ] }',
    );
    const c = await loadConfig(file);
    expect(c.sources[0]).toMatchObject({
      mcp: { url: 'http://h:1/mcp', headers: { 'X-A': 'a // b /* c */ d,]', 'X-B': 'q"// ,}' } },
    });
  });

  it('resolves paths against the file, not the working directory, for an explicit path', async () => {
    const sub = join(dir, 'sub');
    await mkdir(sub);
    await writeFile(
      join(sub, 'custom.json'),
      JSON.stringify({ sources: [{ module: 'lib/tools.ts' }] }),
    );
    const c = await loadConfig('sub/custom.json', { cwd: dir });
    expect(c.sources).toEqual([
      { kind: 'module', module: join(sub, 'lib', 'tools.ts'), name: 'tools.ts' },
    ]);
  });

  it('fails for an explicit path that does not exist', async () => {
    expect(await asyncConfigError(loadConfig(join(dir, 'missing.json')))).toBe(
      `cannot read config ${join(dir, 'missing.json')}: file not found`,
    );
  });

  it('reports a JSON syntax error with the file, line and column', async () => {
    const file = join(dir, 'broken.json');
    await writeFile(file, '{\n  "typecheck": "warn"\n  "sources": []\n}\n');
    expect(await asyncConfigError(loadConfig(file))).toMatch(
      new RegExp(`^invalid JSON in config ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:3:3: `),
    );
  });

  it('names the file and the bad key path', async () => {
    const file = join(dir, 'badkey.json');
    await writeFile(
      file,
      JSON.stringify({ sources: [{ builtin: 'demo' }, { name: 'fs', mcp: { command: ['npx'] } }] }),
    );
    expect(await asyncConfigError(loadConfig(file))).toBe(
      `invalid config ${file}: sources[1].mcp.command: expected string, received array`,
    );
  });
});

describe('resolveApiKeys', () => {
  it('reads keyEnv entries from the environment and names an unset one', () => {
    const c = parseConfig(
      {
        server: {
          apiKeys: [
            { key: 'lit', scope: 'default' },
            { keyEnv: 'MY_KEY', scope: 'default', name: 'deploy-bot' },
          ],
        },
      },
      base,
    );
    expect(resolveApiKeys(c, { MY_KEY: 'from-env' })).toEqual([
      { key: 'lit', scope: 'default' },
      { key: 'from-env', scope: 'default', name: 'deploy-bot' },
    ]);
    expect(configError(() => resolveApiKeys(c, {})).message).toBe(
      'invalid config: server.apiKeys[1].keyEnv: environment variable MY_KEY is not set',
    );
  });
});
