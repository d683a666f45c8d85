type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };
// prettier-ignore
type ToolErrorCode = "INVALID_ARGS"|"UNKNOWN_TOOL"|"DENIED"|"TOOL_ERROR"|"TOOL_TIMEOUT"|"INVALID_TOOL_OUTPUT"|"ABORTED"|"ABORTED_BEFORE_DISPATCH"|"LIMIT_EXCEEDED"|"UPSTREAM_ERROR"|"UPSTREAM_UNAVAILABLE"|"INTERNAL_ERROR";
// prettier-ignore
declare class ToolCallError extends Error { private constructor(); readonly name: "ToolCallError"; readonly toolName: string; readonly code: ToolErrorCode }
// prettier-ignore
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- an interface merges with any other global Console (a type alias would not)
interface Console extends Record<"log"|"info"|"warn"|"error"|"debug", (...data: unknown[]) => void> {}
// eslint-disable-next-line no-var -- `var` merges with any other global console declaration
declare var console: Console;
