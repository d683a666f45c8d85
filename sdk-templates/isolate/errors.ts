/**
 * `ToolCallError`: how a failed binding call surfaces in a program. It carries the tool's name and
 * the executor's stable error code and message — never a host stack or a host path (its stack is
 * the program's call site, captured in the isolate).
 */
import { ObjectDefineProperty } from './primordials.js';

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
 * A `ToolCallError` created at the call site (so its stack points at the program's line) whose
 * code and message are filled in when the call fails.
 */
export function callSiteError(toolName: string): ToolCallError {
  return new ToolCallError(toolName, '', '');
}

/** Fills in the code and message of an error made by {@link callSiteError}. */
export function setFailure(error: ToolCallError, code: string, message: string): ToolCallError {
  ObjectDefineProperty(error, 'code', {
    value: code,
    writable: true,
    enumerable: true,
    configurable: true,
  });
  ObjectDefineProperty(error, 'message', {
    value: message,
    writable: true,
    enumerable: false,
    configurable: true,
  });
  return error;
}
