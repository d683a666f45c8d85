/**
 * Anthropic Messages adapters: a `tool_use` content block to the call `runtime.execute` takes,
 * and a {@link ToolResult} to the `tool_result` block that answers it. The types match the
 * `@anthropic-ai/sdk` package's (`ToolUseBlock`, `ToolResultBlockParam`) both ways;
 * test/providers/sdk-types.test.ts pins that.
 */
import { IsocodeError } from '../errors.js';
import { modelContent } from '../executor/outcome.js';
import type { ExecuteOptions, ToolCall, ToolResult } from '../executor/types.js';
import type { Runtime } from '../runtime-types.js';
import type { ContentBlock } from '../tools/types.js';
import { answerCall, blockText, record, text } from './content.js';

/** A `tool_use` block of an Anthropic assistant message (`input` is checked to be an object). */
export interface AnthropicToolUse {
  type: 'tool_use';
  id: string;
  name: string;
  input: unknown;
}

/** The image types an Anthropic image block takes; another image type is sent as text. */
export const ANTHROPIC_IMAGE_TYPES = [
  'image/jpeg',
  'image/png',
  'image/gif',
  'image/webp',
] as const;
export type AnthropicImageMediaType = (typeof ANTHROPIC_IMAGE_TYPES)[number];

/** A content block of a `tool_result`. */
export type AnthropicResultBlock =
  | { type: 'text'; text: string }
  | {
      type: 'image';
      source: { type: 'base64'; media_type: AnthropicImageMediaType; data: string };
    };

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

const isImageType = (mime: string): mime is AnthropicImageMediaType =>
  (ANTHROPIC_IMAGE_TYPES as readonly string[]).includes(mime);

function anthropicBlock(block: ContentBlock): AnthropicResultBlock {
  return block.type === 'image' && isImageType(block.mimeType)
    ? { type: 'image', source: { type: 'base64', media_type: block.mimeType, data: block.data } }
    : { type: 'text', text: blockText(block) };
}

/**
 * The `tool_result` block for a result: the blocks the model reads ({@link modelContent}; a
 * failure's already start with `Error CODE`), `is_error` set for every failure.
 */
export function toAnthropicToolResult(toolUseId: string, result: ToolResult): AnthropicToolResult {
  return resultBlock(toolUseId, result.ok, modelContent(result));
}

function resultBlock(toolUseId: string, ok: boolean, blocks: ContentBlock[]): AnthropicToolResult {
  return {
    type: 'tool_result',
    tool_use_id: toolUseId,
    content: blocks.map(anthropicBlock),
    is_error: !ok,
  };
}

/**
 * One `tool_use` block answered: read, run through `runtime.execute`, rendered as its
 * `tool_result`. A block the adapter refuses (an input that is not an object) is answered with
 * its `Error INVALID_ARGS: …` text and `is_error`, so the loop goes on.
 * @throws IsocodeError INVALID_ARGS only when the block has no id to answer.
 */
export async function answerAnthropicToolUse(
  runtime: Pick<Runtime, 'execute'>,
  block: unknown,
  options?: ExecuteOptions,
): Promise<AnthropicToolResult> {
  const id = text(
    record(block, 'an Anthropic tool_use block').id,
    "an Anthropic tool_use block's id",
  );
  return answerCall(
    runtime,
    () => fromAnthropicToolUse(block),
    options,
    (ok, blocks) => resultBlock(id, ok, blocks),
  );
}
