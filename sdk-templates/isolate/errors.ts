/**
 * `ToolCallError`: how a failed binding call surfaces in a program. It carries the tool's name and
 * the executor's stable error code and message — never a host stack or a host path (its stack is
 * the program's own frames, captured in the isolate: see {@link toolCallError}).
 */
import { ErrorCaptureStackTrace, ObjectDefineProperty } from './primordials.js';

let brandCheck: (value: unknown) => boolean = () => false;

/** The error a failed `tools.*` call rejects with. */
export class ToolCallError extends Error {
  /** The tool that failed, e.g. `"files.read"`. */
  readonly toolName: string;
  /** The executor's stable code, e.g. `"INVALID_ARGS"`, `"DENIED"`, `"LIMIT_EXCEEDED"`. */
  readonly code: string;
  #brand = true;

  constructor(toolName: string, code: string, message: string) {
    super(message);
    this.toolName = toolName;
    this.code = code;
  }

  static {
    ObjectDefineProperty(ToolCallError.prototype, 'name', {
      value: 'ToolCallError',
      writable: true,
      enumerable: false,
      configurable: true,
    });
    brandCheck = (value) => typeof value === 'object' && value !== null && #brand in value;
  }
}

/** True for real `ToolCallError` instances (a brand check a program cannot forge). */
export function isToolCallError(value: unknown): value is ToolCallError {
  return brandCheck(value);
}

/**
 * A `ToolCallError` whose stack starts below `below` (V8's `Error.captureStackTrace`): the bridge's
 * own frames never show. Refusals pass the binding the program called, so the stack starts at the
 * program's call; failures reported by the host are made in the rejection handler of the promise
 * the program awaits, so the stack is V8's async frames — the program's `await` (nothing is
 * captured while the call is in flight: a capture costs 2–3 µs per call, decision record 004).
 */
export function toolCallError(
  toolName: string,
  code: string,
  message: string,
  below: (...args: never[]) => unknown,
): ToolCallError {
  const error = new ToolCallError(toolName, code, message);
  ErrorCaptureStackTrace(error, below);
  return error;
}
