import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
} from '@modelcontextprotocol/sdk/types.js';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { createRuntime, isIsocodeError } from '../../src/index.js';
import type { ToolDefinition } from '../../src/index.js';
import { assignLocalNames, mcpTools } from '../../src/sources/index.js';
import type { McpSource, McpToolsOptions } from '../../src/sources/index.js';
import { ctx, rejection, tool } from './helpers.js';

interface Upstream {
  tools: Tool[];
  pageSize: number;
  call: (name: string, args: Record<string, unknown>) => CallToolResult | Promise<CallToolResult>;
  servers: Server[];
  /** Transports handed out so far. */
  connections: number;
  /** When set, the next connection attempts fail with this message. */
  refuse: string | undefined;
}

const objectSchema = { type: 'object' as const, properties: {} };

function upstream(
  tools: Tool[],
  call: Upstream['call'] = () => ({ content: [{ type: 'text', text: 'ok' }] }),
): Upstream {
  return { tools, pageSize: 1000, call, servers: [], connections: 0, refuse: undefined };
}

function factory(u: Upstream): McpToolsOptions['mcp'] {
  return {
    transport: () => {
      if (u.refuse !== undefined) throw new Error(u.refuse);
      u.connections++;
      const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
      const server = new Server(
        { name: 'fake', version: '1.2.3' },
        { capabilities: { tools: { listChanged: true } } },
      );
      server.setRequestHandler(ListToolsRequestSchema, (req) => {
        const start = Number(req.params?.cursor ?? 0);
        const next = start + u.pageSize;
        return {
          tools: u.tools.slice(start, next),
          ...(next < u.tools.length ? { nextCursor: String(next) } : {}),
        };
      });
      server.setRequestHandler(CallToolRequestSchema, (req) =>
        u.call(req.params.name, req.params.arguments ?? {}),
      );
      u.servers.push(server);
      void server.connect(serverSide);
      return clientSide;
    },
  };
}

const opened: McpSource[] = [];
async function open(u: Upstream, extra: Partial<McpToolsOptions> = {}): Promise<McpSource> {
  const source = await mcpTools({ name: 'up', mcp: factory(u), ...extra });
  opened.push(source);
  return source;
}
afterEach(async () => {
  await Promise.all(opened.splice(0).map((s) => s.close()));
});

describe('assignLocalNames', () => {
  it('keeps valid names, sanitizes invalid characters, and hashes collisions and overlong names deterministically', () => {
    const long = 'x'.repeat(80);
    const names = ['read_file', 'read file', 'read/file', 'ok.name-1', long, 'ünïcode', ''];
    const map = assignLocalNames('ns', names);
    expect(map.get('read_file')).toBe('ns.read_file'); // unchanged name keeps its plain form in a collision
    expect(map.get('ok.name-1')).toBe('ns.ok.name-1');
    for (const [upstreamName, local] of map) {
      expect(local, upstreamName).toMatch(/^[A-Za-z0-9_.-]{1,64}$/);
      expect(local.startsWith('ns.')).toBe(true);
    }
    expect(map.get('read file')).toMatch(/^ns\.read_file_[0-9a-f]{8}$/);
    expect(map.get('read/file')).toMatch(/^ns\.read_file_[0-9a-f]{8}$/);
    expect(map.get(long)).toHaveLength(64);
    expect(map.get('ünïcode')).toBe('ns._n_code');
    expect(new Set(map.values()).size).toBe(names.length);
    // order does not matter
    expect(assignLocalNames('ns', [...names].reverse())).toEqual(map);
  });

  it('hashes both sides of a collision between two sanitized names', () => {
    const map = assignLocalNames('ns', ['a b', 'a/b']);
    expect(map.get('a b')).not.toBe(map.get('a/b'));
    expect(map.get('a b')).toMatch(/^ns\.a_b_[0-9a-f]{8}$/);
  });
});

describe('mcpTools with an in-process upstream', () => {
  it('follows tools/list pagination cursors', async () => {
    const u = upstream(
      Array.from({ length: 7 }, (_, i) => ({ name: `t${i}`, inputSchema: objectSchema })),
    );
    u.pageSize = 3;
    const source = await open(u);
    expect(source.tools.map((t) => t.name)).toEqual([
      'up.t0',
      'up.t1',
      'up.t2',
      'up.t3',
      'up.t4',
      'up.t5',
      'up.t6',
    ]);
  });

  it('forwards calls under the upstream name, with the arguments unchanged', async () => {
    const seen: [string, unknown][] = [];
    const u = upstream(
      [{ name: 'do it/now', inputSchema: objectSchema, annotations: { readOnlyHint: true } }],
      (name, args) => {
        seen.push([name, args]);
        return {
          content: [
            { type: 'text', text: 'a' },
            { type: 'text', text: 'b' },
          ],
        };
      },
    );
    const source = await open(u, { timeoutMs: 1234 });
    const [t] = source.tools;
    expect(t?.name).toMatch(/^up\.do_it_now$/);
    expect(t?.isConcurrencySafe).toBe(true);
    expect(t?.timeoutMs).toBe(1234);
    expect(source.upstreamNames.get(t?.name ?? '')).toBe('do it/now');
    expect(await t?.execute({ x: [1, { y: 'z' }] }, ctx())).toEqual({
      text: 'a\nb',
      content: [
        { type: 'text', text: 'a' },
        { type: 'text', text: 'b' },
      ],
    });
    expect(seen).toEqual([['do it/now', { x: [1, { y: 'z' }] }]]);
    expect(source.status().server).toEqual({ name: 'fake', version: '1.2.3' });
  });

  it('passes input and output schemas through unchanged and defaults the description', async () => {
    const inputSchema = {
      type: 'object' as const,
      properties: { q: { type: 'string', minLength: 2 } },
      required: ['q'],
    };
    const outputSchema = {
      type: 'object' as const,
      properties: { n: { type: 'integer' } },
      required: ['n'],
    };
    const source = await open(
      upstream([{ name: 'count', inputSchema, outputSchema }], () => ({
        content: [],
        structuredContent: { n: 3 },
      })),
    );
    const t = tool(source.tools, 'up.count');
    expect(t.input).toEqual(inputSchema);
    expect(t.output).toEqual(outputSchema);
    expect(t.description).toBe('The "count" tool of MCP server "up".');
    expect(await t.execute({ q: 'ab' }, ctx())).toEqual({ n: 3 });
  });

  it('maps audio, resource links and embedded resources into isocode content blocks', async () => {
    const source = await open(
      upstream([{ name: 'mixed', inputSchema: objectSchema }], () => ({
        content: [
          { type: 'audio', data: 'AAAA', mimeType: 'audio/wav' },
          { type: 'resource_link', uri: 'file:///a.txt', name: 'a', mimeType: 'text/plain' },
          { type: 'resource', resource: { uri: 'mem://x', text: 'inline' } },
          {
            type: 'resource',
            resource: { uri: 'mem://bin', blob: 'AAAA', mimeType: 'application/octet-stream' },
          },
        ],
      })),
    );
    expect(await tool(source.tools, 'up.mixed').execute({}, ctx())).toEqual({
      text: '',
      content: [
        {
          type: 'resource',
          resource: { uri: 'data:audio/wav;base64,AAAA', mimeType: 'audio/wav' },
        },
        { type: 'resource', resource: { uri: 'file:///a.txt', mimeType: 'text/plain' } },
        { type: 'resource', resource: { uri: 'mem://x', text: 'inline' } },
        { type: 'resource', resource: { uri: 'mem://bin', mimeType: 'application/octet-stream' } },
      ],
    });
  });

  it('an unknown content kind is a text note; the other blocks of the result are kept', async () => {
    // A raw upstream: the SDK's own server would not send a block of an unknown kind.
    const raw: McpToolsOptions['mcp'] = {
      transport: () => {
        const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
        serverSide.onmessage = (m) => {
          if (!('id' in m) || !('method' in m)) return;
          const reply = (result: unknown): void =>
            void serverSide.send({ jsonrpc: '2.0', id: m.id, result } as never);
          if (m.method === 'initialize')
            reply({
              protocolVersion: (m.params as { protocolVersion: string }).protocolVersion,
              capabilities: { tools: {} },
              serverInfo: { name: 'raw', version: '1' },
            });
          else if (m.method === 'tools/list')
            reply({ tools: [{ name: 'odd', inputSchema: objectSchema }] });
          else if (m.method === 'tools/call')
            reply({
              content: [
                { type: 'weird', stuff: 1 },
                { type: 'text', text: 'ok' },
              ],
            });
        };
        void serverSide.start();
        return clientSide;
      },
    };
    const source = await mcpTools({ name: 'up', mcp: raw });
    opened.push(source);
    expect(await tool(source.tools, 'up.odd').execute({}, ctx())).toEqual({
      text: '[unsupported content block of type "weird"]\nok',
      content: [
        { type: 'text', text: '[unsupported content block of type "weird"]' },
        { type: 'text', text: 'ok' },
      ],
    });
  });

  it('maps isError results to TOOL_ERROR and JSON-RPC errors to UPSTREAM_ERROR with the MCP code', async () => {
    const u = upstream(
      [
        { name: 'fails', inputSchema: objectSchema },
        { name: 'silent', inputSchema: objectSchema },
        { name: 'rejects', inputSchema: objectSchema },
      ],
      (name) => {
        if (name === 'fails')
          return {
            isError: true,
            content: [
              { type: 'text', text: 'disk full' },
              { type: 'text', text: 'try later' },
            ],
          };
        if (name === 'silent') return { isError: true, content: [] };
        throw new McpError(ErrorCode.InvalidParams, 'bad things', { field: 'x' });
      },
    );
    const source = await open(u);
    const failed = await rejection(tool(source.tools, 'up.fails').execute({}, ctx()));
    expect(isIsocodeError(failed) && failed.toJSON()).toEqual({
      code: 'TOOL_ERROR',
      message: 'disk full\ntry later',
      details: { source: 'up', upstreamTool: 'fails' },
    });
    const silent = await rejection(tool(source.tools, 'up.silent').execute({}, ctx()));
    expect(isIsocodeError(silent) && silent.message).toBe(
      'tool "silent" of MCP server "up" failed',
    );
    const rejected = await rejection(tool(source.tools, 'up.rejects').execute({}, ctx()));
    expect(isIsocodeError(rejected) && rejected.code).toBe('UPSTREAM_ERROR');
    expect(isIsocodeError(rejected) && rejected.details).toEqual({
      source: 'up',
      upstreamTool: 'rejects',
      mcpCode: -32602,
      mcpData: { field: 'x' },
    });
    expect((rejected as Error).message).toContain('bad things');
    // the upstream answered: the source stays connected
    expect(source.status()).toMatchObject({ state: 'connected', consecutiveFailures: 0 });
  });

  it('gives UPSTREAM_ERROR when a tool with an outputSchema returns no structuredContent', async () => {
    const source = await open(
      upstream(
        [{ name: 'typed', inputSchema: objectSchema, outputSchema: { type: 'object' } }],
        () => ({ content: [{ type: 'text', text: 'x' }] }),
      ),
    );
    const error = await rejection(tool(source.tools, 'up.typed').execute({}, ctx()));
    expect(isIsocodeError(error) && error.code).toBe('UPSTREAM_ERROR');
  });

  it('checks structured content against the output schema once, in the executor (INVALID_TOOL_OUTPUT)', async () => {
    const outputSchema = {
      type: 'object' as const,
      properties: { n: { type: 'number' } },
      required: ['n'],
    };
    let answer: unknown = { n: 1 };
    const source = await open(
      upstream([{ name: 'typed', inputSchema: objectSchema, outputSchema }], () => ({
        content: [],
        structuredContent: answer as Record<string, unknown>,
      })),
    );
    const rt = await createRuntime({ tools: source.tools, codeMode: false });
    try {
      expect(await rt.execute({ name: 'up.typed', args: {} })).toMatchObject({
        ok: true,
        value: { n: 1 },
      });
      answer = { n: 'one' };
      expect(await rt.execute({ name: 'up.typed', args: {} })).toMatchObject({
        ok: false,
        error: { code: 'INVALID_TOOL_OUTPUT', details: { issues: [{ path: '$.n' }] } },
      });
    } finally {
      await rt.close();
    }
  });

  it('rejects non-object arguments with INVALID_ARGS without calling upstream', async () => {
    let calls = 0;
    const source = await open(
      upstream([{ name: 't', inputSchema: objectSchema }], () => {
        calls++;
        return { content: [] };
      }),
    );
    const error = await rejection(tool(source.tools, 'up.t').execute([1, 2], ctx()));
    expect(isIsocodeError(error) && error.code).toBe('INVALID_ARGS');
    expect(calls).toBe(0);
  });

  it('leaves out a list entry that is not an MCP tool, with why, and serves the others', async () => {
    const odd = [
      { name: 'good', inputSchema: objectSchema },
      { name: 'stringy', inputSchema: { type: 'string' } },
      { name: 'schemaless' },
      { name: 7, inputSchema: objectSchema },
      'not even an object',
      { name: 'x'.repeat(5000), description: 5, inputSchema: objectSchema },
      { name: 'good2', inputSchema: objectSchema },
    ];
    const source = await open(upstream(odd as never));
    expect(source.tools.map((t) => t.name)).toEqual(['up.good', 'up.good2']);
    const skipped = source.status().skippedTools;
    expect(skipped.slice(0, 4)).toEqual([
      {
        name: 'stringy',
        reason: 'not an MCP tool: inputSchema.type: Invalid input: expected "object"',
      },
      {
        name: 'schemaless',
        reason: 'not an MCP tool: inputSchema: Invalid input: expected object, received undefined',
      },
      {
        name: '(entry 4 of the list, no name)',
        reason: 'not an MCP tool: name: Invalid input: expected string, received number',
      },
      {
        name: '(entry 5 of the list, no name)',
        reason: 'not an MCP tool: Invalid input: expected object, received string',
      },
    ]);
    // An upstream's long name is kept only in part.
    expect(skipped[4]?.name.length).toBeLessThanOrEqual(128);
    expect(skipped[4]?.reason).toMatch(/^not an MCP tool: description: /);
  });

  it('leaves out a tool whose schema cannot be compiled, with why, and serves the others', async () => {
    let deep: Record<string, unknown> = { type: 'string' };
    for (let i = 0; i < 20_000; i++) deep = { type: 'object', properties: { a: deep } };
    // An in-process upstream can share parts: 40 levels, each naming the next twice (2^40 as JSON).
    let shared: Record<string, unknown> = { type: 'string' };
    for (let i = 0; i < 40; i++) shared = { type: 'object', properties: { a: shared, b: shared } };
    const u = upstream([
      { name: 'good', inputSchema: { type: 'object', properties: { q: { type: 'string' } } } },
      // A Python named group: valid for the server's own validator, not for JavaScript's.
      {
        name: 'pyregex',
        inputSchema: { type: 'object', properties: { q: { type: 'string', pattern: '(?P<q>x)' } } },
      },
      {
        name: 'nowhere',
        inputSchema: { type: 'object', properties: { q: { $ref: '#/$defs/q' } } },
      },
      {
        name: 'badout',
        inputSchema: objectSchema,
        outputSchema: { type: 'object', properties: { n: { type: 'numbr' } } },
      },
      { name: 'deep', inputSchema: deep as Tool['inputSchema'] },
      { name: 'shared', inputSchema: shared as Tool['inputSchema'] },
      { name: 'good2', inputSchema: objectSchema },
    ]);
    const source = await open(u);
    expect(source.tools.map((t) => t.name)).toEqual(['up.good', 'up.good2']);
    const skipped = source.status().skippedTools;
    // Too big to read: left out as the list arrives, before anything reads it whole.
    expect(skipped.map((s) => s.name)).toEqual(['deep', 'shared', 'pyregex', 'nowhere', 'badout']);
    expect(skipped[0]?.reason).toBe('too big to read: it nests objects and arrays deeper than 256');
    expect(skipped[1]?.reason).toBe(
      'too big to read: it holds more than 100000 objects and arrays',
    );
    expect(skipped[2]?.reason).toMatch(
      /^input schema cannot be compiled: Invalid regular expression/,
    );
    expect(skipped[3]?.reason).toMatch(/^input schema cannot be compiled: can't resolve reference/);
    expect(skipped[4]?.reason).toMatch(/^output schema cannot be compiled: type must be JSONType/);
    for (const s of skipped) expect(s.reason.length).toBeLessThanOrEqual(300);

    // The runtime starts on what the source offers, and the schema it validates with is the server's.
    const rt = await createRuntime({ tools: source.tools, codeMode: false });
    try {
      expect(await rt.execute({ name: 'up.good', args: { q: 'x' } })).toMatchObject({ ok: true });
      expect(await rt.execute({ name: 'up.good', args: { q: 1 } })).toMatchObject({
        ok: false,
        error: { code: 'INVALID_ARGS' },
      });
    } finally {
      await rt.close();
    }

    // A changed list is held to the same rule: the bad tool stays out, a new good one comes in.
    const changed = new Promise<ToolDefinition[]>((resolve) => source.onToolsChanged(resolve));
    u.tools = [...u.tools, { name: 'later', inputSchema: objectSchema }];
    await u.servers[0]?.sendToolListChanged();
    expect((await changed).map((t) => t.name)).toEqual(['up.good', 'up.good2', 'up.later']);
    expect(source.status().skippedTools.map((s) => s.name)).toEqual([
      'deep',
      'shared',
      'pyregex',
      'nowhere',
      'badout',
    ]);
  });

  it('rebuilds its tools on notifications/tools/list_changed and tells subscribers', async () => {
    const u = upstream([{ name: 'a', inputSchema: objectSchema }]);
    const source = await open(u);
    const changed = new Promise<ToolDefinition[]>((resolve) => source.onToolsChanged(resolve));
    u.tools = [...u.tools, { name: 'b', inputSchema: objectSchema }];
    await u.servers[0]?.sendToolListChanged();
    const tools = await changed;
    expect(tools.map((t) => t.name)).toEqual(['up.a', 'up.b']);
    expect(source.tools.map((t) => t.name)).toEqual(['up.a', 'up.b']);
    expect(source.status().toolCount).toBe(2);
  });

  it('fails fast with UPSTREAM_UNAVAILABLE during a long backoff, and reconnects when it is over', async () => {
    const u = upstream([{ name: 't', inputSchema: objectSchema }]);
    const source = await open(u, { reconnect: { initialDelayMs: 60_000, maxWaitMs: 0 } });
    await u.servers[0]?.close(); // the upstream goes away
    u.refuse = 'connection refused';
    const first = await rejection(tool(source.tools, 'up.t').execute({}, ctx()));
    expect(isIsocodeError(first) && first.code).toBe('UPSTREAM_UNAVAILABLE');
    expect((first as Error).message).toMatch(
      /^upstream MCP server "up" is not reachable: the connection closed; next reconnection attempt in \d+(\.\d)? s$/,
    );
    expect(u.connections).toBe(1); // no attempt was made
    expect(source.status()).toMatchObject({ state: 'disconnected', consecutiveFailures: 1 });
    expect(source.status().nextAttemptInMs).toBeGreaterThan(0);
  });

  it('retries on the next call after a short backoff; a failed reconnection is again UPSTREAM_UNAVAILABLE', async () => {
    const u = upstream([{ name: 't', inputSchema: objectSchema }]);
    const source = await open(u, {
      reconnect: { initialDelayMs: 1, maxDelayMs: 1, maxWaitMs: 1000 },
    });
    await u.servers[0]?.close();
    u.refuse = 'connection refused';
    const failed = await rejection(tool(source.tools, 'up.t').execute({}, ctx()));
    expect(isIsocodeError(failed) && failed.message).toBe(
      'upstream MCP server "up" is not reachable: connection refused',
    );
    expect(source.status()).toMatchObject({
      state: 'disconnected',
      consecutiveFailures: 2,
      lastError: 'connection refused',
    });
    u.refuse = undefined;
    expect(await tool(source.tools, 'up.t').execute({}, ctx())).toEqual({
      text: 'ok',
      content: [{ type: 'text', text: 'ok' }],
    });
    expect(source.status()).toMatchObject({
      state: 'connected',
      reconnects: 1,
      consecutiveFailures: 0,
    });
    expect(u.connections).toBe(2);
  });

  it('shares one reconnection among concurrent calls', async () => {
    const u = upstream([{ name: 't', inputSchema: objectSchema }]);
    const source = await open(u, { reconnect: { initialDelayMs: 1, maxWaitMs: 1000 } });
    await u.servers[0]?.close();
    await new Promise((r) => setTimeout(r, 5));
    const results = await Promise.all(
      [1, 2, 3, 4].map(() => tool(source.tools, 'up.t').execute({}, ctx())),
    );
    expect(results).toHaveLength(4);
    expect(u.connections).toBe(2);
  });
});
