/** Wire-format adapters: the same tool list in the shapes model APIs and MCP clients expect. */
import type { JsonSchema, ToolSchema } from './types.js';
import { wireNameTable } from './wire-names.js';

/** The wire formats isocode renders. */
export type WireFormat = 'openai' | 'anthropic' | 'mcp';

/** OpenAI function-calling tool shape. */
export interface OpenAiTool {
  type: 'function';
  function: { name: string; description: string; parameters: JsonSchema };
}
/** Anthropic Messages API tool shape. */
export interface AnthropicTool {
  name: string;
  description: string;
  input_schema: JsonSchema;
}
/** MCP `tools/list` entry shape. */
export interface McpTool {
  name: string;
  description: string;
  inputSchema: JsonSchema;
  outputSchema?: JsonSchema;
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
    function: { name: names[i] ?? t.name, description: t.description, parameters: t.inputSchema },
  }));
}

/** Renders tool schemas in the Anthropic tool shape, with provider-legal names. */
export function toAnthropicTools(tools: readonly ToolSchema[]): AnthropicTool[] {
  const names = providerNames(tools);
  return tools.map((t, i) => ({
    name: names[i] ?? t.name,
    description: t.description,
    input_schema: t.inputSchema,
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
): OpenAiTool[] | AnthropicTool[] | McpTool[] {
  switch (format) {
    case 'openai':
      return toOpenAiTools(tools);
    case 'anthropic':
      return toAnthropicTools(tools);
    case 'mcp':
      return toMcpTools(tools);
  }
}
