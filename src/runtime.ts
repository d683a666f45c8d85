/**
 * The runtime: tools, scopes, the executor and code mode in one object. This is what the
 * library, the CLI, the HTTP service and the MCP server are built on.
 */
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { Emitter } from './events/emitter.js';
import { createAuditSink, type AuditSink, type EventBus } from './executor/events.js';
import { Executor } from './executor/executor.js';
import type { ToolCall, ToolResult } from './executor/types.js';
import type { JsonValue } from './json.js';
import { createIsolateRunner, type IsolateRunner } from './run-code/isolate-runner.js';
import { OutputInference } from './infer/inference.js';
import { LedgerBook } from './run-code/ledger.js';
import { ScopeSdkCache } from './run-code/scope-sdk.js';
import { createRunCodeTool } from './run-code/tool.js';
import { renderInstructions } from './sdk/index.js';
import { RUN_CODE } from './tools/names.js';
import type { RunProgressEvent } from './run-code/types.js';
import { IsocodeError, isIsocodeError } from './errors.js';
import {
  DESCRIBE_TOOL,
  discoveryToolSchemas,
  ScopeDiscovery,
  SEARCH_TOOLS,
  type DiscoveryOptions,
  type DiscoveryStatus,
} from './discovery/index.js';
import { errorContent } from './executor/outcome.js';
import { ToolRegistry } from './tools/registry.js';
import { invalidArgsMessage } from './tools/schema.js';
import { DEFAULT_SCOPE } from './tools/scopes.js';
import type { ToolSchema } from './tools/types.js';
import { toWireFormat, type WireFormat } from './tools/wire.js';
import { wireNameTable, type WireNameTable } from './tools/wire-names.js';
import type { PromptSection, Runtime, RuntimeOptions } from './runtime-types.js';

const CODE_ONLY_SECTION =
  'In this session you can call exactly one tool directly: `run_code`. Every other tool is reachable only from inside a run_code program, through the typed `tools` SDK described below; a direct call to any other tool name fails with UNKNOWN_TOOL.';

/** Creates a runtime. */
export async function createRuntime(options: RuntimeOptions = {}): Promise<Runtime> {
  const registry = new ToolRegistry();
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
  /** Closes what this runtime opened, in order (the audit sink last: it records to the end). */
  const closeOwned = async (): Promise<void> => {
    await inference?.close();
    await runner?.close?.();
    await audit?.close();
  };
  // The sandbox's processes start before the catalog is compiled: a worker process takes ~0.2 s to
  // start, and compiling the tools' schemas (~1 ms of this thread per JSON Schema) runs meanwhile
  // instead of before it (decision 034 §11). A catalog that fails to compile closes them again.
  const codeScopes = runner
    ? registry.scopeIds().filter((id) => registry.mode(id) !== 'native')
    : [];
  const warm = runner !== undefined && (codeMode?.warmup ?? codeScopes.length > 0);
  const processes = warm ? runner.warmup?.() : undefined;
  processes?.catch(() => undefined); // awaited below, once the catalog is compiled
  try {
    if (options.tools) registry.register(options.tools);
  } catch (error) {
    await closeOwned().catch(() => undefined);
    throw error;
  }
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
        progressListened: () => !progress.idle,
      }),
    );
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
  if (runner && codeMode) {
    // The checker compiles the SDKs of code-mode scopes (distinct texts only) while the sandbox starts.
    if (warm) {
      // One scope per distinct SDK text: the checker compiles each text once.
      const distinct = new Map(codeScopes.map((id) => [sdks.sdk(id).hash, id]));
      const started = Promise.all([
        processes,
        runner.warmup?.([...distinct.values()].map((id) => sdks.sdk(id))),
      ]);
      // While those processes start, this thread waits: count the catalog figures the savings ledger
      // reports (its first count loads the tokenizer, ~0.15 s of CPU), which the first run would pay;
      // once per distinct SDK (the other scopes' figures are counted at their first run).
      if (codeMode.savings ?? true) for (const id of distinct.values()) discovery.catalogTokens(id);
      try {
        await started;
      } catch (error) {
        // A runtime that cannot start leaves nothing running: its sandbox workers, checker and audit
        // file would otherwise keep the process alive with no handle to close them.
        await closeOwned().catch(() => undefined);
        throw error;
      }
    }
  }
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
      let target = call;
      try {
        const scope = opts?.scope ?? DEFAULT_SCOPE;
        const helper =
          opts?.parent === undefined && typeof call === 'object' && call !== null
            ? helperCall(call, scope)
            : undefined;
        if (helper) return Promise.resolve(helper);
        target = toolCall(call, scope);
      } catch {
        // A call or options that cannot be read: the executor's own reading refuses them.
      }
      return executor.execute(target, opts).then((r) => {
        const savings = r.meta.toolName === RUN_CODE ? ledgers.take(r.meta.callId) : undefined;
        if (savings) r.meta.savings = savings;
        return r;
      });
    },
    schemas: (scope = DEFAULT_SCOPE) => registry.schemas(scope),
    checkRunCodeArgs: (args, scope = DEFAULT_SCOPE) => {
      const target = registry.resolveExecution(RUN_CODE, scope, false);
      // Where run_code does not resolve, the executor's own refusal (before anything is stored).
      if (target.kind !== 'transport')
        return new IsocodeError('UNKNOWN_TOOL', `unknown tool "${RUN_CODE}" in scope "${scope}"`);
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
    reserveRun: (scope = DEFAULT_SCOPE) =>
      runner?.reserve ? runner.reserve(scope) : Promise.resolve(() => undefined),
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
    close: () => (closed ??= closeOwned()),
  };
  return runtime;
}
