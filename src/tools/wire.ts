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
 * The schema a provider is shown: the input schema with `type: "object"`. Tool arguments are
 * always a JSON object on these wires, so a schema without a `type` (`{}`, an `anyOf` of objects)
 * or with another one is shown as an object schema; the tool's own validation still applies.
 */
export function objectSchema(schema: JsonSchema): ObjectJsonSchema {
  return schema.type === 'object' ? (schema as ObjectJsonSchema) : { ...schema, type: 'object' };
}

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
      parameters: objectSchema(t.inputSchema),
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
    parameters: objectSchema(t.inputSchema),
    strict: false,
  }));
}

/** Renders tool schemas in the Anthropic tool shape, with provider-legal names. */
export function toAnthropicTools(tools: readonly ToolSchema[]): AnthropicTool[] {
  const names = providerNames(tools);
  return tools.map((t, i) => ({
    name: names[i] ?? t.name,
    description: t.description,
    input_schema: objectSchema(t.inputSchema),
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
          inputSchema: t.inputSchema,
          outputSchema: t.outputSchema,
        }
      : { name: t.name, description: t.description, inputSchema: t.inputSchema },
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
