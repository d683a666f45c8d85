/** Loads every source of a config into one tool list. */
import { thrownText } from '../errors.js';
import { IsocodeError, isIsocodeError } from '../index.js';
import type { ToolDefinition } from '../index.js';
import { formatConfigPath } from './config.js';
import type {
  IsocodeConfig,
  McpSourceConfig,
  OpenApiSourceConfig,
  SourceConfig,
} from './config-types.js';
import { builtinDemoTools } from './demo.js';
import type { McpSource, McpSourceStatus } from './mcp.js';
import type { McpReconnectOptions, McpServerOptions } from './mcp-connection.js';
import { loadModuleTools } from './module.js';
import type { OpenApiSourceStatus, OpenApiToolsOptions } from './openapi.js';
import { Emitter } from '../events/emitter.js';

/** Status of the built-in demo source. */
export interface BuiltinSourceStatus {
  kind: 'builtin';
  name: 'demo';
  toolCount: number;
}

/** Status of a module source. */
export interface ModuleSourceStatus {
  kind: 'module';
  name: string;
  /** Absolute path of the module. */
  path: string;
  toolCount: number;
}

/** Status of one loaded source. */
export type SourceStatus =
  BuiltinSourceStatus | ModuleSourceStatus | McpSourceStatus | OpenApiSourceStatus;

/** Every tool of a config's sources. */
export interface LoadedSources {
  /** All tools, in source order (replaced when an MCP source's tool list changes). */
  readonly tools: ToolDefinition[];
  /** A fresh status of every source, in config order (read it when needed; it is not live). */
  readonly sources: SourceStatus[];
  /** Same as reading `sources`. */
  status(): SourceStatus[];
  /** Subscribes to changes of `tools` (an MCP source's list changed). @returns unsubscribe */
  onToolsChanged(listener: (tools: ToolDefinition[]) => void): () => void;
  /** Closes every MCP source (their child processes have exited when it resolves). Idempotent. */
  close(): Promise<void>;
}

/** Options of {@link loadSources}. */
export interface LoadSourcesOptions {
  /** Where `${VAR}` in `mcp.env`, `mcp.headers` and `openapi.headers` values is looked up. @default process.env */
  env?: NodeJS.ProcessEnv | undefined;
  /** Reconnection backoff of every MCP source. @default see McpReconnectOptions */
  reconnect?: McpReconnectOptions | undefined;
}

/**
 * Replaces `${VAR}` with `env.VAR` (`$${` stays a literal `${`).
 * @throws IsocodeError INVALID_CONFIG naming `path` when a variable is unset.
 */
export function interpolateEnv(value: string, env: NodeJS.ProcessEnv, path: string): string {
  return value.replace(/\$?\$\{([^}]*)\}/g, (match, name: string) => {
    if (match.startsWith('$$')) return match.slice(1);
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) {
      throw new IsocodeError(
        'INVALID_CONFIG',
        `${path}: "${match}" is not a valid variable reference`,
      );
    }
    const v = env[name];
    if (v === undefined)
      throw new IsocodeError('INVALID_CONFIG', `${path}: environment variable ${name} is not set`);
    return v;
  });
}

function interpolateAll(
  values: Record<string, string>,
  env: NodeJS.ProcessEnv,
  path: readonly PropertyKey[],
): Record<string, string> {
  return Object.fromEntries(
    Object.entries(values).map(([k, v]) => [
      k,
      interpolateEnv(v, env, formatConfigPath([...path, k])),
    ]),
  );
}

function mcpServerOptions(source: McpSourceConfig, env: NodeJS.ProcessEnv): McpServerOptions {
  const at = ['mcp'] as const; // messages are prefixed with the source (see wrapFailure)
  const m = source.mcp;
  if ('url' in m)
    return { url: m.url, headers: interpolateAll(m.headers, env, [...at, 'headers']) };
  return {
    command: m.command,
    args: m.args,
    env: interpolateAll(m.env, env, [...at, 'env']),
    inheritEnv: m.inheritEnv,
    cwd: m.cwd,
    stderr: m.stderr,
  };
}

function openApiOptions(source: OpenApiSourceConfig, env: NodeJS.ProcessEnv): OpenApiToolsOptions {
  const o = source.openapi;
  return {
    name: source.name,
    spec: o.spec,
    baseUrl: o.baseUrl,
    headers: interpolateAll(o.headers, env, ['openapi', 'headers']),
    timeoutMs: o.timeoutMs,
    maxResponseBytes: o.maxResponseBytes,
    operations: o.operations,
  };
}

function labelOf(source: SourceConfig): string {
  if (source.kind === 'openapi') return `openapi "${source.name}"`;
  return source.kind === 'builtin'
    ? `builtin "${source.builtin}"`
    : source.kind === 'module'
      ? `module ${source.module}`
      : `mcp "${source.name}"`;
}

function wrapFailure(error: unknown, index: number, source: SourceConfig): IsocodeError {
  const where = `sources[${index}] (${labelOf(source)})`;
  if (isIsocodeError(error)) {
    return new IsocodeError(error.code, `${where}: ${error.message}`, {
      details: { ...error.details, sourceIndex: index },
      cause: error,
    });
  }
  const message = thrownText(error);
  return new IsocodeError('INVALID_CONFIG', `${where}: ${message}`, {
    details: { sourceIndex: index },
    cause: error,
  });
}

type Loaded =
  | { kind: 'builtin'; tools: ToolDefinition[] }
  | { kind: 'module'; name: string; path: string; tools: ToolDefinition[] }
  | { kind: 'mcp'; source: McpSource }
  | { kind: 'openapi'; tools: ToolDefinition[]; status: () => OpenApiSourceStatus };

async function loadOne(source: SourceConfig, options: LoadSourcesOptions): Promise<Loaded> {
  if (source.kind === 'builtin') return { kind: 'builtin', tools: builtinDemoTools() };
  if (source.kind === 'module')
    return {
      kind: 'module',
      name: source.name,
      path: source.module,
      tools: await loadModuleTools(source.module),
    };
  if (source.kind === 'openapi') {
    const { openApiTools } = await import('./openapi.js');
    const api = await openApiTools(openApiOptions(source, options.env ?? process.env));
    return { kind: 'openapi', tools: api.tools, status: () => api.status() };
  }
  // The MCP SDK (~0.3 s to import) is loaded only when a config names an MCP source.
  const { mcpTools } = await import('./mcp-lazy.js');
  const mcp = await mcpTools({
    name: source.name,
    mcp: mcpServerOptions(source, options.env ?? process.env),
    timeoutMs: source.timeoutMs,
    connectTimeoutMs: source.connectTimeoutMs,
    reconnect: options.reconnect,
  });
  return { kind: 'mcp', source: mcp };
}

const toolsOf = (l: Loaded): ToolDefinition[] => (l.kind === 'mcp' ? l.source.tools : l.tools);

function statusOf(l: Loaded): SourceStatus {
  if (l.kind === 'builtin') return { kind: 'builtin', name: 'demo', toolCount: l.tools.length };
  if (l.kind === 'module')
    return { kind: 'module', name: l.name, path: l.path, toolCount: l.tools.length };
  if (l.kind === 'openapi') return l.status();
  return l.source.status();
}

async function closeAll(loaded: readonly Loaded[]): Promise<void> {
  const closing = loaded.flatMap((l) =>
    l.kind === 'mcp' ? [l.source.close().catch(() => undefined)] : [],
  );
  await Promise.all(closing);
}

function checkUniqueNames(loaded: readonly Loaded[], config: Pick<IsocodeConfig, 'sources'>): void {
  const owner = new Map<string, number>();
  loaded.forEach((l, i) => {
    for (const tool of toolsOf(l)) {
      const first = owner.get(tool.name);
      const source = config.sources[i];
      const other = first === undefined ? undefined : config.sources[first];
      if (first !== undefined && source && other) {
        throw new IsocodeError(
          'INVALID_CONFIG',
          `sources[${i}] (${labelOf(source)}): tool "${tool.name}" is also offered by sources[${first}] (${labelOf(other)})`,
          { details: { tool: tool.name, sourceIndexes: [first, i] } },
        );
      }
      owner.set(tool.name, i);
    }
  });
}

/**
 * Loads every source of a config: the built-in demo set, tool modules, and upstream MCP servers
 * (connected in parallel). If any source fails, the ones already connected are closed and the
 * error names the failing source (`sources[2] (mcp "fs"): ...`), keeping its code
 * (INVALID_CONFIG, INVALID_TOOL_DEFINITION or UPSTREAM_UNAVAILABLE). Tool names must be unique
 * across sources (INVALID_CONFIG otherwise).
 */
export async function loadSources(
  config: Pick<IsocodeConfig, 'sources'>,
  options: LoadSourcesOptions = {},
): Promise<LoadedSources> {
  const settled = await Promise.allSettled(config.sources.map((s) => loadOne(s, options)));
  const loaded = settled.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
  const failedAt = settled.findIndex((r) => r.status === 'rejected');
  const failure = settled[failedAt];
  const failedSource = config.sources[failedAt];
  if (failure?.status === 'rejected' && failedSource) {
    await closeAll(loaded);
    const error = wrapFailure(failure.reason, failedAt, failedSource);
    const others = settled.filter((r) => r.status === 'rejected').length - 1;
    if (others === 0) throw error;
    throw new IsocodeError(
      error.code,
      `${error.message} (and ${others} more source${others === 1 ? '' : 's'} failed)`,
      {
        ...(error.details ? { details: error.details } : {}),
        cause: error,
      },
    );
  }
  try {
    checkUniqueNames(loaded, config);
  } catch (error) {
    await closeAll(loaded);
    throw error;
  }
  let tools = loaded.flatMap(toolsOf);
  const changed = new Emitter<[ToolDefinition[]]>();
  for (const l of loaded) {
    if (l.kind !== 'mcp') continue;
    l.source.onToolsChanged(() => {
      tools = loaded.flatMap(toolsOf);
      changed.emit(tools);
    });
  }
  let closing: Promise<void> | undefined;
  const status = (): SourceStatus[] => loaded.map(statusOf);
  return {
    get tools() {
      return tools;
    },
    get sources() {
      return status();
    },
    status,
    onToolsChanged: (listener) => changed.on(listener),
    close: () => (closing ??= closeAll(loaded)),
  };
}
