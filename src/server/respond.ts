/** Error responses: `{ error: { code, message, details? }, requestId }` with the table's status. */
import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { isIsocodeError, type ErrorCode } from '../index.js';
import { httpStatus } from './status.js';

/** The Hono environment of the service's app. */
export interface HttpEnv {
  Variables: {
    /** The request id (echoed from `x-request-id` when sane, else generated). */
    requestId: string;
    /** The request's abort signal, captured before any middleware can replace the request. */
    signal: AbortSignal;
    /** The scope the caller's key is bound to. */
    scope: string;
    /** The name of the caller's key, when it has one (`ApiKey.name`). */
    keyName: string | undefined;
  };
}

/** The JSON error body of a request-level failure. */
export interface HttpErrorBody {
  error: { code: ErrorCode; message: string; details?: Record<string, unknown> };
  requestId: string;
}

const requestIdOf = (c: Context): string => {
  const id: unknown = c.get('requestId');
  return typeof id === 'string' ? id : '';
};

/** A request-level error response. */
export function errorResponse<C extends Context>(
  // Hono hands some callbacks (body-limit, onError) a loosely typed Context: accept any.
  c: C,
  code: ErrorCode,
  message: string,
  details?: Record<string, unknown>,
  headers?: Record<string, string>,
): Response {
  const body: HttpErrorBody = {
    error: details === undefined ? { code, message } : { code, message, details },
    requestId: requestIdOf(c),
  };
  // A refusal that says when to come back (OVERLOADED) says it in the standard header too.
  const retry = details?.['retryAfterSeconds'];
  const withRetry =
    typeof retry === 'number' && Number.isFinite(retry) && retry >= 0
      ? { ...headers, 'Retry-After': String(Math.ceil(retry)) }
      : headers;
  return c.json(body, httpStatus(code) as ContentfulStatusCode, withRetry);
}

/** The response for an error thrown by a handler (IsocodeErrors keep their code; others are INTERNAL_ERROR). */
export function thrownResponse<C extends Context>(c: C, err: unknown): Response {
  if (isIsocodeError(err)) return errorResponse(c, err.code, err.message, err.details);
  return errorResponse(c, 'INTERNAL_ERROR', 'internal error');
}
