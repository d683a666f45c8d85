/** Tools of an upstream MCP server, as isocode tool definitions in a namespace. */
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { IsocodeError } from '../index.js';
import type { ToolContext, ToolDefinition } from '../index.js';
import { SOURCE_NAME_RE } from './config-schema.js';
import { McpConnection } from './mcp-connection.js';
import type { ToolList } from './mcp-waits.js';
import type {
  McpConnectionStatus,
  McpReconnectOptions,
  McpServerOptions,
} from './mcp-connection.js';
import { assignLocalNames } from './mcp-names.js';
import { mapCallResult } from './mcp-result.js';
import { MCP_TEXT_RESULT_SCHEMA } from './mcp-text-result.js';
import { Emitter } from '../events/emitter.js';
import { compileAhead } from '../tools/schema.js';
import type { JsonSchema } from '../tools/types.js';

/** Options of {@link mcpTools}. */
export interface McpToolsOptions {
  /** The namespace: tools are named `<name>.<upstream tool>`. A letter, then letters, digits, `_` or `-`; at most 32. */
  name: string;
  /** How to reach the server: `{ command, args, env, cwd, stderr }` (stdio), `{ url, headers }` (streamable HTTP) or `{ transport }`. */
  mcp: McpServerOptions;
  /** `timeoutMs` of every tool of this source. @default unset (the runtime's default) */
  timeoutMs?: number | undefined;
  /** Time limit for spawning, the initialize handshake and each tools/list, in milliseconds. @default 30000 */
  connectTimeoutMs?: number | undefined;
  /** Reconnection backoff. */
  reconnect?: McpReconnectOptions | undefined;
}

/** A source's status: the connection plus its catalog. */
export interface McpSourceStatus extends McpConnectionStatus {
  kind: 'mcp';
  name: string;
  /** Tools offered (upstream tools that need task-based execution are left out). */
  toolCount: number;
  /** Upstream tools left out, with why. */
  skippedTools: { name: string; reason: string }[];
}

/** A connected upstream MCP server and its tools. */
export interface McpSource {
  /** The source's namespace. */
  readonly name: string;
  /** The current tool definitions (replaced when the upstream's tool list changes). */
  readonly tools: ToolDefinition[];
  /** Local tool name → upstream tool name. */
  readonly upstreamNames: ReadonlyMap<string, string>;
  status(): McpSourceStatus;
  /**
   * Subscribes to catalog changes (`notifications/tools/list_changed`, or a different list after
   * a reconnection); the listener gets the new tool definitions. @returns unsubscribe
   */
  onToolsChanged(listener: (tools: ToolDefinition[]) => void): () => void;
  /** Closes the connection; a stdio server's process has exited when this resolves. Idempotent. */
  close(): Promise<void>;
}

function argumentsOf(args: unknown, local: string): Record<string, unknown> {
  if (args === undefined || args === null) return {};
  if (typeof args === 'object' && !Array.isArray(args)) return args as Record<string, unknown>;
  throw new IsocodeError('INVALID_ARGS', `tool "${local}" takes an object of arguments`);
}

/** An upstream tool offered, with its schemas compiled ahead (frozen copies). */
interface Offered {
  tool: Tool;
  input: JsonSchema;
  output: JsonSchema | undefined;
}

interface Catalog {
  tools: ToolDefinition[];
  upstreamNames: Map<string, string>;
  skipped: { name: string; reason: string }[];
}

function buildCatalog(
  name: string,
  upstream: ToolList,
  connection: McpConnection,
  timeoutMs: number | undefined,
): Catalog {
  const skipped: Catalog['skipped'] = [...upstream.malformed];
  const byName = new Map<string, Offered>();
  for (const tool of upstream.tools) {
    if (byName.has(tool.name)) {
      skipped.push({ name: tool.name, reason: 'listed twice; the first is used' });
      continue;
    }
    if (tool.execution?.taskSupport === 'required') {
      skipped.push({ name: tool.name, reason: 'requires task-based execution' });
      continue;
    }
    // A schema the validator cannot compile leaves out its tool, not the whole server.
    const input = compileAhead(tool.inputSchema, 'input');
    const output =
      tool.outputSchema === undefined ? undefined : compileAhead(tool.outputSchema, 'output');
    if (!input.ok) {
      skipped.push({ name: tool.name, reason: input.reason });
      continue;
    }
    if (output?.ok === false) {
      skipped.push({ name: tool.name, reason: output.reason });
      continue;
    }
    byName.set(tool.name, { tool, input: input.schema, output: output?.schema });
  }
  const local = assignLocalNames(name, [...byName.keys()]);
  const upstreamNames = new Map<string, string>();
  const tools = [...byName.values()].map(({ tool, input, output }): ToolDefinition => {
    const localName = local.get(tool.name) ?? `${name}.${tool.name}`;
    upstreamNames.set(localName, tool.name);
    const hasOutputSchema = output !== undefined;
    const site = { source: name, tool: tool.name };
    return {
      name: localName,
      description:
        tool.description ?? tool.title ?? `The "${tool.name}" tool of MCP server "${name}".`,
      input,
      output: output ?? MCP_TEXT_RESULT_SCHEMA,
      isConcurrencySafe: tool.annotations?.readOnlyHint === true,
      idempotent: tool.annotations?.idempotentHint === true,
      ...(timeoutMs === undefined ? {} : { timeoutMs }),
      execute: async (args: unknown, ctx: ToolContext) => {
        const result = await connection.callTool(
          tool.name,
          argumentsOf(args, localName),
          ctx.signal,
        );
        return mapCallResult(result, hasOutputSchema, site);
      },
    };
  });
  return { tools, upstreamNames, skipped };
}

/**
 * Connects to an upstream MCP server and makes one tool per upstream tool, named
 * `<name>.<upstream name>` (sanitized: see docs/decisions/005-mcp-upstream-mapping.md). Each
 * call is forwarded with `tools/call`; a lost upstream gives UPSTREAM_UNAVAILABLE and is
 * reconnected on a later call.
 * @throws IsocodeError INVALID_CONFIG for a bad name; UPSTREAM_UNAVAILABLE when the first connection fails.
 */
export async function mcpTools(options: McpToolsOptions): Promise<McpSource> {
  const { name } = options;
  if (!SOURCE_NAME_RE.test(name)) {
    throw new IsocodeError(
      'INVALID_CONFIG',
      `invalid MCP source name "${name}": expected a letter, then letters, digits, "_" or "-" (at most 32)`,
    );
  }
  const changed = new Emitter<[ToolDefinition[]]>();
  let catalog: Catalog = { tools: [], upstreamNames: new Map(), skipped: [] };
  const connection: McpConnection = new McpConnection({
    name,
    server: options.mcp,
    connectTimeoutMs: options.connectTimeoutMs ?? 30_000,
    reconnect: options.reconnect ?? {},
    onCatalog: (upstream) => {
      catalog = buildCatalog(name, upstream, connection, options.timeoutMs);
      changed.emit(catalog.tools);
    },
  });
  catalog = buildCatalog(name, await connection.start(), connection, options.timeoutMs);
  return {
    name,
    get tools() {
      return catalog.tools;
    },
    get upstreamNames() {
      return catalog.upstreamNames;
    },
    status: () => ({
      kind: 'mcp',
      name,
      ...connection.status(),
      toolCount: catalog.tools.length,
      skippedTools: catalog.skipped,
    }),
    onToolsChanged: (listener) => changed.on(listener),
    close: () => connection.close(),
  };
}
