/**
 * Opening a runtime from a config file: load the config, load every tool source, create the
 * runtime with the configured scopes, limits and audit. The CLI, the HTTP service and the MCP
 * server all start here.
 */
import { IsocodeError } from '../errors.js';
import type { DurableRuntime } from '../durable/index.js';
import type { RunManager } from '../durable/runs.js';
import type { StoreConfig } from './config-types.js';
import {
  createRuntime,
  DEFAULT_SCOPE,
  type CodeModeOptions,
  type Runtime,
  type RuntimeOptions,
  type ScopeConfig,
} from '../index.js';
import { loadConfig } from './config.js';
import type { IsocodeConfig } from './config-types.js';
import { loadSources, type LoadedSources } from './load.js';

/** Options of {@link openRuntime}. */
export interface OpenRuntimeOptions {
  /** The config file. @default ./isocode.config.json when it exists, else the built-in demo tools */
  configPath?: string | undefined;
  /** Where relative paths and the default config file are looked up. @default process.cwd() */
  cwd?: string | undefined;
  /**
   * Runtime options layered over what the config sets (hooks, approver, event listeners, ...).
   * `codeMode.limits` and `codeMode.scopeLimits` are merged field by field over the config's limits.
   */
  runtime?: Partial<RuntimeOptions> | undefined;
  /** Presentation mode of the default scope when the config declares none. @default "code" */
  defaultMode?: ScopeConfig['mode'];
  /**
   * Opens an in-memory embedded store when the config has no `store` section (`isocode serve`);
   * `"store": false` in the config still turns durable runs off. @default false
   */
  durableByDefault?: boolean | undefined;
}

/** The store `durableByDefault` opens: embedded, in memory. */
const EMBEDDED_IN_MEMORY: StoreConfig = {
  url: undefined,
  urlEnv: undefined,
  path: undefined,
  schema: undefined,
  approvalTimeoutMs: undefined,
  replicaId: undefined,
  leaseMs: undefined,
  parkAfterMs: undefined,
  maxQueuedRunsPerScope: undefined,
  maxStoredBytesPerScope: undefined,
  retentionMs: undefined,
};

/** A runtime opened from a config, with its sources. */
export interface OpenedRuntime {
  runtime: Runtime;
  /** Durable runs, when the config has a `store` section. */
  runs: RunManager | undefined;
  config: IsocodeConfig;
  /** The scope requests use when they name none. */
  defaultScope: string;
  /** The sources' status (read live). */
  readonly sources: LoadedSources['sources'];
  /** Closes the runtime, then every source (upstream MCP servers included). Idempotent. */
  close(): Promise<void>;
}

/** The PostgreSQL url of a store config (`urlEnv` read now). @throws IsocodeError INVALID_CONFIG when unset. */
function storeUrl(store: StoreConfig): string | undefined {
  if (store.urlEnv === undefined) return store.url;
  const url = process.env[store.urlEnv];
  if (!url) throw new IsocodeError('INVALID_CONFIG', `store.urlEnv: $${store.urlEnv} is not set`);
  return url;
}

/** The limits that are set (a key set to `undefined` does not override a lower layer). */
const definedLimits = (limits: object | undefined): Record<string, number> => {
  const out: Record<string, number> = {};
  for (const [k, v] of Object.entries(limits ?? {})) if (typeof v === 'number') out[k] = v;
  return out;
};

/** Code-mode options: the config's, with the caller's layered over them field by field. */
function codeModeOptions(
  config: IsocodeConfig,
  scopeLimits: Record<string, Record<string, number>>,
  extra: CodeModeOptions | undefined,
): CodeModeOptions {
  const scopes = new Set([...Object.keys(scopeLimits), ...Object.keys(extra?.scopeLimits ?? {})]);
  return {
    ...extra,
    typecheck: extra?.typecheck ?? config.typecheck,
    inferOutputs:
      extra?.inferOutputs ?? (config.inferOutputs === false ? undefined : config.inferOutputs),
    discovery: { ...config.discovery, ...extra?.discovery },
    sandbox: extra?.sandbox ?? config.sandbox,
    wall: extra?.wall ?? config.wall,
    workers: { ...definedLimits(config.workers), ...definedLimits(extra?.workers) },
    admission: { ...definedLimits(config.admission), ...definedLimits(extra?.admission) },
    limits: { ...definedLimits(config.limits), ...definedLimits(extra?.limits) },
    scopeLimits: Object.fromEntries(
      [...scopes].map((id) => [
        id,
        { ...scopeLimits[id], ...definedLimits(extra?.scopeLimits?.[id]) },
      ]),
    ),
  };
}

/** Opens a runtime from a config file (or the zero-config demo). */
export async function openRuntime(options: OpenRuntimeOptions = {}): Promise<OpenedRuntime> {
  const config = await loadConfig(
    options.configPath,
    options.cwd === undefined ? {} : { cwd: options.cwd },
  );
  const loaded = await loadSources(config);
  try {
    const scopes: Record<string, ScopeConfig> = {};
    const scopeLimits: Record<string, Record<string, number>> = {};
    for (const [id, s] of Object.entries(config.scopes)) {
      scopes[id] = { parent: s.parent, mode: s.mode, allow: s.allow, deny: s.deny, ask: s.ask };
      if (s.limits) scopeLimits[id] = definedLimits(s.limits);
    }
    const root = scopes[DEFAULT_SCOPE] ?? {};
    if (root.mode === undefined)
      scopes[DEFAULT_SCOPE] = { ...root, mode: options.defaultMode ?? 'code' };
    const extra = options.runtime ?? {};
    const codeMode =
      extra.codeMode === false ? false : codeModeOptions(config, scopeLimits, extra.codeMode);
    // `isocode serve` has durable runs on an in-memory embedded store unless the config says otherwise.
    const storeConfig: StoreConfig | undefined =
      config.store === false
        ? undefined
        : (config.store ?? (options.durableByDefault === true ? EMBEDDED_IN_MEMORY : undefined));
    const durable = storeConfig && {
      store: {
        url: storeUrl(storeConfig),
        path: storeConfig.path,
        schema: storeConfig.schema,
      },
      humanApprovalTimeoutMs: storeConfig.approvalTimeoutMs,
      replicaId: storeConfig.replicaId,
      ...(storeConfig.leaseMs === undefined ? {} : { recovery: { leaseMs: storeConfig.leaseMs } }),
      runs: {
        parkAfterMs: storeConfig.parkAfterMs,
        maxQueuedRunsPerScope: storeConfig.maxQueuedRunsPerScope,
        maxStoredBytesPerScope: storeConfig.maxStoredBytesPerScope,
        retentionMs: storeConfig.retentionMs,
      },
    };
    // Durable runs (a SQL driver, OpenTelemetry) are loaded only when there is a store.
    const create = durable
      ? (await import('../durable/index.js')).createDurableRuntime
      : createRuntime;
    const runtime = await create({
      ...durable,
      maxParallelSubCalls: config.maxParallelSubCalls,
      defaultTimeoutMs: config.defaultTimeoutMs,
      ...(config.audit ? { audit: { path: config.audit.path } } : {}),
      ...extra,
      tools: [...loaded.tools, ...(extra.tools ?? [])],
      scopes: { ...scopes, ...(extra.scopes ?? {}) },
      codeMode,
    });
    // An upstream MCP server announced a new catalog: swap exactly the tools that changed.
    let current = new Map(loaded.tools.map((t) => [t.name, t]));
    const unsubscribe = loaded.onToolsChanged((tools) => {
      const next = new Map(tools.map((t) => [t.name, t]));
      const remove = [...current.keys()].filter((name) => next.get(name) !== current.get(name));
      const add = [...next.values()].filter((t) => current.get(t.name) !== t);
      try {
        runtime.updateTools({ remove, add });
        current = next;
      } catch {
        // a catalog that cannot be registered (a name clash) keeps the previous one
      }
    });
    let closing: Promise<void> | undefined;
    return {
      runtime,
      runs: 'runs' in runtime ? (runtime as DurableRuntime).runs : undefined,
      config,
      defaultScope: config.defaultScope,
      get sources() {
        return loaded.sources;
      },
      close: () =>
        (closing ??= (async () => {
          unsubscribe();
          await runtime.close();
          await loaded.close();
        })()),
    };
  } catch (err) {
    await loaded.close();
    throw err;
  }
}
