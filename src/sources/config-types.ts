/**
 * The parsed, validated shape of `isocode.config.json`. Every relative path is already resolved
 * against the config file's directory and every default is filled in. See docs/config.md.
 */
import type { AdmissionOptions, PresentationMode, WorkerPoolOptions } from '../index.js';

/** How type errors in a `run_code` program are treated. */
export type TypecheckMode = 'error' | 'warn' | 'off';

/** What happens to an upstream stdio server's stderr. */
export type StderrMode = 'capture' | 'inherit' | 'ignore';

/** `{ "builtin": "demo" }`: the built-in demo tools (`kv.*`, `text.*`). */
export interface BuiltinSourceConfig {
  kind: 'builtin';
  /** Which built-in set. Only `demo` exists. */
  builtin: 'demo';
}

/** `{ "module": "./tools.mjs" }`: a JS or TS module exporting tools. */
export interface ModuleSourceConfig {
  kind: 'module';
  /** Absolute path of the module (`.mjs`, `.js`, `.cjs`, `.ts`, `.mts`, `.cts`). */
  module: string;
  /** A label for status and error messages. @default the file name */
  name: string;
}

/** An upstream MCP server spawned as a child process, spoken to over stdio. */
export interface McpStdioConfig {
  /** The executable: a name looked up on PATH, or a path (`./x` is resolved against the config's directory). */
  command: string;
  /** Arguments, passed unchanged. @default [] */
  args: string[];
  /**
   * Variables set in the child (they win over inherited ones). `${VAR}` in a value is replaced by
   * this process's variable VAR when the source loads (`$${` is a literal `${`). @default {}
   */
  env: Record<string, string>;
  /**
   * More variables inherited from this process, by name or `PREFIX_*`. The child always inherits
   * `DEFAULT_INHERITED_ENV` (HOME, PATH and the other login basics, the proxy variables in both
   * cases, NODE_EXTRA_CA_CERTS, SSL_CERT_FILE, SSL_CERT_DIR, TMPDIR, the locale; docs/config.md)
   * and nothing else of this process's environment. @default []
   */
  inheritEnv: string[];
  /** The child's working directory. @default the config file's directory */
  cwd: string;
  /**
   * The child's stderr: `capture` keeps the last few KB for status and connection errors,
   * `inherit` forwards it to this process's stderr, `ignore` drops it. @default "capture"
   */
  stderr: StderrMode;
}

/** An upstream MCP server reached over streamable HTTP. */
export interface McpHttpConfig {
  /** The MCP endpoint, `http:` or `https:`. */
  url: string;
  /**
   * Extra request headers (for example `Authorization`). `${VAR}` in a value is replaced by this
   * process's variable VAR when the source loads (`$${` is a literal `${`). @default {}
   */
  headers: Record<string, string>;
}

/** `{ "name": "fs", "mcp": {...} }`: the tools of an upstream MCP server, as `<name>.<tool>`. */
export interface McpSourceConfig {
  kind: 'mcp';
  /** The namespace of the source's tools: a letter, then letters, digits, `_` or `-`; at most 32 characters. */
  name: string;
  /** How to reach the server. */
  mcp: McpStdioConfig | McpHttpConfig;
  /** Per-call time limit for this source's tools, in milliseconds. @default the config's `defaultTimeoutMs` */
  timeoutMs: number | undefined;
  /** Time limit for connecting (spawn, initialize, first tools/list), in milliseconds. @default 30000 */
  connectTimeoutMs: number;
}

/** `{ "name": "pets", "openapi": {...} }`: the operations of an OpenAPI 3.0/3.1 service, as `<name>.<operationId>`. */
export interface OpenApiSourceConfig {
  kind: 'openapi';
  /** The namespace of the source's tools: a letter, then letters, digits, `_` or `-`; at most 32 characters. */
  name: string;
  openapi: {
    /** The OpenAPI document (JSON): an `http(s):` URL, or an absolute path (a relative one was resolved against the config's directory). */
    spec: string;
    /** The URL operation paths are appended to. @default the document's `servers[0].url` */
    baseUrl: string | undefined;
    /**
     * Headers of every request (for example `Authorization`). `${VAR}` in a value is replaced by
     * this process's variable VAR when the source loads (`$${` is a literal `${`). @default {}
     */
    headers: Record<string, string>;
    /** Per-call time limit of this source's tools, in milliseconds. @default the config's `defaultTimeoutMs` */
    timeoutMs: number | undefined;
    /** Most bytes of a response body; more fails the call with LIMIT_EXCEEDED. @default 1048576 */
    maxResponseBytes: number | undefined;
    /** Only these operationIds become tools. @default all */
    operations: string[] | undefined;
  };
}

/** One entry of `sources`. */
export type SourceConfig =
  BuiltinSourceConfig | ModuleSourceConfig | McpSourceConfig | OpenApiSourceConfig;

/** Per-run resource limits. Unset keys take the runtime's defaults. */
export interface LimitsConfig {
  /** Isolate heap limit in MB. */
  memoryMb?: number | undefined;
  /** CPU time a program may use, in milliseconds. */
  cpuMs?: number | undefined;
  /** Wall-clock time of a run, in milliseconds. */
  wallMs?: number | undefined;
  /** Most bytes of console output kept per run. */
  maxLogBytes?: number | undefined;
  /** Largest result of a run, in bytes of JSON. */
  maxResultBytes?: number | undefined;
  /** Most nested tool calls per run. */
  maxCalls?: number | undefined;
  /** Most nested tool calls in flight at once per run. */
  maxCallsInFlight?: number | undefined;
  /** Most nested tool calls of a run waiting for an in-flight slot. */
  maxQueuedCalls?: number | undefined;
  /** Most characters of JSON arguments of a run's waiting calls together. */
  maxQueuedBytes?: number | undefined;
  /** Host time a run may cause through its tool calls, in milliseconds (kind `host-limit`). */
  hostMs?: number | undefined;
}

/** Sandbox worker processes: the runtime's own options (unset keys take its defaults). */
export type WorkersConfig = WorkerPoolOptions;

/** Admission control: the runtime's own options (unset keys take its defaults). */
export type AdmissionConfig = AdmissionOptions;

/** A scope: which tools a caller sees and how they are presented. */
export interface ScopeConfig {
  /** A scope whose tools, mode and limits this one starts from. */
  parent: string | undefined;
  /** Tool-name patterns (`*` matches any run of characters) this scope may use. @default all of the parent's (or all) tools */
  allow: string[] | undefined;
  /** Tool-name patterns removed after `allow`. @default [] */
  deny: string[] | undefined;
  /** Tool-name patterns whose calls wait for a human's approval (durable runs' approvals, or the library's approver). @default [] */
  ask: string[] | undefined;
  /** Presentation mode. @default the parent's mode; a scope with no parent gets "code" */
  mode: PresentationMode | undefined;
  /** Limits overriding the top-level `limits` (and the parent's). @default {} */
  limits: LimitsConfig | undefined;
}

/** Where audit records go. */
export interface AuditConfig {
  /** A JSON Lines file, appended to. Absolute. */
  path: string;
}

/**
 * The run store of durable runs (`/v1/runs`, approvals that wait). `isocode serve` without a
 * `store` section uses an in-memory embedded store; `"store": false` turns durable runs off.
 * `{}` is an in-memory embedded store; `path` an embedded store on disk; `url` / `urlEnv` a
 * PostgreSQL server shared by replicas.
 */
export interface StoreConfig {
  /** `postgres://…` (prefer `urlEnv` when it holds a password). */
  url: string | undefined;
  /** An environment variable holding the PostgreSQL url, read at start. */
  urlEnv: string | undefined;
  /** A data directory for the embedded store. Absolute. */
  path: string | undefined;
  /** The schema of the tables. @default "isocode" */
  schema: string | undefined;
  /** How long a parked approval waits for a human. @default 86400000 */
  approvalTimeoutMs: number | undefined;
  /** This process's replica id: the owner of the runs it holds. @default `<hostname>-<pid>-<random>` */
  replicaId: string | undefined;
  /** How long a run's lease lasts without renewal; a dead replica's runs are picked up after it. @default 15000 */
  leaseMs: number | undefined;
  /**
   * How long every live call of a run must wait for a human before the run is parked (its sandbox
   * and slot given back; a decision resumes it by replay on any replica); `false` never parks. @default 3000
   */
  parkAfterMs: number | false | undefined;
  /** Runs queued in one scope; one more `POST /v1/runs` is 429 QUOTA_EXCEEDED. @default 1000 */
  maxQueuedRunsPerScope: number | undefined;
  /** Bytes one scope's runs may hold in the store; past it `POST /v1/runs` is 429 QUOTA_EXCEEDED. @default 1073741824 */
  maxStoredBytesPerScope: number | undefined;
  /** How long settled runs are kept before the sweeper deletes them; `false` keeps them. @default 604800000 (7 days) */
  retentionMs: number | false | undefined;
}

/** An API key given literally in the config. */
export interface LiteralApiKeyConfig {
  /** The bearer token. */
  key: string;
  /** The scope a request with this key runs in. */
  scope: string;
  /** Who holds the key (a person or a system): named as the decider of approvals and in the audit. @default none */
  name?: string | undefined;
}

/** An API key read from an environment variable when the server starts. */
export interface EnvApiKeyConfig {
  /** The environment variable holding the bearer token. */
  keyEnv: string;
  /** The scope a request with this key runs in. */
  scope: string;
  /** See {@link LiteralApiKeyConfig.name}. */
  name?: string | undefined;
}

/** One API key of the HTTP service. */
export type ApiKeyConfig = LiteralApiKeyConfig | EnvApiKeyConfig;

/** The MCP server face (`isocode mcp`). */
export interface McpFaceConfig {
  /**
   * Approvals by elicitation: a client that declared the `elicitation` capability is asked for
   * its calls' approvals directly. `false` keeps the runtime's approver for every client (with a
   * `store`, their run_code programs run as durable runs whose asks wait over HTTP).
   * @default true
   */
  elicitation: boolean;
}

/** The HTTP service (`isocode serve`). */
export interface ServerConfig {
  /** Interface to bind. @default "127.0.0.1" */
  host: string;
  /** TCP port (0: any free port). @default 8787 */
  port: number;
  /** Bearer keys, each bound to a scope. @default [] */
  apiKeys: ApiKeyConfig[];
  /** Largest request body, in bytes. @default 1048576 */
  maxBodyBytes: number;
  /** The web console at `/console` (`isocode serve --console` turns it on too). @default undefined (off) */
  console: { enabled: boolean } | undefined;
}

/** A validated isocode configuration. */
export interface IsocodeConfig {
  /** Absolute path of the file read; undefined when no file was used. */
  configPath: string | undefined;
  /** The directory relative paths were resolved against. */
  baseDir: string;
  /** Where tools come from, in order. @default [{ kind: "builtin", builtin: "demo" }] */
  sources: SourceConfig[];
  /** The scope of callers that name none. @default "default" */
  defaultScope: string;
  /** Scopes by name. @default { [defaultScope]: { mode: "code" } } */
  scopes: Record<string, ScopeConfig>;
  /** Per-run limits for every scope. @default {} (the runtime's defaults) */
  limits: LimitsConfig;
  /** Type errors in programs: fail the run, report them as warnings, or skip checking. @default "error" */
  typecheck: TypecheckMode;
  /**
   * Output inference for tools without output schemas: `false`, or the directory (absolute) where
   * inferred schemas persist. @default false (`true` in the file: "<config dir>/.isocode/inferred")
   */
  inferOutputs: { dir: string } | false;
  /** Discovery for large catalogs. @default {} (auto above 16000 tokens) */
  discovery: {
    mode?: 'auto' | 'always' | 'never' | undefined;
    thresholdTokens?: number | undefined;
  };
  /** Where programs run: supervised sandbox worker processes, or (trusted programs only) this process. @default "process" */
  sandbox: 'process' | 'in-process';
  /**
   * The second wall around the sandbox workers and the checker: bubblewrap where it works (`auto`,
   * else a warning and the wall reported off), required (`bwrap`), or off (`none`). Decision record
   * 032. @default "auto"
   */
  wall: 'auto' | 'bwrap' | 'none';
  /** Sandbox worker processes. @default {} (the runtime's defaults) */
  workers: WorkersConfig;
  /** Runs at once and waiting, overall and per scope. @default {} (the runtime's defaults) */
  admission: AdmissionConfig;
  /** Most nested calls of one program running in parallel. @default 10 */
  maxParallelSubCalls: number;
  /** Per-call time limit of tools that set none, in milliseconds. @default 60000 */
  defaultTimeoutMs: number;
  /** Audit log. @default undefined (no audit file) */
  audit: AuditConfig | undefined;
  /**
   * Durable runs' store: `false` turns them off; undefined leaves the choice to the face
   * (`isocode serve` opens an in-memory embedded store; the one-shot CLI opens none).
   */
  store: StoreConfig | false | undefined;
  /** The MCP server face (`isocode mcp`). @default { elicitation: true } */
  mcp: McpFaceConfig;
  /** The HTTP service. */
  server: ServerConfig;
}
