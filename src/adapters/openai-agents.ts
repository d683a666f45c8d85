/**
 * `isocode/openai-agents`: the OpenAI Agents SDK (`@openai/agents`) adapter. {@link fromAgentsTools}
 * turns function tools into isocode tools; {@link toAgentsTools} and {@link runCodeTool} give an
 * `Agent` a runtime's scope as function tools, run_code's approval (optional) being the SDK's own
 * `needsApproval` → interruption → `state.approve()` flow. Decision record 031.
 */
import { RunContext, tool, type FunctionTool } from '@openai/agents';
import { IsocodeError } from '../errors.js';
import type { RunProgressEvent } from '../run-code/types.js';
import type { Runtime } from '../runtime-types.js';
import { RUN_CODE } from '../tools/names.js';
import type { JsonSchema, ToolDefinition } from '../tools/types.js';
import {
  approvalHooks,
  callForModel,
  importedName,
  wireEntries,
  type ApprovalRule,
  type ExportOptions,
  type ImportedTools,
  type ImportOptions,
} from './shared.js';

export type { ImportedTools, ImportOptions, ExportOptions } from './shared.js';

/** Options of {@link fromAgentsTools}. */
export interface FromAgentsToolsOptions extends ImportOptions {
  /** The context of the `RunContext` each tool's `invoke` and `needsApproval` receive. */
  context?: unknown;
}

/** A non-strict JSON Schema parameters object, as the SDK types it (its type is not exported). */
interface NonStrictParameters {
  type: 'object';
  properties: Record<string, never>;
  required: never[];
  additionalProperties: true;
}

/** What {@link toAgentsTools} returns: function tools whose `invoke` answers with the model's text. */
export type IsocodeFunctionTool = FunctionTool<unknown, NonStrictParameters, string>;

/** Any function tool, whatever its context, parameters and result types. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the SDK's own "any function tool"
type AnyFunctionTool = FunctionTool<any, any, any>;

/**
 * Function tools as isocode tools, named by their names (under `namespace` when given). Their JSON
 * Schema `parameters` become the input schema (the SDK's zod tools carry it already converted);
 * each call goes through the tool's own `invoke`, so its parsing, guardrails and error function
 * apply (a tool without an output schema turns a throw into a string for the model, as the SDK does).
 * A tool's `needsApproval` asks isocode's approver before each call that needs it: install `hooks`.
 * @throws IsocodeError INVALID_TOOL_DEFINITION for a hosted or computer tool, or a name that does not fit.
 */
export function fromAgentsTools(
  tools: readonly unknown[],
  options: FromAgentsToolsOptions = {},
): ImportedTools {
  const out: ToolDefinition[] = [];
  const rules = new Map<string, ApprovalRule>();
  for (const candidate of tools) {
    const t = candidate as Partial<AnyFunctionTool>;
    if (t.type !== 'function' || typeof t.invoke !== 'function' || typeof t.name !== 'string')
      throw new IsocodeError(
        'INVALID_TOOL_DEFINITION',
        `only function tools can run in a program (got a ${String(t.type)} tool${typeof t.name === 'string' ? ` "${t.name}"` : ''})`,
      );
    const fn = t as AnyFunctionTool;
    const name = importedName(fn.name, options, 'Agents SDK');
    const context = (): RunContext => new RunContext(options.context);
    out.push({
      name,
      description: fn.description,
      input: fn.parameters as JsonSchema,
      ...(fn.outputSchema === undefined ? {} : { output: fn.outputSchema as JsonSchema }),
      async execute(args, ctx) {
        const value: unknown = await fn.invoke(context(), JSON.stringify(args), {
          signal: ctx.signal,
        });
        return value === undefined ? null : value;
      },
    });
    rules.set(name, (args, callId) => fn.needsApproval(context(), args, callId));
  }
  return { tools: out, hooks: approvalHooks(rules, 'Agents SDK') };
}

/** Options of {@link toAgentsTools} and {@link runCodeTool}. */
export interface ToAgentsToolsOptions extends ExportOptions {
  /**
   * run_code's `needsApproval`: the run stops with an interruption the program resolves with
   * `result.state.approve(…)` / `reject(…)` and runs again from the state. Nested calls' approvals
   * still go to `approver`.
   */
  needsApproval?:
    | boolean
    | ((input: { code: string; description: string }) => boolean | Promise<boolean>)
    | undefined;
  /** Receives run_code's progress (logs, nested calls) as it happens, with the SDK's call id. */
  onProgress?: ((event: RunProgressEvent, callId: string | undefined) => void) | undefined;
}

/**
 * The tools a runtime's scope shows its model, as Agents SDK function tools named by their
 * provider-safe wire names: run_code (and search_tools / describe_tool in compact mode, native
 * tools in `both` mode). The model reads each outcome's text (a failure starts with its error
 * code); every call goes through the runtime's pipeline (policy, approval, audit).
 */
export function toAgentsTools(
  runtime: Runtime,
  options: ToAgentsToolsOptions = {},
): IsocodeFunctionTool[] {
  const { scope, approver, onProgress } = options;
  return wireEntries(runtime, scope).map((entry) => {
    const needs = entry.name === RUN_CODE ? options.needsApproval : undefined;
    return tool({
      name: entry.name,
      description: entry.description,
      // The wire schema is a JSON Schema object; the SDK sends it as it is (strict mode off).
      parameters: entry.parameters as unknown as NonStrictParameters,
      strict: false,
      ...(needs === undefined
        ? {}
        : {
            needsApproval:
              typeof needs === 'boolean'
                ? needs
                : async (_ctx: RunContext, input: unknown) =>
                    await needs(input as { code: string; description: string }),
          }),
      async execute(input, _ctx, details) {
        const callId = details?.toolCall?.callId;
        const outcome = await callForModel(runtime, entry.name, input, {
          scope,
          approver,
          signal: details?.signal,
          onProgress: onProgress === undefined ? undefined : (event) => onProgress(event, callId),
        });
        return outcome.text;
      },
    });
  });
}

/**
 * The runtime's run_code as one Agents SDK function tool (see {@link toAgentsTools}).
 * @throws IsocodeError UNKNOWN_TOOL when the scope shows no run_code (mode `native`, or code mode off).
 */
export function runCodeTool(
  runtime: Runtime,
  options: ToAgentsToolsOptions = {},
): IsocodeFunctionTool {
  const found = toAgentsTools(runtime, options).find((t) => t.name === RUN_CODE);
  if (found === undefined)
    throw new IsocodeError(
      'UNKNOWN_TOOL',
      `scope "${options.scope ?? 'default'}" shows no run_code`,
    );
  return found;
}
