/**
 * The runtime's public types: its options (`RuntimeOptions`, `CodeModeOptions`), the `Runtime` object
 * every face is built on, and its stats. `createRuntime` (runtime.ts) implements them.
 */
import type { Approver } from './executor/approval.js';
import type { AuditOptions, EventListener } from './executor/events.js';
import type { ExecutorOptions } from './executor/executor.js';
import type { ExecuteOptions, Hooks, ToolCall, ToolResult } from './executor/types.js';
import type { IsolateRunner, IsolateRunnerOptions } from './run-code/isolate-runner.js';
import type { InferenceStats, InferOutputsOptions } from './infer/inference.js';
import type { RenderedSdk } from './sdk/index.js';
import type { CodeRunner, ProgramDiagnostic, RunProgressEvent } from './run-code/types.js';
import type { IsocodeError } from './errors.js';
import type {
  DescribeToolsResult,
  DiscoveryOptions,
  DiscoveryStatus,
  SearchToolsResult,
} from './discovery/index.js';
import type { ScopeConfig } from './tools/scopes.js';
import type { PresentationMode, ToolDefinition, ToolSchema } from './tools/types.js';
import type {
  AnthropicTool,
  McpTool,
  OpenAiResponsesTool,
  OpenAiTool,
  WireFormat,
} from './tools/wire.js';

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
   * its provider wire name (as `wireTools('openai' | 'openai-responses' | 'anthropic')` shows it in the call's scope).
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
  wireTools(
    format: 'openai-responses',
    scope?: string,
    discovery?: DiscoveryOptions,
  ): OpenAiResponsesTool[];
  wireTools(format: 'anthropic', scope?: string, discovery?: DiscoveryOptions): AnthropicTool[];
  wireTools(format: 'mcp', scope?: string, discovery?: DiscoveryOptions): McpTool[];
  wireTools(
    format: WireFormat,
    scope?: string,
    discovery?: DiscoveryOptions,
  ): OpenAiTool[] | OpenAiResponsesTool[] | AnthropicTool[] | McpTool[];
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
   * executor would, without running anything: the error the call would fail with (INVALID_ARGS, or
   * UNKNOWN_TOOL when the scope shows no run_code), or undefined. Durable runs check before they are
   * stored.
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
  /**
   * Subscribes to run_code progress (logs, nested calls) by run_code call id. Subscribe before the
   * run starts: a nested call's `call-start` and `call-end` go to those listening as the call starts
   * (both, or neither; with nobody listening they are not built at all).
   */
  onProgress(listener: (callId: string, event: RunProgressEvent) => void): () => void;
  /**
   * A run slot of `scope` if admission has one free now, without waiting: its release function
   * (call it once), or undefined. Durable runs take their slot this way before they claim a run from
   * the store. A runtime whose runner has no admission always gives one.
   */
  reserveRun(scope?: string): Promise<(() => void) | undefined>;
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
