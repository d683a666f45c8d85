/** Turns a tool definition (from `defineTool` or a plain object) into the executor's form. */
import { MAX_TIMER_MS } from '../options.js';
import { IsocodeError } from '../errors.js';
import { assertRegistrableName } from './names.js';
import { compileSchema, type Validation } from './schema.js';
import type {
  ContentBlock,
  JsonSchema,
  OutcomeSummary,
  ToolContext,
  ToolDefinition,
  ToolSchema,
  TransportContext,
} from './types.js';

/**
 * A registered tool, validated and ready for the executor. `C` is the context its body receives:
 * a {@link ToolContext}, or a {@link TransportContext} for the transport. `ResolvedTool<never>`
 * is any resolved tool (its body cannot be called through that type).
 */
export interface ResolvedTool<C extends ToolContext = ToolContext> {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: JsonSchema;
  readonly outputSchema: JsonSchema | undefined;
  validateInput(value: unknown): Validation;
  validateOutput(value: unknown): Validation;
  readonly execute: (args: unknown, ctx: C) => unknown;
  isConcurrencySafe(args: unknown): boolean;
  readonly timeoutMs: number | undefined;
  /** See `ToolDefinition.idempotent`. */
  readonly idempotent: boolean;
  render(value: unknown): string | ContentBlock[];
  finalizeContent:
    ((content: ContentBlock[], outcome: OutcomeSummary) => ContentBlock[]) | undefined;
}

/** Any resolved tool, a transport included. */
export type AnyTool = ResolvedTool<never>;

const NO_OUTPUT_SCHEMA: Validation = { ok: true, value: undefined };

/** The default rendering: a string as is, anything else as pretty-printed JSON. */
function defaultRender(value: unknown): string {
  if (typeof value === 'string') return value;
  return JSON.stringify(value, null, 2) ?? 'null';
}

/**
 * Validates and normalises a tool definition.
 * @throws IsocodeError INVALID_TOOL_DEFINITION naming the tool and the bad field.
 */
export function resolveTool(definition: unknown): ResolvedTool {
  return resolve<ToolContext>(definition, false);
}

/**
 * Validates the transport's definition (run_code): it carries the reserved name, and its body
 * receives a {@link TransportContext}.
 * @throws IsocodeError INVALID_TOOL_DEFINITION naming the bad field.
 */
export function resolveTransport<Args, Result>(
  definition: ToolDefinition<Args, Result, TransportContext>,
): ResolvedTool<TransportContext> {
  return resolve<TransportContext>(definition, true);
}

function resolve<C extends ToolContext>(
  definition: unknown,
  reservedName: boolean,
): ResolvedTool<C> {
  if (typeof definition !== 'object' || definition === null) {
    throw new IsocodeError(
      'INVALID_TOOL_DEFINITION',
      'a tool must be an object with name, description, input and execute',
    );
  }
  const def = definition as Partial<ToolDefinition<unknown, unknown, C>>;
  if (!reservedName) assertRegistrableName(def.name);
  const name = def.name as string;
  const where = `tool "${name}"`;
  if (typeof def.description !== 'string') {
    throw new IsocodeError('INVALID_TOOL_DEFINITION', `${where}: description must be a string`);
  }
  if (typeof def.execute !== 'function') {
    throw new IsocodeError('INVALID_TOOL_DEFINITION', `${where}: execute must be a function`);
  }
  if (def.input === undefined)
    throw new IsocodeError('INVALID_TOOL_DEFINITION', `${where}: input schema is required`);
  const input = compileSchema(def.input, 'input', `${where} input`);
  const output =
    def.output === undefined ? undefined : compileSchema(def.output, 'output', `${where} output`);
  const timeoutMs = def.timeoutMs;
  if (
    timeoutMs !== undefined &&
    (typeof timeoutMs !== 'number' || !(timeoutMs > 0) || !(timeoutMs <= MAX_TIMER_MS))
  ) {
    throw new IsocodeError(
      'INVALID_TOOL_DEFINITION',
      `${where}: timeoutMs must be a positive number of milliseconds, at most ${MAX_TIMER_MS} (24.8 days, the longest timer Node keeps)`,
    );
  }
  const safe = def.isConcurrencySafe;
  if (safe !== undefined && typeof safe !== 'boolean' && typeof safe !== 'function') {
    throw new IsocodeError(
      'INVALID_TOOL_DEFINITION',
      `${where}: isConcurrencySafe must be a boolean or a function`,
    );
  }
  if (def.idempotent !== undefined && typeof def.idempotent !== 'boolean') {
    throw new IsocodeError('INVALID_TOOL_DEFINITION', `${where}: idempotent must be a boolean`);
  }
  for (const key of ['render', 'finalizeContent'] as const) {
    if (def[key] !== undefined && typeof def[key] !== 'function') {
      throw new IsocodeError('INVALID_TOOL_DEFINITION', `${where}: ${key} must be a function`);
    }
  }
  const execute = def.execute;
  const render = def.render;
  return {
    name,
    description: def.description,
    inputSchema: input.jsonSchema,
    outputSchema: output?.jsonSchema,
    validateInput: (v) => input.validate(v),
    validateOutput: output ? (v) => output.validate(v) : () => NO_OUTPUT_SCHEMA,
    execute: (args, ctx) => execute(args, ctx),
    isConcurrencySafe:
      typeof safe === 'function'
        ? (args) => {
            try {
              return safe(args) === true;
            } catch {
              return false; // fail closed: an erroring predicate makes the call exclusive
            }
          }
        : () => safe === true,
    timeoutMs,
    idempotent: def.idempotent === true,
    render: render ? (v) => render(v) : defaultRender,
    finalizeContent: def.finalizeContent,
  };
}

/** The catalog entry of a resolved tool. */
export function toToolSchema(tool: AnyTool): ToolSchema {
  const schema: ToolSchema = {
    name: tool.name,
    description: tool.description,
    inputSchema: tool.inputSchema,
  };
  if (tool.outputSchema !== undefined) schema.outputSchema = tool.outputSchema;
  if (tool.idempotent) schema.annotations = { idempotentHint: true };
  return schema;
}
