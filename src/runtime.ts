/**
 * The runtime: tools, scopes, the executor and code mode in one object. This is what the
 * library, the CLI, the HTTP service and the MCP server are built on.
 */
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { Approver } from './executor/approval.js';
import { Emitter } from './events/emitter.js';
import {
  createAuditSink,
  type AuditOptions,
  type AuditSink,
  type EventBus,
  type EventListener,
} from './executor/events.js';
import { Executor, type ExecutorOptions } from './executor/executor.js';
import type { ExecuteOptions, Hooks, ToolCall, ToolResult } from './executor/types.js';
import type { JsonValue } from './json.js';
import {
  createIsolateRunner,
  type IsolateRunner,
  type IsolateRunnerOptions,
} from './run-code/isolate-runner.js';
import {
  OutputInference,
  type InferenceStats,
  type InferOutputsOptions,
} from './infer/inference.js';
import { LedgerBook } from './run-code/ledger.js';
import { ScopeSdkCache } from './run-code/scope-sdk.js';
import { createRunCodeTool } from './run-code/tool.js';
import { renderInstructions, type RenderedSdk } from './sdk/index.js';
import { RUN_CODE } from './tools/names.js';
import type { CodeRunner, ProgramDiagnostic, RunProgressEvent } from './run-code/types.js';
import { IsocodeError, isIsocodeError } from './errors.js';
import {
  DESCRIBE_TOOL,
  discoveryToolSchemas,
  ScopeDiscovery,
  SEARCH_TOOLS,
  type DescribeToolsResult,
  type DiscoveryOptions,
  type DiscoveryStatus,
  type SearchToolsResult,
} from './discovery/index.js';
import { errorContent } from './executor/outcome.js';
import { ToolRegistry } from './tools/registry.js';
import { invalidArgsMessage } from './tools/schema.js';
import { DEFAULT_SCOPE, type ScopeConfig } from './tools/scopes.js';
import type { PresentationMode, ToolDefinition, ToolSchema } from './tools/types.js';
import {
  toWireFormat,
  type AnthropicTool,
  type McpTool,
  type OpenAiTool,
  type WireFormat,
} from './tools/wire.js';
import { wireNameTable, type WireNameTable } from './tools/wire-names.js';

/** Code-mode options. */
export interface CodeModeOptions extends IsolateRunnerOptions {
  /** Runs programs. @default the isolate runner (type-check, transpile, isolated-vm) */
  runner?: CodeRunner | undefined;
  /**
   * Start the checker process and the isolate pool in `createRuntime`, so the first run does not pay for it.
   * @default true when a declared scope is in `code` or `both` mode
   */
  warmup?: boolean | undefined;
  /** The largest program accepted, in characters. @default 100000 */
  maxCodeChars?: number | undefined;
  /** Time limit of a whole run_code call (a backstop above the sandbox limits). @default 120000 */
  timeoutMs?: number | undefined;
  /**
   * Output inference: results of tools without an output schema are folded into inferred types
   * that the SDK shows, marked as inferred (never used to validate). `true` uses the defaults.
   * @default false
   */
  inferOutputs?: boolean | InferOutputsOptions | undefined;
  /**
   * Discovery for large catalogs: above a token threshold, run_code's description shows a compact
   * index and the model gets `search_tools` and `describe_tool` (docs/decisions/019).
   * @default { mode: "auto", thresholdTokens: 16000 }
   */
  discovery?: DiscoveryOptions | undefined;
  /**
   * The savings ledger (`meta.savings` of each run_code result: tokens shown vs the JSON wire,
   * nested results kept out of the context). Counting loads a tokenizer (~0.2–0.7 s, once per
   * process) and tokenizes each run's results; `false` skips both (the one-shot CLI does, unless
   * `--json` prints the result whole).
   * @default true
   */
  savings?: boolean | undefined;
}

/** Options of {@link createRuntime}. */
export interface RuntimeOptions extends Omit<ExecutorOptions, 'hooks'> {
  /** The tools. More can be registered later with `register`. */
  tools?: Iterable<ToolDefinition> | undefined;
  /** Scope declarations by id; "default" always exists (mode "native" unless declared). */
  scopes?: Record<string, ScopeConfig> | undefined;
  /** Hooks installed from the start. */
  hooks?: Hooks | undefined;
  /** Resolves pre-execute `ask` decisions; without one every ask is denied. */
  approver?: Approver | undefined;
  /** A JSON-lines audit log of every event. @default off */
  audit?: AuditOptions | undefined;
  /** An event listener installed from the start. */
  onEvent?: EventListener | undefined;
  /** Code mode (the run_code tool); `false` removes run_code entirely. @default the isolate runner */
  codeMode?: CodeModeOptions | false | undefined;
  /** Rewrites the system-prompt sections of a scope (replace, drop or add sections). */
  systemPrompt?: ((sections: PromptSection[], scope: string) => PromptSection[]) | undefined;
}

/** A named system-prompt section. */
export interface PromptSection {
  /** `tools:code-only` or `tools:sdk` (or a name a hook added). */
  id: string;
  text: string;
}

/** A runtime. */
export interface Runtime {
  /**
   * Executes a call through the full pipeline. Never rejects. The name may be the tool's name or
   * its provider wire name (as `wireTools('openai' | 'anthropic')` shows it in the call's scope).
   */
  execute(call: ToolCall, options?: ExecuteOptions): Promise<ToolResult>;
  /** The full visible catalog of a scope (never collapsed by mode). */
  schemas(scope?: string): ToolSchema[];
  /**
   * What the scope's model is shown, as catalog entries. In compact mode (see `discovery`), run_code
   * carries the compact index and `search_tools` and `describe_tool` follow it; `discovery`
   * overrides the runtime's `codeMode.discovery` for this listing.
   */
  wireSchemas(scope?: string, discovery?: DiscoveryOptions): ToolSchema[];
  /** What the scope's model is shown, in a wire format (see `wireSchemas`). */
  wireTools(format: 'openai', scope?: string, discovery?: DiscoveryOptions): OpenAiTool[];
  wireTools(format: 'anthropic', scope?: string, discovery?: DiscoveryOptions): AnthropicTool[];
  wireTools(format: 'mcp', scope?: string, discovery?: DiscoveryOptions): McpTool[];
  wireTools(
    format: WireFormat,
    scope?: string,
    discovery?: DiscoveryOptions,
  ): OpenAiTool[] | AnthropicTool[] | McpTool[];
  /** The scope's presentation mode. */
  mode(scope?: string): PresentationMode;
  /** Registers more tools. */
  register(tools: Iterable<ToolDefinition>): void;
  /**
   * Removes and adds tools atomically (for example when an upstream server's catalog changed).
   * Calls already running keep the definition they started with; the SDK follows on the next run.
   */
  updateTools(change: {
    remove?: Iterable<string> | undefined;
    add?: Iterable<ToolDefinition> | undefined;
  }): void;
  /** Called after the tool catalog changed (register or updateTools); returns the unsubscribe function. */
  onToolsChanged(listener: () => void): () => void;
  /**
   * Checks run_code arguments (`{ code, description }`) against run_code's own input schema, as the
   * executor would, without running anything: the INVALID_ARGS error the call would fail with, or
   * undefined (also when the scope shows no run_code). Durable runs check before they are stored.
   */
  checkRunCodeArgs(args: unknown, scope?: string): IsocodeError | undefined;
  /** Declares or replaces a scope. */
  defineScope(id: string, config: ScopeConfig): void;
  /** Installs hooks; returns a function that removes them. */
  use(hooks: Hooks): () => void;
  /** Subscribes to executor events; returns the unsubscribe function. */
  on(listener: EventListener): () => void;
  /** The TypeScript SDK of a scope's visible tools (text, hash, bindings, warnings). */
  sdk(scope?: string): RenderedSdk;
  /**
   * run_code's description in a scope, in parts for a face to compose: `base` (what run_code is),
   * `instructions` (how to write a program) and `sdk` (the scope's SDK). `wireTools` composes them
   * as `base`, a blank line, the instructions, then the SDK in a ```ts block (the `tools:sdk`
   * prompt section). Undefined when the scope does not show run_code.
   */
  runCodeDescription(
    scope?: string,
  ): { base: string; instructions: string; sdk: RenderedSdk } | undefined;
  /**
   * The system-prompt sections of a scope, in order: `tools:code-only` (under `code`: only run_code may be
   * called directly; empty under `both`; absent under `native`) and `tools:sdk` (instructions and SDK;
   * under `code` and `both`).
   */
  systemPrompt(scope?: string): PromptSection[];
  /**
   * Type-checks a run_code program against the scope's SDK without running it.
   * @returns the diagnostics in program coordinates (empty when the program is well typed).
   * @throws IsocodeError INVALID_CONFIG when code mode is off.
   */
  check(code: string, scope?: string, signal?: AbortSignal): Promise<ProgramDiagnostic[]>;
  /**
   * Whether a `code`-mode scope shows the compact index (discovery) instead of the full SDK, and the
   * measured figures; `override` replaces the runtime's `codeMode.discovery` (a face's own setting).
   * Undefined when the scope is not in `code` mode or code mode is off.
   */
  discovery(scope?: string, override?: DiscoveryOptions): DiscoveryStatus | undefined;
  /**
   * Searches the tools of a scope's SDK by keywords (names count most); says how many matched of
   * how many exist. `execute({ name: 'search_tools', args: { query, limit? } })` answers the same.
   * @throws IsocodeError INVALID_ARGS for a query over 200 characters or a limit outside 1–50.
   */
  searchTools(query: string, scope?: string, limit?: number): SearchToolsResult;
  /**
   * The TypeScript declarations of tools of a scope's SDK, by name or binding (at most 20).
   * @throws IsocodeError INVALID_ARGS for a bad list, UNKNOWN_TOOL when none exists.
   */
  describeTools(names: readonly string[], scope?: string): DescribeToolsResult;
  /** Counters: isolates, checker, live runs. */
  stats(): RuntimeStats;
  /** Subscribes to run_code progress (logs, nested calls) by run_code call id. */
  onProgress(listener: (callId: string, event: RunProgressEvent) => void): () => void;
  /** Releases isolates, the checker process and the audit sink. Idempotent. */
  close(): Promise<void>;
}

/** Counters of a runtime. */
export interface RuntimeStats {
  /** run_code executions in progress (live parent tokens). */
  liveRuns: number;
  /** Event listener calls that threw or rejected (contained). */
  eventListenerFailures: number;
  /** Isolate pool and checker counters of the default runner. */
  runner: ReturnType<IsolateRunner['stats']> | undefined;
  /** Output inference counters (results folded, dropped, schema changes); undefined when off. */
  inference?: InferenceStats | undefined;
}

const CODE_ONLY_SECTION =
  'In this session you can call exactly one tool directly: `run_code`. Every other tool is reachable only from inside a run_code program, through the typed `tools` SDK described below; a direct call to any other tool name fails with UNKNOWN_TOOL.';

/** Creates a runtime. */
export async function createRuntime(options: RuntimeOptions = {}): Promise<Runtime> {
  const registry = new ToolRegistry();
  if (options.tools) registry.register(options.tools);
  registry.defineScopes(options.scopes ?? {});

  const events: EventBus = new Emitter();
  let audit: AuditSink | undefined;
  if (options.audit) {
    audit = createAuditSink(options.audit);
    events.on(audit.listener);
  }
  if (options.onEvent) events.on(options.onEvent);
  const executor = new Executor(registry, events, options);
  // A scope's `ask` patterns are one more pre-execute rule: the call waits for the approver.
  executor.use({
    preExecute: ({ call }) => {
      const by = registry.askingScope(call.scope, call.name);
      return by === undefined
        ? undefined
        : { action: 'ask', message: `scope "${by}" asks a human before ${call.name} runs` };
    },
  });

  const progress = new Emitter<[callId: string, event: RunProgressEvent]>();
  const codeMode = options.codeMode === false ? undefined : (options.codeMode ?? {});
  const catalog = new Emitter<[]>(); // a listener's failure is its own
  const infer = codeMode?.inferOutputs;
  // A changed inferred type re-renders the SDKs that show it: tell the faces, as for a new catalog.
  const inference = infer
    ? new OutputInference(infer === true ? {} : infer, () => catalog.emit())
    : undefined;
  const sdks = new ScopeSdkCache(registry, inference);
  const runner = codeMode ? (codeMode.runner ?? createIsolateRunner(codeMode)) : undefined;
  const ledgers = new LedgerBook();
  if (runner && codeMode) {
    registry.setTransport(
      createRunCodeTool({
        runner: ledgers.wrap(runner, {
          measure: codeMode.savings ?? true,
          catalogTokens: (scope) => discovery.catalogTokens(scope),
          onNestedResult: inference
            ? (scope, name, r) =>
                inference.observe(
                  () => registry.schemas(scope).find((t) => t.name === name),
                  r.value,
                )
            : undefined,
        }),
        executor,
        sdkFor: (scope) => sdks.sdk(scope),
        maxCodeChars: codeMode.maxCodeChars,
        timeoutMs: codeMode.timeoutMs,
        onProgress: (callId, event) => progress.emit(callId, event), // a listener never breaks a run
      }),
    );
    const codeScopes = registry.scopeIds().filter((id) => registry.mode(id) !== 'native');
    // Start the checker and the isolate pool now, and compile the SDKs of code-mode scopes (distinct texts only).
    if (codeMode.warmup ?? codeScopes.length > 0) {
      const distinct = new Map(codeScopes.map((id) => sdks.sdk(id)).map((sdk) => [sdk.hash, sdk]));
      await runner.warmup?.([...distinct.values()]);
    }
  }

  const sections = (scope: string): PromptSection[] => {
    const mode = registry.mode(scope);
    if (mode === 'native' || !runner) return [];
    const out: PromptSection[] = [
      {
        id: 'tools:code-only',
        text: mode === 'code' ? CODE_ONLY_SECTION : '',
      },
      { id: 'tools:sdk', text: prompt(scope) },
    ];
    return options.systemPrompt ? options.systemPrompt(out, scope) : out;
  };

  const runCodeBase = (scope: string): string | undefined =>
    registry.wireSchemas(scope).find((t) => t.name === RUN_CODE)?.description;
  const discovery = new ScopeDiscovery(
    {
      catalog: (scope) => sdks.catalog(scope),
      sdk: (scope) => sdks.sdk(scope),
      fullDescription: (scope) => `${runCodeBase(scope) ?? ''}\n\n${sdks.prompt(scope)}`,
      parts: (scope) => ({ base: runCodeBase(scope) ?? '', instructions: renderInstructions() }),
    },
    codeMode ? codeMode.discovery : undefined,
  );
  const discoveryStatus = (
    scope: string,
    override?: DiscoveryOptions,
  ): DiscoveryStatus | undefined =>
    runner && registry.mode(scope) === 'code' ? discovery.status(scope, override) : undefined;
  const compact = (scope: string): boolean => discoveryStatus(scope)?.compact === true;
  // What the model reads about the SDK: the instructions and the SDK, or the compact index.
  const prompt = (scope: string): string =>
    compact(scope) ? discovery.compactDescription(scope, false) : sdks.prompt(scope);

  // The run_code entry on the wire carries the scope's instructions and SDK in its description;
  // in compact mode, the compact index, followed by the two discovery helpers.
  const wire = (scope: string, override?: DiscoveryOptions): ToolSchema[] => {
    const small = discoveryStatus(scope, override)?.compact === true;
    const list = registry
      .wireSchemas(scope)
      .map((t) =>
        t.name !== RUN_CODE
          ? t
          : small
            ? { ...t, description: discovery.compactDescription(scope) }
            : { ...t, description: `${t.description}\n\n${sdks.prompt(scope)}` },
      );
    return small ? [...list, ...discoveryToolSchemas()] : list;
  };
  const runCodeDescription = (scope: string): ReturnType<Runtime['runCodeDescription']> => {
    const base = runCodeBase(scope);
    return base === undefined
      ? undefined
      : { base, instructions: renderInstructions(), sdk: sdks.sdk(scope) };
  };
  // search_tools and describe_tool, answered in every code-mode scope (listed only when compact).
  const helperCall = (call: ToolCall, scope: string): ToolResult | undefined => {
    if (call.name !== SEARCH_TOOLS && call.name !== DESCRIBE_TOOL) return undefined;
    if (!runner || !registry.hasScope(scope) || registry.mode(scope) !== 'code') return undefined;
    const started = performance.now();
    const meta = (): ToolResult['meta'] => ({
      callId: typeof call.id === 'string' && call.id !== '' ? call.id : randomUUID(),
      toolName: call.name,
      scope,
      parentId: undefined,
      durationMs: performance.now() - started,
      stages: ['create', 'validate', 'execute', 'finalize'],
    });
    try {
      const { value, text } = discovery.call(scope, call.name, call.args);
      return {
        ok: true,
        value: value as unknown as JsonValue,
        content: [{ type: 'text', text }],
        meta: meta(),
      };
    } catch (err) {
      if (!isIsocodeError(err)) throw err;
      const error = {
        code: err.code,
        message: err.message,
        ...(err.details === undefined ? {} : { details: err.details }),
      };
      return { ok: false, error, content: errorContent(error), meta: meta() };
    }
  };

  // Provider wire names back to tool names, per scope, rebuilt when the catalog changed.
  const wireNames = new Map<string, { version: number; table: WireNameTable }>();
  const toolCall = (call: ToolCall, scope: unknown): ToolCall => {
    if (typeof call !== 'object' || call === null || typeof call.name !== 'string') return call;
    if (typeof scope !== 'string') return call;
    let entry = wireNames.get(scope);
    if (entry?.version !== registry.version) {
      if (!registry.hasScope(scope)) return call;
      entry = {
        version: registry.version,
        table: wireNameTable(registry.wireSchemas(scope).map((t) => t.name)),
      };
      wireNames.set(scope, entry);
    }
    const name = entry.table.fromWire(call.name);
    return name === undefined || name === call.name ? call : { ...call, name };
  };

  let closed: Promise<void> | undefined;
  const runtime: Runtime = {
    execute: (call, opts) => {
      const scope = opts?.scope ?? DEFAULT_SCOPE;
      const helper =
        opts?.parent === undefined && typeof call === 'object' && call !== null
          ? helperCall(call, scope)
          : undefined;
      if (helper) return Promise.resolve(helper);
      return executor.execute(toolCall(call, scope), opts).then((r) => {
        const savings = r.meta.toolName === RUN_CODE ? ledgers.take(r.meta.callId) : undefined;
        if (savings) r.meta.savings = savings;
        return r;
      });
    },
    schemas: (scope = DEFAULT_SCOPE) => registry.schemas(scope),
    checkRunCodeArgs: (args, scope = DEFAULT_SCOPE) => {
      const target = registry.resolveExecution(RUN_CODE, scope, false);
      if (target.kind !== 'transport') return undefined;
      const valid = target.tool.validateInput(args);
      return valid.ok
        ? undefined
        : new IsocodeError('INVALID_ARGS', invalidArgsMessage(RUN_CODE, valid.issues), {
            details: { issues: valid.issues },
          });
    },
    wireSchemas: (scope = DEFAULT_SCOPE, override) => wire(scope, override),
    wireTools: ((format: WireFormat, scope = DEFAULT_SCOPE, override?: DiscoveryOptions) =>
      toWireFormat(wire(scope, override), format)) as Runtime['wireTools'],
    sdk: (scope = DEFAULT_SCOPE) => sdks.sdk(scope),
    runCodeDescription: (scope = DEFAULT_SCOPE) => runCodeDescription(scope),
    systemPrompt: (scope = DEFAULT_SCOPE) => sections(scope),
    check: async (code, scope = DEFAULT_SCOPE, signal) => {
      if (!runner?.check)
        throw new IsocodeError(
          'INVALID_CONFIG',
          'code mode is off in this runtime: nothing to check against',
        );
      return runner.check(code, sdks.sdk(scope), signal, scope);
    },
    discovery: (scope = DEFAULT_SCOPE, override) => discoveryStatus(scope, override),
    searchTools: (query, scope = DEFAULT_SCOPE, limit) => discovery.search(scope, query, limit),
    describeTools: (names, scope = DEFAULT_SCOPE) => discovery.describe(scope, names),
    stats: () => ({
      ...(inference ? { inference: inference.stats() } : {}),
      liveRuns: executor.liveParents,
      eventListenerFailures: events.failures,
      runner:
        runner && 'stats' in runner && typeof runner.stats === 'function'
          ? (runner as IsolateRunner).stats()
          : undefined,
    }),
    mode: (scope = DEFAULT_SCOPE) => registry.mode(scope),
    register: (tools) => {
      registry.register(tools);
      catalog.emit();
    },
    updateTools: ({ remove = [], add = [] }) => {
      registry.update(remove, add);
      catalog.emit();
    },
    onToolsChanged: (listener) => catalog.on(listener),
    defineScope: (id, config) => registry.defineScope(id, config),
    use: (hooks) => executor.use(hooks),
    on: (listener) => events.on(listener),
    onProgress: (listener) => progress.on(listener),
    close: () =>
      (closed ??= (async () => {
        await inference?.close();
        await runner?.close?.();
        await audit?.close();
      })()),
  };
  return runtime;
}
