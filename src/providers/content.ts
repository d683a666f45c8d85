/**
 * What the provider adapters share: reading a provider's call (hostile until checked) and
 * flattening what a model reads of a result ({@link modelContent}, the executor's content as it is).
 */
import { IsocodeError, isIsocodeError } from '../errors.js';
import { errorContent, modelContent } from '../executor/outcome.js';
import type { ExecuteOptions, ToolCall, ToolResult } from '../executor/types.js';
import type { Runtime } from '../runtime-types.js';
import type { ContentBlock } from '../tools/types.js';

/** Throws INVALID_ARGS unless `value` is an object; returns it typed as a record. */
export function record(value: unknown, what: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new IsocodeError('INVALID_ARGS', `${what} must be an object`);
  return value as Record<string, unknown>;
}

/** Throws INVALID_ARGS unless `value` is a non-empty string. */
export function text(value: unknown, what: string): string {
  if (typeof value !== 'string' || value.length === 0)
    throw new IsocodeError('INVALID_ARGS', `${what} must be a non-empty string`);
  return value;
}

/**
 * The arguments object of an OpenAI function call (Chat Completions or Responses): a JSON string
 * of an object; absent or empty means `{}`.
 */
export function jsonArgs(raw: unknown, name: string): Record<string, unknown> {
  const source = raw ?? '{}';
  if (typeof source !== 'string')
    throw new IsocodeError('INVALID_ARGS', `the arguments of "${name}" must be a JSON string`);
  let args: unknown;
  try {
    args = JSON.parse(source === '' ? '{}' : source);
  } catch (error) {
    throw new IsocodeError('INVALID_ARGS', `the arguments of "${name}" are not valid JSON`, {
      cause: error,
    });
  }
  return record(args, `the arguments of "${name}"`);
}

/**
 * The error for a call of an OpenAI custom tool (free-form text input): isocode renders function
 * tools only, so such a call is for a tool the caller declared itself.
 */
export function customToolCallError(what: string, name: unknown): IsocodeError {
  const label = typeof name === 'string' ? `"${name}"` : '(unnamed)';
  return new IsocodeError(
    'INVALID_ARGS',
    `${what} ${label} is a custom tool call (free-form input); isocode tools are function tools with JSON arguments, so answer this call in your own loop`,
    { details: { type: 'custom', ...(typeof name === 'string' ? { name } : {}) } },
  );
}

/** One content block as plain text (for providers whose tool results carry text only). */
export function blockText(block: ContentBlock): string {
  switch (block.type) {
    case 'text':
      return block.text;
    case 'image':
      return `[image ${block.mimeType}, ${block.data.length} base64 characters]`;
    case 'resource':
      return block.resource.text ?? block.resource.uri;
  }
}

/** Blocks as one string, separated by blank lines. */
export function joinedText(blocks: readonly ContentBlock[]): string {
  return blocks.map(blockText).join('\n\n');
}

/** What a model reads of a result as one string. */
export function resultText(result: ToolResult): string {
  return joinedText(modelContent(result));
}

/**
 * Reads a provider's call and runs it through `runtime.execute`; a call the adapter refuses
 * (malformed, a custom tool call) is answered with its error's content instead, so an agent
 * loop always has an answer to send. `answer` renders what the model reads.
 */
export async function answerCall<T>(
  runtime: Pick<Runtime, 'execute'>,
  read: () => ToolCall,
  options: ExecuteOptions | undefined,
  answer: (ok: boolean, blocks: ContentBlock[]) => T,
): Promise<T> {
  let call: ToolCall;
  try {
    call = read();
  } catch (error) {
    if (!isIsocodeError(error)) throw error;
    return answer(false, errorContent({ code: error.code, message: error.message }));
  }
  const result = await runtime.execute(call, options);
  return answer(result.ok, modelContent(result));
}
