/** Wire-format adapters: the same tool list in the shapes model APIs and MCP clients expect. */
import type { JsonSchema, ToolSchema } from './types.js';
import { wireNameTable } from './wire-names.js';

/** The wire formats isocode renders (`openai`: Chat Completions; `openai-responses`: the Responses API). */
export const WIRE_FORMATS = ['openai', 'openai-responses', 'anthropic', 'mcp'] as const;
export type WireFormat = (typeof WIRE_FORMATS)[number];

/**
 * A tool's input schema as the providers take it: an object schema (`type: "object"`), as both
 * OpenAI and Anthropic require of function parameters.
 */
export interface ObjectJsonSchema {
  type: 'object';
  properties?: { [key: string]: unknown };
  required?: string[];
  [key: string]: unknown;
}

/** OpenAI Chat Completions function tool (`ChatCompletionFunctionTool`). */
export interface OpenAiTool {
  type: 'function';
  function: { name: string; description: string; parameters: ObjectJsonSchema };
}
/** OpenAI Responses API function tool (`FunctionTool`; `strict: false`: isocode schemas are not all strict-mode schemas). */
export interface OpenAiResponsesTool {
  type: 'function';
  name: string;
  description: string;
  parameters: ObjectJsonSchema;
  strict: boolean;
}
/** Anthropic Messages API tool shape (`Tool`). */
export interface AnthropicTool {
  name: string;
  description: string;
  input_schema: ObjectJsonSchema;
}
/** MCP `tools/list` entry shape. */
export interface McpTool {
  name: string;
  description: string;
  inputSchema: JsonSchema;
  outputSchema?: JsonSchema;
}

/**
 * A tool's input schema with `type: "object"`. Tool arguments are always a JSON object on every
 * wire, so a schema without a `type` (`{}`, an `anyOf` of objects) or with another one is shown as
 * an object schema; the tool's own validation still applies. What an MCP client is shown.
 */
export function objectSchema(schema: JsonSchema): ObjectJsonSchema {
  return schema.type === 'object' ? (schema as ObjectJsonSchema) : { ...schema, type: 'object' };
}

/** Keywords OpenAI and Anthropic refuse at the top of a tool's parameters (HTTP 400 for the whole request). */
const TOP_LEVEL_REFUSED = ['anyOf', 'oneOf', 'allOf', 'enum', 'const', 'not'] as const;

/**
 * The schema a model provider is shown: {@link objectSchema}, and a top-level union (`anyOf`,
 * `oneOf`) or intersection (`allOf`) flattened into one object schema, because both OpenAI and
 * Anthropic refuse every request whose tool list holds a tool with one at the top ("schema must
 * have type 'object' and not have 'oneOf'/'anyOf'/'allOf'/'enum'/'not' at the top level"). The
 * flattened schema has every variant's properties (the first variant to name one gives its schema)
 * and requires what every variant of a union, or any part of an intersection, requires; `enum`,
 * `const` and `not` at the top are left out. It is wider than the tool's schema, never narrower:
 * the executor still validates the arguments against the tool's own schema.
 */
export function providerSchema(schema: JsonSchema): ObjectJsonSchema {
  const typed = objectSchema(schema);
  if (!TOP_LEVEL_REFUSED.some((key) => key in typed)) return typed;
  const { anyOf, oneOf, allOf, enum: _enum, const: _const, not: _not, ...rest } = typed;
  const properties: Record<string, unknown> = { ...asRecord(rest.properties) };
  const required = new Set(stringsOf(rest.required));
  const add = (variant: Record<string, unknown>): void => {
    for (const [key, value] of Object.entries(asRecord(variant.properties)))
      if (!(key in properties)) properties[key] = value;
  };
  for (const part of listOf(allOf)) {
    add(part);
    for (const key of stringsOf(part.required)) required.add(key);
  }
  for (const union of [anyOf, oneOf]) {
    const variants = listOf(union);
    if (variants.length === 0) continue;
    for (const variant of variants) add(variant);
    const [first, ...others] = variants.map((v) => new Set(stringsOf(v.required)));
    for (const key of first ?? []) if (others.every((set) => set.has(key))) required.add(key);
  }
  const out: ObjectJsonSchema = { ...rest, type: 'object' };
  if (Object.keys(properties).length > 0) out.properties = properties;
  if (required.size > 0) out.required = [...required].filter((key) => key in properties);
  if (out.required?.length === 0) delete out.required;
  return out;
}

const asRecord = (value: unknown): Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
const listOf = (value: unknown): Record<string, unknown>[] =>
  Array.isArray(value) ? value.map(asRecord) : [];
const stringsOf = (value: unknown): string[] =>
  Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];

/** The provider wire name of each tool of a list (see wire-names.ts: dots become `__`). */
function providerNames(tools: readonly ToolSchema[]): string[] {
  const table = wireNameTable(tools.map((t) => t.name));
  return tools.map((t) => table.toWire(t.name));
}

/** Renders tool schemas in the OpenAI function-calling shape, with provider-legal names. */
export function toOpenAiTools(tools: readonly ToolSchema[]): OpenAiTool[] {
  const names = providerNames(tools);
  return tools.map((t, i) => ({
    type: 'function',
    function: {
      name: names[i] ?? t.name,
      description: t.description,
      parameters: providerSchema(t.inputSchema),
    },
  }));
}

/** Renders tool schemas in the OpenAI Responses API function-tool shape, with provider-legal names. */
export function toOpenAiResponsesTools(tools: readonly ToolSchema[]): OpenAiResponsesTool[] {
  const names = providerNames(tools);
  return tools.map((t, i) => ({
    type: 'function',
    name: names[i] ?? t.name,
    description: t.description,
    parameters: providerSchema(t.inputSchema),
    strict: false,
  }));
}

/** Renders tool schemas in the Anthropic tool shape, with provider-legal names. */
export function toAnthropicTools(tools: readonly ToolSchema[]): AnthropicTool[] {
  const names = providerNames(tools);
  return tools.map((t, i) => ({
    name: names[i] ?? t.name,
    description: t.description,
    input_schema: providerSchema(t.inputSchema),
  }));
}

/**
 * Renders tool schemas in the MCP `tools/list` shape (an MCP `outputSchema` must be an object
 * schema). MCP allows dots in names, so names are kept as they are.
 */
export function toMcpTools(tools: readonly ToolSchema[]): McpTool[] {
  return tools.map((t) =>
    t.outputSchema !== undefined && t.outputSchema.type === 'object'
      ? {
          name: t.name,
          description: t.description,
          inputSchema: objectSchema(t.inputSchema),
          outputSchema: t.outputSchema,
        }
      : { name: t.name, description: t.description, inputSchema: objectSchema(t.inputSchema) },
  );
}

/** Renders tool schemas in the given wire format. */
export function toWireFormat(
  tools: readonly ToolSchema[],
  format: WireFormat,
): OpenAiTool[] | OpenAiResponsesTool[] | AnthropicTool[] | McpTool[] {
  switch (format) {
    case 'openai':
      return toOpenAiTools(tools);
    case 'openai-responses':
      return toOpenAiResponsesTools(tools);
    case 'anthropic':
      return toAnthropicTools(tools);
    case 'mcp':
      return toMcpTools(tools);
  }
}
