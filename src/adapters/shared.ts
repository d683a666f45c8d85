/**
 * What the framework adapters (`isocode/ai`, `isocode/openai-agents`, `isocode/langchain`) share:
 * the tools a scope shows a model (under provider-safe wire names), one call through the runtime
 * read as the text a model gets, the approval hook that carries a framework tool's own "needs
 * approval" rule into isocode's pipeline, and a run's progress as an async stream.
 */
import { randomUUID } from 'node:crypto';
import { IsocodeError, type ErrorCode } from '../errors.js';
import type { Approver } from '../executor/approval.js';
import type { Hooks } from '../executor/types.js';
import type { JsonValue } from '../json.js';
import { resultText } from '../providers/content.js';
import type { RunProgressEvent } from '../run-code/types.js';
import type { Runtime } from '../runtime-types.js';
import { isValidToolName } from '../tools/names.js';
import type { JsonSchema, SchemaLike, ToolDefinition } from '../tools/types.js';

/** Tools converted from a framework: register `tools` and install `hooks` (approvals) together. */
export interface ImportedTools {
  tools: ToolDefinition[];
  /** Asks isocode's approver before the calls the framework definitions say need approval. */
  hooks: Hooks;
}

/** Options of every `from…Tools` import. */
export interface ImportOptions {
  /** Prefix of the isocode names (`weather` → `weather.get_forecast`), grouping them in the SDK. */
  namespace?: string | undefined;
}

/** Options of every adapter that shows a runtime's tools to a framework. */
export interface ExportOptions {
  /** The scope whose tools are shown and in which calls run. @default "default" */
  scope?: string | undefined;
  /** Resolves the `ask` decisions of the programs' nested calls. @default the runtime's approver */
  approver?: Approver | undefined;
}

/** A call's outcome as an adapter hands it to a framework. */
export type CallOutcome =
  { ok: true; text: string; value: JsonValue } | { ok: false; text: string; code: ErrorCode };

/** One tool a scope shows its model: its provider-safe wire name, description and input schema. */
export interface WireEntry {
  name: string;
  description: string;
  parameters: JsonSchema;
}

/**
 * The tools `scope` shows its model (run_code, discovery tools, native tools in `both` mode). The
 * schemas are plain JSON copies: a schema exported from zod carries a hidden `~standard` marker
 * that frameworks read as "a Standard Schema" (the Agents SDK then refuses it without strict mode).
 */
export function wireEntries(runtime: Runtime, scope: string | undefined): WireEntry[] {
  return runtime.wireTools('openai', scope).map((t) => ({
    name: t.function.name,
    description: t.function.description,
    parameters: JSON.parse(JSON.stringify(t.function.parameters)) as JsonSchema,
  }));
}

/** The isocode name of an imported framework tool. @throws IsocodeError INVALID_TOOL_DEFINITION */
export function importedName(key: string, options: ImportOptions, framework: string): string {
  const name = options.namespace === undefined ? key : `${options.namespace}.${key}`;
  const shown = name;
  if (!isValidToolName(name))
    throw new IsocodeError(
      'INVALID_TOOL_DEFINITION',
      `the ${framework} tool "${key}" cannot be named "${shown}" in isocode (letters, digits, _, - and ., 1–64 characters, not run_code)`,
    );
  return name;
}

/** Decides whether a call with these (validated) arguments needs approval. */
export type ApprovalRule = (args: unknown, callId: string) => boolean | PromiseLike<boolean>;

/**
 * A pre-execute hook asking isocode's approver before each call whose rule says so. A rule that
 * throws asks too (fail closed).
 */
export function approvalHooks(rules: ReadonlyMap<string, ApprovalRule>, framework: string): Hooks {
  if (rules.size === 0) return {};
  return {
    preExecute: async ({ tool, call }) => {
      const rule = rules.get(tool.name);
      if (rule === undefined) return undefined;
      let ask: boolean;
      try {
        ask = await rule(call.args, call.id);
      } catch {
        ask = true;
      }
      return ask
        ? { action: 'ask', message: `${tool.name} needs approval (its ${framework} definition)` }
        : undefined;
    },
  };
}

/** Options of one call made for a framework. */
export interface CallOptions extends ExportOptions {
  signal?: AbortSignal | undefined;
  /** Receives the run's progress events (run_code). */
  onProgress?: ((event: RunProgressEvent) => void) | undefined;
}

/** Runs one call through the runtime's pipeline; never rejects. */
export async function callForModel(
  runtime: Runtime,
  name: string,
  args: unknown,
  options: CallOptions,
): Promise<CallOutcome> {
  const id = randomUUID();
  const listener = options.onProgress;
  const off =
    listener === undefined
      ? undefined
      : runtime.onProgress((callId, event) => {
          if (callId === id) listener(event);
        });
  try {
    const result = await runtime.execute(
      { name, args, id },
      { scope: options.scope, signal: options.signal, approver: options.approver },
    );
    const text = resultText(result);
    return result.ok
      ? { ok: true, text, value: result.value }
      : { ok: false, text, code: result.error.code };
  } finally {
    off?.();
  }
}

/** A progress event or the final outcome of one call, as {@link streamCall} yields them. */
export type StreamItem =
  { done: false; event: RunProgressEvent } | { done: true; outcome: CallOutcome };

/** One call's progress events as they happen, then its outcome (last). */
export async function* streamCall(
  runtime: Runtime,
  name: string,
  args: unknown,
  options: ExportOptions & { signal?: AbortSignal | undefined },
): AsyncGenerator<StreamItem> {
  const queue: StreamItem[] = [];
  let wake: (() => void) | undefined;
  const push = (item: StreamItem): void => {
    queue.push(item);
    wake?.();
  };
  void callForModel(runtime, name, args, {
    ...options,
    onProgress: (event) => push({ done: false, event }),
  }).then(
    (outcome) => push({ done: true, outcome }),
    (error: unknown) =>
      push({ done: true, outcome: { ok: false, text: String(error), code: 'INTERNAL_ERROR' } }),
  );
  for (;;) {
    const item = queue.shift();
    if (item === undefined) {
      await new Promise<void>((resolve) => (wake = resolve));
      wake = undefined;
      continue;
    }
    yield item;
    if (item.done) return;
  }
}

/**
 * A zod 4 schema isocode can take as it is (classic zod: `_zod` and a `safeParse` method). Others
 * (zod 3, zod mini, Standard Schema, JSON Schema wrappers) go through the framework's own conversion.
 */
export function isZodClassic(schema: unknown): schema is SchemaLike {
  return (
    typeof schema === 'object' &&
    schema !== null &&
    '_zod' in schema &&
    typeof (schema as { safeParse?: unknown }).safeParse === 'function'
  );
}
