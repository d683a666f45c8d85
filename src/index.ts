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
export { createRuntime } from './runtime.js';
export type {
  Runtime,
  RuntimeOptions,
  CodeModeOptions,
  RuntimeStats,
  PromptSection,
} from './runtime-types.js';
export type { TypecheckMode, RunTimings, IsolateRunnerOptions } from './run-code/isolate-runner.js';
export type { WallMode, WallStatus } from './wall/wall.js';
export type { RenderedSdk, SdkBinding, SdkWarning } from './sdk/index.js';
export type { SandboxLimits } from './sandbox/index.js';
export type { WorkerPoolOptions, WorkerPoolStats } from './sandbox/worker/supervisor.js';
export type { AdmissionOptions, AdmissionStats } from './run-code/admission.js';
export { RUN_CODE, TOOL_NAME_PATTERN, isValidToolName } from './tools/names.js';
export { DEFAULT_SCOPE } from './tools/scopes.js';
export type { ScopeConfig } from './tools/scopes.js';
export {
  WIRE_FORMATS,
  toOpenAiTools,
  toOpenAiResponsesTools,
  toAnthropicTools,
  toMcpTools,
  toWireFormat,
} from './tools/wire.js';
export type {
  WireFormat,
  ObjectJsonSchema,
  OpenAiTool,
  OpenAiResponsesTool,
  AnthropicTool,
  McpTool,
} from './tools/wire.js';
export { PROVIDER_NAME_PATTERN, wireNameTable } from './tools/wire-names.js';
export type { WireNameTable } from './tools/wire-names.js';
export {
  answerOpenAiToolCall,
  fromOpenAiToolCall,
  toOpenAiToolMessage,
  answerOpenAiFunctionCall,
  fromOpenAiFunctionCall,
  toOpenAiFunctionCallOutput,
  ANTHROPIC_IMAGE_TYPES,
  answerAnthropicToolUse,
  fromAnthropicToolUse,
  toAnthropicToolResult,
} from './providers/index.js';
export type {
  OpenAiToolCall,
  OpenAiFunctionToolCall,
  OpenAiCustomToolCall,
  OpenAiToolMessage,
  OpenAiFunctionCall,
  OpenAiFunctionCallOutput,
  OpenAiFunctionCallOutputPart,
  AnthropicToolUse,
  AnthropicToolResult,
  AnthropicResultBlock,
  AnthropicImageMediaType,
} from './providers/index.js';
export { modelContent } from './executor/outcome.js';
export type {
  ToolCall,
  ExecuteOptions,
  ToolResult,
  ToolErrorInfo,
  DenyReason,
  ResultMeta,
  Stage,
  CallInfo,
  HookContext,
  PreExecuteHook,
  PreExecuteDecision,
  GuardHook,
  GuardDecision,
  ExecuteMiddleware,
  ExecuteContext,
  BodyOutcome,
  PostExecuteHook,
  PostExecuteContext,
  PostExecuteDecision,
  Hooks,
} from './executor/types.js';
export { STAGES } from './executor/types.js';
export type {
  Approver,
  ApprovalAnswer,
  ApprovalOutcome,
  ApprovalRequest,
} from './executor/approval.js';
export type {
  ExecutorEvent,
  ExecutorEventType,
  EventListener,
  AuditOptions,
} from './executor/events.js';
export type { ParentToken } from './tools/types.js';
export type {
  CodeRunner,
  RunnerContext,
  RunCodeValue,
  RunFailureKind,
  RunFailureDetails,
  RunProgressEvent,
  LogLine,
  CallLine,
  ProgramDiagnostic,
} from './run-code/types.js';
