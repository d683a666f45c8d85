/** Adapters between provider tool-call shapes and `runtime.execute`. */
export { answerOpenAiToolCall, fromOpenAiToolCall, toOpenAiToolMessage } from './openai.js';
export type {
  OpenAiToolCall,
  OpenAiFunctionToolCall,
  OpenAiCustomToolCall,
  OpenAiToolMessage,
} from './openai.js';
export {
  answerOpenAiFunctionCall,
  fromOpenAiFunctionCall,
  toOpenAiFunctionCallOutput,
} from './openai-responses.js';
export type {
  OpenAiFunctionCall,
  OpenAiFunctionCallOutput,
  OpenAiFunctionCallOutputPart,
} from './openai-responses.js';
export {
  ANTHROPIC_IMAGE_TYPES,
  answerAnthropicToolUse,
  fromAnthropicToolUse,
  toAnthropicToolResult,
} from './anthropic.js';
export type {
  AnthropicToolUse,
  AnthropicToolResult,
  AnthropicResultBlock,
  AnthropicImageMediaType,
} from './anthropic.js';
