/**
 * The one table from isocode error codes to HTTP statuses. It applies to request-level failures
 * (authentication, validation, size, shutdown, server configuration). Tool outcomes of
 * `/v1/execute` and `/v1/run` are always 200 with the ToolResult: the HTTP call succeeded even when
 * the tool failed (see docs/http.md).
 */
import type { ErrorCode } from '../index.js';

/**
 * HTTP status by error code. 499 is nginx's "client closed request": an abort that reaches a
 * response was started by the client going away (server-side aborts report SHUTTING_DOWN).
 */
export const HTTP_STATUS: Readonly<Record<ErrorCode, number>> = Object.freeze({
  // executor
  INVALID_ARGS: 400,
  UNKNOWN_TOOL: 404,
  INVALID_PARENT: 400,
  ABORTED_BEFORE_DISPATCH: 499,
  ABORTED: 499,
  DENIED: 403,
  TOOL_ERROR: 500,
  TOOL_TIMEOUT: 504,
  INVALID_TOOL_OUTPUT: 502,
  LIMIT_EXCEEDED: 422,
  INTERNAL_ERROR: 500,
  // run_code
  CODE_RUN_FAILED: 422,
  REPLAY_DIVERGED: 409,
  STORE_UNAVAILABLE: 503,
  QUOTA_EXCEEDED: 429,
  STORE_CORRUPT: 500,
  IDEMPOTENCY_MISMATCH: 422,
  // registration and configuration: the server is misconfigured, not the request
  INVALID_TOOL_DEFINITION: 500,
  INVALID_SCOPE: 500,
  INVALID_CONFIG: 500,
  DEPENDENCY_MISSING: 500,
  // upstream tool sources
  UPSTREAM_ERROR: 502,
  UPSTREAM_UNAVAILABLE: 503,
  // service
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  BAD_REQUEST: 400,
  PAYLOAD_TOO_LARGE: 413,
  NOT_FOUND: 404,
  SHUTTING_DOWN: 503,
  OVERLOADED: 429,
});

/** The HTTP status of an error code (500 for anything unknown). */
export function httpStatus(code: string): number {
  return Object.hasOwn(HTTP_STATUS, code) ? HTTP_STATUS[code as ErrorCode] : 500;
}
