/** Adapters between provider tool-call shapes and `runtime.execute`. */
export { fromOpenAiToolCall, toOpenAiToolMessage } from './openai.js';
export type {
  OpenAiToolCall,
  OpenAiFunctionToolCall,
  OpenAiCustomToolCall,
  OpenAiToolMessage,
} from './openai.js';
export { fromOpenAiFunctionCall, toOpenAiFunctionCallOutput } from './openai-responses.js';
export type {
  OpenAiFunctionCall,
  OpenAiFunctionCallOutput,
  OpenAiFunctionCallOutputPart,
} from './openai-responses.js';
export { ANTHROPIC_IMAGE_TYPES, fromAnthropicToolUse, toAnthropicToolResult } from './anthropic.js';
export type {
  AnthropicToolUse,
  AnthropicToolResult,
  AnthropicResultBlock,
  AnthropicImageMediaType,
} from './anthropic.js';
