/**
 * OpenAI Responses API adapters: a `function_call` output item to the call `runtime.execute`
 * takes, and a {@link ToolResult} to the `function_call_output` input item that answers it. The
 * types match the `openai` package's (`ResponseFunctionToolCall`, `ResponseInputItem`) both ways.
 */
import { IsocodeError } from '../errors.js';
import { modelContent } from '../executor/outcome.js';
import type { ExecuteOptions, ToolCall, ToolResult } from '../executor/types.js';
import type { Runtime } from '../runtime-types.js';
import type { ContentBlock } from '../tools/types.js';
import {
  answerCall,
  blockText,
  customToolCallError,
  jsonArgs,
  joinedText,
  record,
  text,
} from './content.js';

/** A `function_call` item of a response's `output` (`arguments` is a JSON string). */
export interface OpenAiFunctionCall {
  type: 'function_call';
  call_id: string;
  name: string;
  arguments: string;
  id?: string;
  status?: 'in_progress' | 'completed' | 'incomplete';
}

/** A content part of a `function_call_output` (text, or an image as a data URL). */
export type OpenAiFunctionCallOutputPart =
  { type: 'input_text'; text: string } | { type: 'input_image'; image_url: string };

/** The `function_call_output` item answering one `function_call` (sent in the next `input`). */
export interface OpenAiFunctionCallOutput {
  type: 'function_call_output';
  call_id: string;
  output: string | OpenAiFunctionCallOutputPart[];
}

/**
 * The call `runtime.execute` takes for a Responses API `function_call` item (its `call_id` is the
 * call's id). The name is the wire name the model saw (`wireTools('openai-responses')`).
 * @throws IsocodeError INVALID_ARGS when the item is not a well-formed `function_call`, its
 *   `arguments` is not a JSON object, or it is a `custom_tool_call` (`details.type: "custom"`).
 */
export function fromOpenAiFunctionCall(item: unknown): ToolCall {
  const call = record(item, 'an OpenAI function_call item');
  if (call.type === 'custom_tool_call') throw customToolCallError('the OpenAI item', call.name);
  if (call.type !== 'function_call')
    throw new IsocodeError(
      'INVALID_ARGS',
      `an OpenAI function_call item must have type "function_call", got ${JSON.stringify(call.type) ?? 'undefined'}`,
    );
  const name = text(call.name, "an OpenAI function_call item's name");
  const id = text(call.call_id, "an OpenAI function_call item's call_id");
  return { name, args: jsonArgs(call.arguments, name), id };
}

function outputPart(block: ContentBlock): OpenAiFunctionCallOutputPart {
  return block.type === 'image'
    ? { type: 'input_image', image_url: `data:${block.mimeType};base64,${block.data}` }
    : { type: 'input_text', text: blockText(block) };
}

/**
 * The `function_call_output` item for a result: the text the model reads ({@link modelContent};
 * a failure's already starts with `Error CODE`), or content parts when it holds an image.
 */
export function toOpenAiFunctionCallOutput(
  callId: string,
  result: ToolResult,
): OpenAiFunctionCallOutput {
  return outputItem(callId, modelContent(result));
}

function outputItem(callId: string, blocks: ContentBlock[]): OpenAiFunctionCallOutput {
  const output = blocks.some((b) => b.type === 'image')
    ? blocks.map(outputPart)
    : joinedText(blocks);
  return { type: 'function_call_output', call_id: callId, output };
}

/**
 * One `function_call` item answered: read, run through `runtime.execute`, rendered as its
 * `function_call_output`. An item the adapter refuses (a `custom_tool_call`, malformed arguments)
 * is answered with its `Error INVALID_ARGS: …` text, so the loop goes on.
 * @throws IsocodeError INVALID_ARGS only when the item has no `call_id` to answer.
 */
export async function answerOpenAiFunctionCall(
  runtime: Pick<Runtime, 'execute'>,
  item: unknown,
  options?: ExecuteOptions,
): Promise<OpenAiFunctionCallOutput> {
  const id = text(record(item, 'an OpenAI function_call item').call_id, "an OpenAI item's call_id");
  return answerCall(
    runtime,
    () => fromOpenAiFunctionCall(item),
    options,
    (_ok, blocks) => outputItem(id, blocks),
  );
}
