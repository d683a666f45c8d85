type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };
// prettier-ignore
type ToolErrorCode = "INVALID_ARGS" | "UNKNOWN_TOOL" | "DENIED" | "TOOL_ERROR" | "TOOL_TIMEOUT" | "INVALID_TOOL_OUTPUT" | "ABORTED" | "ABORTED_BEFORE_DISPATCH" | "LIMIT_EXCEEDED" | "UPSTREAM_ERROR" | "UPSTREAM_UNAVAILABLE" | "INTERNAL_ERROR";
/** What a failed `tools.*` call rejects with. */
// prettier-ignore
declare class ToolCallError extends Error { private constructor(); readonly name: "ToolCallError"; readonly toolName: string; readonly code: ToolErrorCode }
// prettier-ignore
interface Console { log(...data: unknown[]): void; info(...data: unknown[]): void; warn(...data: unknown[]): void; error(...data: unknown[]): void; debug(...data: unknown[]): void }
// eslint-disable-next-line no-var -- `var` merges with any other global console declaration
declare var console: Console;
