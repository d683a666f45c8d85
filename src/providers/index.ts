/** Adapters between provider tool-call shapes and `runtime.execute`. */
export { fromOpenAiToolCall, toOpenAiToolMessage } from './openai.js';
export type { OpenAiToolCall, OpenAiToolMessage } from './openai.js';
export { fromAnthropicToolUse, toAnthropicToolResult } from './anthropic.js';
export type { AnthropicToolUse, AnthropicToolResult, AnthropicResultBlock } from './anthropic.js';
