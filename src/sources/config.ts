/** Reads and validates `isocode.config.json`. */
import { readFile } from 'node:fs/promises';
import { basename, isAbsolute, resolve } from 'node:path';
import type { z } from 'zod';
import { IsocodeError } from '../index.js';
import {
  builtinSourceSchema,
  mcpHttpSchema,
  mcpSourceSchema,
  mcpStdioSchema,
  mcpTransportOf,
  moduleSourceSchema,
  openApiSourceSchema,
  SCOPE_NAME_RE,
  sourceKindOf,
  topLevelSchema,
} from './config-schema.js';
import type { IsocodeConfig, ScopeConfig, SourceConfig } from './config-types.js';
import { JsoncSyntaxError, parseJsonc } from './jsonc.js';

/** The file `loadConfig()` looks for in the working directory when given no path. */
export const DEFAULT_CONFIG_FILE = 'isocode.config.json';

/** Most problems listed in one INVALID_CONFIG message (all are in `details.issues`). */
const MAX_LISTED_ISSUES = 8;

type Path = readonly PropertyKey[];
/** One problem in a config, by key path (for example `sources[1].mcp.command`). */
export interface ConfigIssue {
  path: string;
  message: string;
}

/** Formats a key path: `sources[1].mcp.command`, `scopes["tenant-a"].allow[0]`. */
export function formatConfigPath(path: Path): string {
  let out = '';
  for (const seg of path) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else {
      const s = String(seg);
      out += /^[A-Za-z_$][\w$]*$/.test(s) ? (out === '' ? s : `.${s}`) : `[${JSON.stringify(s)}]`;
    }
  }
  return out === '' ? '(top level)' : out;
}

function zodIssues(error: z.ZodError, prefix: Path): ConfigIssue[] {
  const out: ConfigIssue[] = [];
  for (const issue of error.issues) {
    const path = [...prefix, ...issue.path];
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys)
        out.push({ path: formatConfigPath([...path, key]), message: 'unknown key' });
      continue;
    }
    const message = issue.message.replace(/^Invalid (input|option): /, '');
    out.push({ path: formatConfigPath(path), message });
  }
  return out;
}

class IssueList {
  readonly issues: ConfigIssue[] = [];
  add(path: Path, message: string): void {
    this.issues.push({ path: formatConfigPath(path), message });
  }
  parse<S extends z.ZodType>(schema: S, value: unknown, path: Path): z.output<S> | undefined {
    const result = schema.safeParse(value);
    if (result.success) return result.data;
    this.issues.push(...zodIssues(result.error, path));
    return undefined;
  }
}

function invalidConfig(issues: ConfigIssue[], configPath: string | undefined): IsocodeError {
  const where = configPath === undefined ? 'invalid config' : `invalid config ${configPath}`;
  const listed = issues.slice(0, MAX_LISTED_ISSUES).map((i) => `${i.path}: ${i.message}`);
  const more =
    issues.length > MAX_LISTED_ISSUES ? `; and ${issues.length - MAX_LISTED_ISSUES} more` : '';
  return new IsocodeError('INVALID_CONFIG', `${where}: ${listed.join('; ')}${more}`, {
    details: { issues, ...(configPath === undefined ? {} : { configPath }) },
  });
}

function resolveCommand(command: string, baseDir: string): string {
  return command.startsWith('./') ||
    command.startsWith('../') ||
    command.startsWith('.\\') ||
    command.startsWith('..\\')
    ? resolve(baseDir, command)
    : command;
}

function parseSource(
  entry: unknown,
  index: number,
  baseDir: string,
  list: IssueList,
): SourceConfig | undefined {
  const at = ['sources', index] as const;
  const kind = sourceKindOf(entry);
  if (typeof kind === 'object') {
    list.add(at, kind.problem);
    return undefined;
  }
  if (kind === 'builtin') {
    const v = list.parse(builtinSourceSchema, entry, at);
    return v && { kind: 'builtin', builtin: v.builtin };
  }
  if (kind === 'module') {
    const v = list.parse(moduleSourceSchema, entry, at);
    if (!v) return undefined;
    const file = resolve(baseDir, v.module);
    return { kind: 'module', module: file, name: v.name ?? basename(file) };
  }
  if (kind === 'openapi') {
    const v = list.parse(openApiSourceSchema, entry, at);
    if (!v) return undefined;
    const spec = /^https?:\/\//i.test(v.openapi.spec)
      ? v.openapi.spec
      : resolve(baseDir, v.openapi.spec);
    const o = v.openapi;
    return {
      kind: 'openapi',
      name: v.name,
      openapi: {
        spec,
        baseUrl: o.baseUrl,
        headers: o.headers,
        timeoutMs: o.timeoutMs,
        maxResponseBytes: o.maxResponseBytes,
        operations: o.operations,
      },
    };
  }
  const v = list.parse(mcpSourceSchema, entry, at);
  if (!v) return undefined;
  const transport = mcpTransportOf(v.mcp);
  const common = {
    kind: 'mcp' as const,
    name: v.name,
    timeoutMs: v.timeoutMs,
    connectTimeoutMs: v.connectTimeoutMs,
  };
  if (typeof transport === 'object') {
    list.add([...at, 'mcp'], transport.problem);
    return undefined;
  }
  if (transport === 'stdio') {
    const m = list.parse(mcpStdioSchema, v.mcp, [...at, 'mcp']);
    if (!m) return undefined;
    const cwd = m.cwd === undefined ? baseDir : resolve(baseDir, m.cwd);
    return { ...common, mcp: { ...m, command: resolveCommand(m.command, baseDir), cwd } };
  }
  const m = list.parse(mcpHttpSchema, v.mcp, [...at, 'mcp']);
  return m && { ...common, mcp: m };
}

function sourceLabel(source: SourceConfig): string | undefined {
  return source.kind === 'builtin' ? undefined : source.name;
}

function checkScopes(scopes: Record<string, ScopeConfig>, list: IssueList): void {
  for (const name of Object.keys(scopes)) {
    if (!SCOPE_NAME_RE.test(name))
      list.add(
        ['scopes', name],
        'invalid scope name (letters, digits, "_", "." or "-", starting with a letter or digit; at most 64)',
      );
  }
  for (const [name, scope] of Object.entries(scopes)) {
    if (scope.parent === undefined) continue;
    if (!Object.hasOwn(scopes, scope.parent)) {
      list.add(['scopes', name, 'parent'], `unknown scope "${scope.parent}"`);
      continue;
    }
    const chain = [name];
    let current: string | undefined = scope.parent;
    while (current !== undefined && Object.hasOwn(scopes, current)) {
      if (current === name) {
        list.add(['scopes', name, 'parent'], `cycle: ${[...chain, name].join(' -> ')}`);
        break;
      }
      if (chain.includes(current)) break; // a cycle further up, reported at its own scopes
      chain.push(current);
      current = scopes[current]?.parent;
    }
  }
}

/** Options of {@link parseConfig}. */
export interface ParseConfigOptions {
  /** The file the JSON came from, for messages and `IsocodeConfig.configPath`. @default undefined */
  configPath?: string | undefined;
}

/**
 * Validates a parsed config object. Relative paths (`module`, `mcp.cwd`, an `mcp.command`
 * starting with `./` or `../`, `audit.path`) resolve against `baseDir`; defaults are filled in.
 * @throws IsocodeError INVALID_CONFIG naming every bad key path, e.g. `sources[1].mcp.command: expected string, received number`.
 */
export function parseConfig(
  json: unknown,
  baseDir: string,
  options: ParseConfigOptions = {},
): IsocodeConfig {
  const configPath = options.configPath;
  const list = new IssueList();
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    throw invalidConfig([{ path: '(top level)', message: 'expected an object' }], configPath);
  }
  const dir = resolve(baseDir);
  // `"store": false` turns durable runs off; the schema checks a store section's fields.
  const storeOff = (json as { store?: unknown }).store === false;
  const top = list.parse(topLevelSchema, storeOff ? { ...json, store: undefined } : json, []);
  // Entries are checked even when the top level has problems, so one pass reports them all.
  const given: unknown = Object.hasOwn(json, 'sources')
    ? (json as { sources: unknown }).sources
    : [{ builtin: 'demo' }];
  const rawSources: unknown[] = Array.isArray(given) ? given : [];
  const sources: SourceConfig[] = [];
  const seenNames = new Map<string, number>();
  rawSources.forEach((entry, index) => {
    const source = parseSource(entry, index, dir, list);
    if (!source) return;
    const label = sourceLabel(source);
    if (label !== undefined && (source.kind === 'mcp' || source.kind === 'openapi')) {
      const previous = seenNames.get(label);
      if (previous !== undefined)
        list.add(
          ['sources', index, 'name'],
          `duplicate source name "${label}" (also sources[${previous}])`,
        );
      else seenNames.set(label, index);
    }
    sources.push(source);
  });
  if (!top) throw invalidConfig(list.issues, configPath);

  const scopes: Record<string, ScopeConfig> = Object.create(null) as Record<string, ScopeConfig>;
  for (const [name, s] of Object.entries(top.scopes ?? { [top.defaultScope]: {} })) {
    const isRoot = s.parent === undefined;
    scopes[name] = {
      parent: s.parent,
      allow: s.allow,
      deny: s.deny,
      ask: s.ask,
      mode: s.mode ?? (isRoot ? 'code' : undefined),
      limits: s.limits,
    };
  }
  checkScopes(scopes, list);
  if (!Object.hasOwn(scopes, top.defaultScope))
    list.add(['defaultScope'], `unknown scope "${top.defaultScope}" (not in scopes)`);
  const literalKeys = new Map<string, number>();
  const names = new Map<string, number>();
  top.server.apiKeys.forEach((k, i) => {
    if (k.name !== undefined) {
      const previous = names.get(k.name);
      if (previous !== undefined)
        list.add(
          ['server', 'apiKeys', i, 'name'],
          `duplicate key name (also server.apiKeys[${previous}])`,
        );
      else names.set(k.name, i);
    }
    if (!Object.hasOwn(scopes, k.scope))
      list.add(['server', 'apiKeys', i, 'scope'], `unknown scope "${k.scope}"`);
    if (k.key !== undefined) {
      const previous = literalKeys.get(k.key);
      if (previous !== undefined)
        list.add(
          ['server', 'apiKeys', i, 'key'],
          `duplicate key (also server.apiKeys[${previous}])`,
        );
      else literalKeys.set(k.key, i);
    }
  });
  if (list.issues.length > 0) throw invalidConfig(list.issues, configPath);

  return {
    configPath,
    baseDir: dir,
    sources,
    defaultScope: top.defaultScope,
    scopes: { ...scopes },
    limits: top.limits,
    typecheck: top.typecheck,
    inferOutputs:
      top.inferOutputs === false
        ? false
        : {
            dir: resolve(
              dir,
              (top.inferOutputs === true ? undefined : top.inferOutputs.dir) ?? '.isocode/inferred',
            ),
          },
    discovery: top.discovery,
    sandbox: top.sandbox,
    wall: top.wall,
    workers: top.workers,
    admission: top.admission,
    maxParallelSubCalls: top.maxParallelSubCalls,
    defaultTimeoutMs: top.defaultTimeoutMs,
    audit: top.audit === undefined ? undefined : { path: resolve(dir, top.audit.path) },
    mcp: { elicitation: top.mcp.elicitation },
    store: storeOff
      ? false
      : top.store === undefined
        ? undefined
        : {
            url: top.store.url,
            urlEnv: top.store.urlEnv,
            path: top.store.path === undefined ? undefined : resolve(dir, top.store.path),
            schema: top.store.schema,
            approvalTimeoutMs: top.store.approvalTimeoutMs,
            replicaId: top.store.replicaId,
            leaseMs: top.store.leaseMs,
            parkAfterMs: top.store.parkAfterMs,
            maxQueuedRunsPerScope: top.store.maxQueuedRunsPerScope,
            maxStoredBytesPerScope: top.store.maxStoredBytesPerScope,
            retentionMs: top.store.retentionMs,
          },
    server: {
      host: top.server.host,
      port: top.server.port,
      apiKeys: top.server.apiKeys.map((k) => ({
        ...(k.key !== undefined ? { key: k.key } : { keyEnv: k.keyEnv ?? '' }),
        scope: k.scope,
        ...(k.name === undefined ? {} : { name: k.name }),
      })),
      maxBodyBytes: top.server.maxBodyBytes,
      console: top.server.console,
    },
  };
}

/** Options of {@link loadConfig}. */
export interface LoadConfigOptions {
  /** The directory a relative `path` and the default file are looked up in. @default process.cwd() */
  cwd?: string;
}

/**
 * Reads a config file (JSON; `//` and `/* *\/` comments and trailing commas are allowed) and
 * validates it with {@link parseConfig}. Without `path`, reads `./isocode.config.json` if it
 * exists, and otherwise returns the default config (the built-in demo tools only).
 * @throws IsocodeError INVALID_CONFIG for a missing or unreadable file, bad JSON (with line and column) or a bad key.
 */
export async function loadConfig(
  path?: string,
  options: LoadConfigOptions = {},
): Promise<IsocodeConfig> {
  const cwd = resolve(options.cwd ?? process.cwd());
  const explicit = path !== undefined;
  const file = explicit
    ? isAbsolute(path)
      ? path
      : resolve(cwd, path)
    : resolve(cwd, DEFAULT_CONFIG_FILE);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' && !explicit) return parseConfig({}, cwd);
    const why =
      code === 'ENOENT'
        ? 'file not found'
        : code === 'EISDIR'
          ? 'is a directory'
          : (error as Error).message;
    throw new IsocodeError('INVALID_CONFIG', `cannot read config ${file}: ${why}`, {
      details: { configPath: file },
      cause: error,
    });
  }
  let json: unknown;
  try {
    json = parseJsonc(text);
  } catch (error) {
    if (!(error instanceof JsoncSyntaxError)) throw error;
    const at = error.line === undefined ? '' : `:${error.line}:${error.column ?? 1}`;
    throw new IsocodeError(
      'INVALID_CONFIG',
      `invalid JSON in config ${file}${at}: ${error.message}`,
      {
        details: { configPath: file, line: error.line, column: error.column },
      },
    );
  }
  return parseConfig(json, resolve(file, '..'), { configPath: file });
}

/** An API key with its token resolved. */
export interface ResolvedApiKey {
  key: string;
  scope: string;
  name?: string | undefined;
}

/**
 * Resolves `server.apiKeys`, reading `keyEnv` entries from `env`.
 * @throws IsocodeError INVALID_CONFIG naming the entry whose variable is unset or empty.
 */
export function resolveApiKeys(
  config: Pick<IsocodeConfig, 'server' | 'configPath'>,
  env: NodeJS.ProcessEnv = process.env,
): ResolvedApiKey[] {
  const issues: ConfigIssue[] = [];
  const keys = config.server.apiKeys.flatMap((k, i): ResolvedApiKey[] => {
    const named = k.name === undefined ? {} : { name: k.name };
    if ('key' in k) return [{ key: k.key, scope: k.scope, ...named }];
    const value = env[k.keyEnv];
    if (value === undefined || value === '') {
      issues.push({
        path: formatConfigPath(['server', 'apiKeys', i, 'keyEnv']),
        message: `environment variable ${k.keyEnv} is not set`,
      });
      return [];
    }
    return [{ key: value, scope: k.scope, ...named }];
  });
  if (issues.length > 0) throw invalidConfig(issues, config.configPath);
  return keys;
}
