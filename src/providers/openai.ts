/**
 * OpenAI Chat Completions adapters: a `tool_calls` entry of an assistant message to the call
 * `runtime.execute` takes, and a {@link ToolResult} to the `tool` role message that answers it.
 * The types match the `openai` package's (`ChatCompletionMessageToolCall`,
 * `ChatCompletionToolMessageParam`) both ways; test/providers/sdk-types.test.ts pins that.
 */
import type { ExecuteOptions, ToolCall, ToolResult } from '../executor/types.js';
import type { Runtime } from '../runtime-types.js';
import {
  answerCall,
  customToolCallError,
  jsonArgs,
  joinedText,
  record,
  resultText,
  text,
} from './content.js';

/** A function `tool_calls` entry (`arguments` is a JSON string). */
export interface OpenAiFunctionToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

/** A custom-tool `tool_calls` entry (free-form `input`); isocode answers it with INVALID_ARGS. */
export interface OpenAiCustomToolCall {
  id: string;
  type: 'custom';
  custom: { name: string; input: string };
}

/** A `tool_calls` entry of an OpenAI assistant message, as the SDK's `ChatCompletionMessageToolCall`. */
export type OpenAiToolCall = OpenAiFunctionToolCall | OpenAiCustomToolCall;

/** The `tool` role message answering one tool call. */
export interface OpenAiToolMessage {
  role: 'tool';
  tool_call_id: string;
  content: string;
}

/**
 * The call `runtime.execute` takes for an OpenAI `tool_calls` entry (any variant of the union:
 * no narrowing needed). The name is the wire name the model saw; `execute` maps it back to the tool.
 * @throws IsocodeError INVALID_ARGS when the entry is malformed, `arguments` is not a JSON object,
 *   or the entry is a custom tool call (`details.type: "custom"`).
 */
export function fromOpenAiToolCall(toolCall: unknown): ToolCall {
  const entry = record(toolCall, 'an OpenAI tool call');
  if (entry.type === 'custom') {
    const custom = entry.custom;
    const name =
      typeof custom === 'object' && custom !== null
        ? (custom as Record<string, unknown>).name
        : undefined;
    throw customToolCallError('the OpenAI tool call', name);
  }
  const fn = record(entry.function, 'an OpenAI tool call\'s "function"');
  const name = text(fn.name, "an OpenAI tool call's function name");
  const id = text(entry.id, "an OpenAI tool call's id");
  return { name, args: jsonArgs(fn.arguments, name), id };
}

/**
 * The `tool` role message for a result: the text the model reads ({@link modelContent}; a
 * failure's already starts with `Error CODE`). Images become a one-line placeholder: a tool
 * message carries text only.
 */
export function toOpenAiToolMessage(toolCallId: string, result: ToolResult): OpenAiToolMessage {
  return { role: 'tool', tool_call_id: toolCallId, content: resultText(result) };
}

/**
 * One `tool_calls` entry answered: read, run through `runtime.execute`, rendered as the `tool`
 * message. An entry the adapter refuses (a custom tool call, malformed arguments) is answered
 * with its `Error INVALID_ARGS: …` text, so the loop goes on.
 * @throws IsocodeError INVALID_ARGS only when the entry has no id to answer.
 */
export async function answerOpenAiToolCall(
  runtime: Pick<Runtime, 'execute'>,
  toolCall: unknown,
  options?: ExecuteOptions,
): Promise<OpenAiToolMessage> {
  const id = text(record(toolCall, 'an OpenAI tool call').id, "an OpenAI tool call's id");
  return answerCall(
    runtime,
    () => fromOpenAiToolCall(toolCall),
    options,
    (_ok, blocks) => ({
      role: 'tool',
      tool_call_id: id,
      content: joinedText(blocks),
    }),
  );
}
