/**
 * Anthropic Messages adapters: a `tool_use` content block to the call `runtime.execute` takes,
 * and a {@link ToolResult} to the `tool_result` block that answers it.
 */
import { IsocodeError } from '../errors.js';
import type { ToolCall, ToolResult } from '../executor/types.js';
import type { ContentBlock } from '../tools/types.js';
import { blockText, record, text } from './content.js';

/** A `tool_use` block of an Anthropic assistant message. */
export interface AnthropicToolUse {
  type: 'tool_use';
  id: string;
  name: string;
  input: Record<string, unknown>;
}

/** A content block of a `tool_result`. */
export type AnthropicResultBlock =
  | { type: 'text'; text: string }
  | { type: 'image'; source: { type: 'base64'; media_type: string; data: string } };

/** The `tool_result` block answering one `tool_use` (sent in a `user` message). */
export interface AnthropicToolResult {
  type: 'tool_result';
  tool_use_id: string;
  content: AnthropicResultBlock[];
  is_error: boolean;
}

/**
 * The call `runtime.execute` takes for an Anthropic `tool_use` block. The name is the wire name
 * the model saw; `execute` maps it back to the tool.
 * @throws IsocodeError INVALID_ARGS when the block is not a `tool_use` block with an object input.
 */
export function fromAnthropicToolUse(block: unknown): ToolCall {
  const use = record(block, 'an Anthropic tool_use block');
  if (use.type !== 'tool_use')
    throw new IsocodeError('INVALID_ARGS', 'an Anthropic tool_use block must have type "tool_use"');
  const name = text(use.name, "an Anthropic tool_use block's name");
  const id = text(use.id, "an Anthropic tool_use block's id");
  return { name, args: record(use.input, `the input of "${name}"`), id };
}

function anthropicBlock(block: ContentBlock): AnthropicResultBlock {
  return block.type === 'image'
    ? { type: 'image', source: { type: 'base64', media_type: block.mimeType, data: block.data } }
    : { type: 'text', text: blockText(block) };
}

/** The `tool_result` block for a result: `is_error` is set for every failure. */
export function toAnthropicToolResult(toolUseId: string, result: ToolResult): AnthropicToolResult {
  const content = result.content.map(anthropicBlock);
  return {
    type: 'tool_result',
    tool_use_id: toolUseId,
    content: result.ok
      ? content
      : [{ type: 'text', text: `Error ${result.error.code}` }, ...content],
    is_error: !result.ok,
  };
}
