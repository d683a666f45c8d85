/**
 * `isocode/langchain`: the LangChain.js (`@langchain/core`) adapter. {@link fromLangChainTools}
 * turns StructuredTools into isocode tools; {@link toLangChainTools} and {@link runCodeTool} give a
 * chat model's tool loop a runtime's scope as StructuredTools, run_code streaming its progress as
 * LangChain tool events (a callback handler's `handleToolEvent`).
 * `@langchain/core` has no approval mechanism of its own: approvals are isocode's approver's
 * (decision record 031).
 */
import { isBaseMessage } from '@langchain/core/messages';
import {
  DynamicStructuredTool,
  type StructuredToolInterface,
  type ToolRunnableConfig,
} from '@langchain/core/tools';
import { toJsonSchema, type JsonSchema7Type } from '@langchain/core/utils/json_schema';
import { IsocodeError } from '../errors.js';
import type { RunProgressEvent } from '../run-code/types.js';
import type { Runtime } from '../runtime-types.js';
import { RUN_CODE } from '../tools/names.js';
import type { SchemaLike, ToolDefinition } from '../tools/types.js';
import {
  approvalHooks,
  importedName,
  isZodClassic,
  streamCall,
  wireEntries,
  type ApprovalRule,
  type ExportOptions,
  type ImportedTools,
  type ImportOptions,
} from './shared.js';

export type { ImportedTools, ImportOptions, ExportOptions } from './shared.js';

/** A tool event of an exported tool (what `handleToolEvent` receives). */
export interface ProgressEventData {
  /** The LangChain tool call id of the run_code call, when it was invoked with a tool call. */
  toolCallId: string | undefined;
  event: RunProgressEvent;
}

/** Options of {@link fromLangChainTools}. */
export interface FromLangChainToolsOptions extends ImportOptions {
  /**
   * Which imported tools ask isocode's approver before a call, by LangChain tool name: `true`, or
   * a rule over the call's arguments. (LangChain tools carry no approval setting of their own.)
   */
  needsApproval?:
    Record<string, boolean | ((args: unknown) => boolean | Promise<boolean>)> | undefined;
  /**
   * Output schemas by LangChain tool name (zod 4 or JSON Schema): LangChain tools declare none, so
   * without one a binding returns `JsonValue` and a program must narrow it.
   */
  outputs?: Record<string, SchemaLike> | undefined;
}

/**
 * StructuredTools as isocode tools, named by their names (under `namespace` when given). A zod 4
 * schema is kept as it is; zod 3, Standard Schema and JSON Schema become their JSON Schema. Each
 * call goes through the tool's own `invoke` (its parsing and callbacks apply); a message result
 * becomes its content.
 * @throws IsocodeError INVALID_TOOL_DEFINITION for a tool that is not structured or a name that does not fit.
 */
export function fromLangChainTools(
  tools: readonly StructuredToolInterface[],
  options: FromLangChainToolsOptions = {},
): ImportedTools {
  const out: ToolDefinition[] = [];
  const rules = new Map<string, ApprovalRule>();
  for (const t of tools) {
    if (typeof t.name !== 'string' || typeof t.invoke !== 'function' || t.schema === undefined)
      throw new IsocodeError('INVALID_TOOL_DEFINITION', 'expected a LangChain StructuredTool');
    const name = importedName(t.name, options, 'LangChain');
    const input: SchemaLike = isZodClassic(t.schema)
      ? t.schema
      : toJsonSchema(t.schema as Parameters<typeof toJsonSchema>[0]);
    const output = options.outputs?.[t.name];
    out.push({
      name,
      description: t.description,
      input,
      ...(output === undefined ? {} : { output }),
      async execute(args, ctx) {
        const value: unknown = await t.invoke(args as never, { signal: ctx.signal });
        if (isBaseMessage(value)) return value.content;
        return value === undefined ? null : value;
      },
    });
    const rule = options.needsApproval?.[t.name];
    if (rule === true) rules.set(name, () => true);
    else if (typeof rule === 'function') rules.set(name, (args) => rule(args));
  }
  return { tools: out, hooks: approvalHooks(rules, 'LangChain') };
}

/** What {@link toLangChainTools} returns: tools whose output is the text the model reads. */
export type IsocodeStructuredTool = DynamicStructuredTool<
  JsonSchema7Type,
  unknown,
  unknown,
  string,
  ProgressEventData
>;

/**
 * The tools a runtime's scope shows its model, as LangChain StructuredTools named by their
 * provider-safe wire names: run_code (and search_tools / describe_tool in compact mode, native
 * tools in `both` mode). Bind them with `model.bindTools(tools)` and answer each tool call with
 * `tool.invoke(toolCall)` (a ToolMessage). The model reads each outcome's text (a failure starts
 * with its error code); every call goes through the runtime's pipeline (policy, approval, audit).
 * Each tool streams its progress as tool events (LangChain's streaming tools): a callback
 * handler's `handleToolEvent` receives a {@link ProgressEventData} per log line and nested call.
 */
export function toLangChainTools(
  runtime: Runtime,
  options: ExportOptions = {},
): IsocodeStructuredTool[] {
  const { scope, approver } = options;
  return wireEntries(runtime, scope).map(
    (entry) =>
      new DynamicStructuredTool<JsonSchema7Type, unknown, unknown, string, ProgressEventData>({
        name: entry.name,
        description: entry.description,
        schema: entry.parameters,
        func: async function* (input, _runManager, config) {
          const toolCallId = (config as ToolRunnableConfig | undefined)?.toolCall?.id;
          for await (const item of streamCall(runtime, entry.name, input, {
            scope,
            approver,
            signal: config?.signal,
          })) {
            if (item.done) return item.outcome.text;
            yield { toolCallId, event: item.event };
          }
          return '';
        },
      }),
  );
}

/**
 * The runtime's run_code as one LangChain StructuredTool (see {@link toLangChainTools}).
 * @throws IsocodeError UNKNOWN_TOOL when the scope shows no run_code (mode `native`, or code mode off).
 */
export function runCodeTool(runtime: Runtime, options: ExportOptions = {}): IsocodeStructuredTool {
  const found = toLangChainTools(runtime, options).find((t) => t.name === RUN_CODE);
  if (found === undefined)
    throw new IsocodeError(
      'UNKNOWN_TOOL',
      `scope "${options.scope ?? 'default'}" shows no run_code`,
    );
  return found;
}
