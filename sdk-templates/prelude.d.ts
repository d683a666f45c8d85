/** A JSON value: what tools accept and return, and what a program may return. */
type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/** Why a tool call failed. */
// prettier-ignore
type ToolErrorCode =
  | "INVALID_ARGS"
  | "UNKNOWN_TOOL"
  | "DENIED"
  | "TOOL_ERROR"
  | "TOOL_TIMEOUT"
  | "INVALID_TOOL_OUTPUT"
  | "ABORTED"
  | "ABORTED_BEFORE_DISPATCH"
  | "LIMIT_EXCEEDED"
  | "UPSTREAM_ERROR"
  | "UPSTREAM_UNAVAILABLE"
  | "INTERNAL_ERROR";

/** What a failed `tools.*` call rejects with. */
// prettier-ignore
declare class ToolCallError extends Error {
  private constructor();
  readonly name: "ToolCallError";
  /** The tool that failed. */
  readonly toolName: string;
  readonly code: ToolErrorCode;
}

/** Console output is captured and returned with the program's result. */
interface Console {
  log(...args: unknown[]): void;
  info(...args: unknown[]): void;
  warn(...args: unknown[]): void;
  error(...args: unknown[]): void;
  debug(...args: unknown[]): void;
}
// eslint-disable-next-line no-var -- `var` merges with any other global console declaration
declare var console: Console;
