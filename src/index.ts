/**
 * isocode's public API. Explicit named exports only: everything a user may rely on is listed here.
 */
export { IsocodeError, isIsocodeError, isErrorCode, ERROR_CODES } from './errors.js';
export type { ErrorCode, IsocodeErrorOptions } from './errors.js';
export { findJsonProblem, isJsonValue } from './json.js';
export type { JsonValue, JsonObject, JsonProblem } from './json.js';
export { defineTool } from './tools/define-tool.js';
export type {
  ToolDefinition,
  ToolContext,
  ToolSchema,
  JsonSchema,
  SchemaLike,
  PresentationMode,
  ContentBlock,
  OutcomeSummary,
} from './tools/types.js';
