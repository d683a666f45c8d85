/**
 * OpenAI Chat Completions adapters: a `tool_calls` entry of an assistant message to the call
 * `runtime.execute` takes, and a {@link ToolResult} to the `tool` role message that answers it.
 */
import { IsocodeError } from '../errors.js';
import type { ToolCall, ToolResult } from '../executor/types.js';
import { record, resultText, text } from './content.js';

/** A `tool_calls` entry of an OpenAI assistant message (`arguments` is a JSON string). */
export interface OpenAiToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

/** The `tool` role message answering one tool call. */
export interface OpenAiToolMessage {
  role: 'tool';
  tool_call_id: string;
  content: string;
}

/**
 * The call `runtime.execute` takes for an OpenAI `tool_calls` entry. The name is the wire name
 * the model saw; `execute` maps it back to the tool.
 * @throws IsocodeError INVALID_ARGS when the entry is malformed or `arguments` is not a JSON object.
 */
export function fromOpenAiToolCall(toolCall: unknown): ToolCall {
  const entry = record(toolCall, 'an OpenAI tool call');
  const fn = record(entry.function, 'an OpenAI tool call\'s "function"');
  const name = text(fn.name, "an OpenAI tool call's function name");
  const id = text(entry.id, "an OpenAI tool call's id");
  const raw = fn.arguments ?? '{}';
  if (typeof raw !== 'string')
    throw new IsocodeError('INVALID_ARGS', `the arguments of "${name}" must be a JSON string`);
  let args: unknown;
  try {
    args = JSON.parse(raw === '' ? '{}' : raw);
  } catch (error) {
    throw new IsocodeError('INVALID_ARGS', `the arguments of "${name}" are not valid JSON`, {
      cause: error,
    });
  }
  return { name, args: record(args, `the arguments of "${name}"`), id };
}

/** The `tool` role message for a result; failures carry their error code in the text. */
export function toOpenAiToolMessage(toolCallId: string, result: ToolResult): OpenAiToolMessage {
  const body = resultText(result);
  return {
    role: 'tool',
    tool_call_id: toolCallId,
    content: result.ok ? body : `Error ${result.error.code}: ${body}`,
  };
}
