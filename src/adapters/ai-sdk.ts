/**
 * `isocode/ai`: the Vercel AI SDK (`ai` v7) adapter. {@link fromAiSdkTools} turns an AI SDK
 * `ToolSet` into isocode tools (a program calls them as typed bindings); {@link toAiSdkTools} and
 * {@link runCodeTool} show a runtime's scope to `generateText` / `streamText` / `ToolLoopAgent` as
 * AI SDK tools, run_code streaming its progress as preliminary results. Decision record 031.
 */
import { asSchema, jsonSchema, type Tool, type ToolSet } from 'ai';
import { IsocodeError } from '../errors.js';
import type { RunProgressEvent } from '../run-code/types.js';
import type { Runtime } from '../runtime-types.js';
import { RUN_CODE } from '../tools/names.js';
import type { SchemaLike, ToolDefinition } from '../tools/types.js';
import {
  approvalHooks,
  callForModel,
  importedName,
  isZodClassic,
  streamCall,
  wireEntries,
  type ApprovalRule,
  type CallOutcome,
  type ExportOptions,
  type ImportedTools,
  type ImportOptions,
} from './shared.js';

export type { ImportedTools, ImportOptions, ExportOptions, CallOutcome } from './shared.js';

/** Options of {@link fromAiSdkTools}. */
export interface FromAiSdkToolsOptions extends ImportOptions {
  /** The `context` each tool's `execute` and `needsApproval` receive, by tool key (`toolsContext`). */
  toolsContext?: Record<string, unknown> | undefined;
}

type AnyTool = ToolSet[string];

/** The last value of an AI SDK tool's `execute` (a value, a promise, or an async iterable). */
async function finalValue(out: unknown): Promise<unknown> {
  if (typeof out === 'object' && out !== null && Symbol.asyncIterator in out) {
    let last: unknown;
    for await (const value of out as AsyncIterable<unknown>) last = value;
    return last;
  }
  return await out;
}

async function importOne(
  key: string,
  t: AnyTool,
  name: string,
  context: unknown,
): Promise<{ tool: ToolDefinition; approval: ApprovalRule | undefined }> {
  const kind = (t as { type?: unknown }).type;
  if (kind === 'provider' || typeof t.execute !== 'function')
    throw new IsocodeError(
      'INVALID_TOOL_DEFINITION',
      `the AI SDK tool "${key}" has no execute function (provider-executed or client-side tools cannot run in a program)`,
    );
  const execute = t.execute.bind(t) as (input: unknown, options: object) => unknown;
  const schema = asSchema(t.inputSchema);
  const input: SchemaLike = isZodClassic(t.inputSchema)
    ? t.inputSchema
    : ((await schema.jsonSchema) as SchemaLike);
  const validate = isZodClassic(t.inputSchema) ? undefined : schema.validate?.bind(schema);
  const outputSchema = (t as { outputSchema?: unknown }).outputSchema;
  const output =
    outputSchema === undefined
      ? undefined
      : isZodClassic(outputSchema)
        ? outputSchema
        : ((await asSchema(outputSchema as Parameters<typeof asSchema>[0])
            .jsonSchema) as SchemaLike);
  const description =
    typeof t.description === 'function' ? t.description({ context }) : (t.description ?? '');
  const tool: ToolDefinition = {
    name,
    description,
    input,
    ...(output === undefined ? {} : { output }),
    async execute(args, ctx) {
      let value = args;
      if (validate !== undefined) {
        const checked = await validate(args);
        if (!checked.success)
          throw new IsocodeError('INVALID_ARGS', `${name}: ${checked.error.message}`);
        value = checked.value;
      }
      const result = await finalValue(
        execute(value, {
          toolCallId: ctx.callId,
          messages: [],
          abortSignal: ctx.signal,
          context,
        }),
      );
      return result === undefined ? null : result;
    },
  };
  const needs = t.needsApproval;
  const approval: ApprovalRule | undefined =
    needs === undefined || needs === false
      ? undefined
      : needs === true
        ? () => true
        : (args, callId) =>
            (needs as (input: unknown, options: object) => boolean | PromiseLike<boolean>)(args, {
              toolCallId: callId,
              messages: [],
              context,
            });
  return { tool, approval };
}

/**
 * The tools of an AI SDK `ToolSet` as isocode tools, named by their keys (under `namespace` when
 * given). Zod 4 input schemas are kept as they are; zod 3, Standard Schema and `jsonSchema()`
 * inputs become their JSON Schema, with the schema's own `validate` run before `execute`. A tool
 * with `needsApproval` asks isocode's approver before each call that needs it: `hooks` carries that
 * rule, so install it with the tools.
 *
 * @example
 * const imported = await fromAiSdkTools({ getWeather }, { namespace: 'weather' });
 * const runtime = await createRuntime({ ...imported, scopes: { default: { mode: 'code' } } });
 * @throws IsocodeError INVALID_TOOL_DEFINITION for a tool without `execute` or a key that is not a valid name.
 */
export async function fromAiSdkTools(
  tools: ToolSet,
  options: FromAiSdkToolsOptions = {},
): Promise<ImportedTools> {
  const out: ToolDefinition[] = [];
  const rules = new Map<string, ApprovalRule>();
  for (const [key, t] of Object.entries(tools)) {
    const name = importedName(key, options, 'AI SDK');
    const { tool, approval } = await importOne(key, t, name, options.toolsContext?.[key]);
    out.push(tool);
    if (approval !== undefined) rules.set(name, approval);
  }
  return { tools: out, hooks: approvalHooks(rules, 'AI SDK') };
}

/**
 * What an exported tool's `execute` yields: run_code yields `running` items while the program runs
 * (preliminary results: logs and nested calls as they happen), then the `done` outcome, whose
 * `text` is what the model reads.
 */
export type AiSdkToolOutput =
  { status: 'running'; event: RunProgressEvent } | ({ status: 'done' } & CallOutcome);

/** Options of {@link toAiSdkTools} and {@link runCodeTool}. */
export interface ToAiSdkToolsOptions extends ExportOptions {
  /**
   * Sets `needsApproval` on the exported run_code tool (the AI SDK's own approval flow: the step
   * ends with a `tool-approval-request`). With AI SDK 7 you may instead give `generateText` a
   * `toolApproval` for `run_code`. Nested calls' approvals still go to `approver`.
   */
  needsApproval?:
    | boolean
    | ((input: { code: string; description: string }) => boolean | Promise<boolean>)
    | undefined;
}

/** What the model reads of an outcome: its text, marked as an error when the call failed. */
const toModelOutput = ({ output }: { output: AiSdkToolOutput }) => {
  if (output.status === 'running') return { type: 'text' as const, value: '' };
  return output.ok
    ? { type: 'text' as const, value: output.text }
    : { type: 'error-text' as const, value: output.text };
};

/**
 * The tools a runtime's scope shows its model, as an AI SDK `ToolSet` keyed by their provider-safe
 * wire names: run_code (and search_tools / describe_tool in compact mode, native tools in `both`
 * mode). Each call goes through the runtime's whole pipeline (policy, approval, audit).
 */
export function toAiSdkTools(runtime: Runtime, options: ToAiSdkToolsOptions = {}): ToolSet {
  const set: ToolSet = {};
  const { scope, approver } = options;
  for (const entry of wireEntries(runtime, scope)) {
    const isRunCode = entry.name === RUN_CODE;
    const needs = isRunCode ? options.needsApproval : undefined;
    const tool: Tool<unknown, AiSdkToolOutput> = {
      description: entry.description,
      inputSchema: jsonSchema<unknown>(entry.parameters),
      ...(needs === undefined
        ? {}
        : {
            needsApproval:
              typeof needs === 'boolean'
                ? needs
                : (input: unknown) => needs(input as { code: string; description: string }),
          }),
      execute: isRunCode
        ? async function* (input, { abortSignal }) {
            for await (const item of streamCall(runtime, entry.name, input, {
              scope,
              approver,
              signal: abortSignal,
            })) {
              yield item.done
                ? { status: 'done', ...item.outcome }
                : { status: 'running', event: item.event };
            }
          }
        : async (input, { abortSignal }) => ({
            status: 'done',
            ...(await callForModel(runtime, entry.name, input, {
              scope,
              approver,
              signal: abortSignal,
            })),
          }),
      toModelOutput,
    };
    set[entry.name] = tool;
  }
  return set;
}

/**
 * The runtime's run_code as one AI SDK tool (see {@link toAiSdkTools}); put it in `tools` under
 * the key `run_code`.
 * @throws IsocodeError UNKNOWN_TOOL when the scope shows no run_code (mode `native`, or code mode off).
 */
export function runCodeTool(runtime: Runtime, options: ToAiSdkToolsOptions = {}): ToolSet[string] {
  const tool = toAiSdkTools(runtime, options)[RUN_CODE];
  if (tool === undefined)
    throw new IsocodeError(
      'UNKNOWN_TOOL',
      `scope "${options.scope ?? 'default'}" shows no run_code`,
    );
  return tool;
}
