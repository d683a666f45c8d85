/**
 * `ToolCallError`: how a failed binding call surfaces in a program. It carries the tool's name and
 * the executor's stable error code and message — never a host stack or a host path (its stack is
 * the program's call site, captured in the isolate).
 */
import {
  ErrorCaptureStackTrace,
  ObjectCreate,
  ObjectDefineProperty,
  stringIndexOf,
  stringSlice,
} from './primordials.js';

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

/** Where a binding was called: V8's stack captured at the call, formatted only if it is read. */
export type CallSite = object;

/**
 * Captures the program's stack at a binding call, without the bridge's own frames: everything above
 * and including `binding` (the `tools` function the program called) is left out. This is the only
 * per-call cost of a precise error position (about 1 µs per frame captured, so our frames matter);
 * the `ToolCallError` itself is made only if the call fails.
 */
export function captureCallSite(binding: (...args: never[]) => unknown): CallSite {
  const site = ObjectCreate(null) as object;
  ErrorCaptureStackTrace(site, binding);
  return site;
}

function siteFrames(site: CallSite): string {
  try {
    const stack: unknown = (site as { stack?: unknown }).stack;
    if (typeof stack !== 'string') return '';
    const firstBreak = stringIndexOf(stack, '\n');
    return firstBreak < 0 ? '' : stringSlice(stack, firstBreak);
  } catch {
    return '';
  }
}

/**
 * The `ToolCallError` of a failed call, its stack being the call site's frames under
 * `ToolCallError: <message>` (so positions point at the program's line, as if it had been thrown
 * there).
 */
export function callError(
  toolName: string,
  code: string,
  message: string,
  site: CallSite,
): ToolCallError {
  const error = new ToolCallError(toolName, code, message);
  ObjectDefineProperty(error, 'stack', {
    value: 'ToolCallError' + (message === '' ? '' : ': ' + message) + siteFrames(site),
    writable: true,
    enumerable: false,
    configurable: true,
  });
  return error;
}
