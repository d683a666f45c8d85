/**
 * isocode's error model: one base class with a stable string `code`, identified by a marker
 * (not `instanceof`, which breaks across realms and duplicated package copies).
 */
import { findJsonProblem } from './json.js';

/** Every stable error code isocode reports. Codes never change meaning once published. */
export const ERROR_CODES = [
  // executor
  'INVALID_ARGS',
  'UNKNOWN_TOOL',
  'INVALID_PARENT',
  'ABORTED_BEFORE_DISPATCH',
  'ABORTED',
  'DENIED',
  'TOOL_ERROR',
  'TOOL_TIMEOUT',
  'INVALID_TOOL_OUTPUT',
  'LIMIT_EXCEEDED',
  'INTERNAL_ERROR',
  // run_code
  'CODE_RUN_FAILED',
  // durable runs: a replayed program took another path than the run it replays
  'REPLAY_DIVERGED',
  // durable runs: the run store cannot be reached; a scope's quota of queued runs or stored bytes is used up
  'STORE_UNAVAILABLE',
  'QUOTA_EXCEEDED',
  // durable runs: a stored record does not read whole (edited by hand or damaged); its run is failed, not run
  'STORE_CORRUPT',
  // durable runs: an Idempotency-Key reused with a different request
  'IDEMPOTENCY_MISMATCH',
  // registration and configuration
  'INVALID_TOOL_DEFINITION',
  'INVALID_SCOPE',
  'INVALID_CONFIG',
  // an optional package a feature needs is not installed (the message names the install command)
  'DEPENDENCY_MISSING',
  // upstream tool sources
  'UPSTREAM_ERROR',
  'UPSTREAM_UNAVAILABLE',
  // service
  'UNAUTHORIZED',
  'FORBIDDEN',
  'BAD_REQUEST',
  'PAYLOAD_TOO_LARGE',
  'NOT_FOUND',
  'SHUTTING_DOWN',
  'OVERLOADED',
] as const;

/** A stable, machine-readable error code. */
export type ErrorCode = (typeof ERROR_CODES)[number];

const MARKER = Symbol.for('isocode.error');

/** Options accepted by {@link IsocodeError}. */
export interface IsocodeErrorOptions {
  /** Structured, JSON-safe details (for example the failing paths of INVALID_ARGS). */
  details?: Record<string, unknown>;
  /** The underlying error, kept for the host's logs; never shown to a model. */
  cause?: unknown;
}

/** The base class of every error isocode throws. Check with {@link isIsocodeError}. */
export class IsocodeError extends Error {
  /** Stable code, see {@link ErrorCode}. */
  readonly code: ErrorCode;
  /** Structured, JSON-safe details. */
  readonly details: Record<string, unknown> | undefined;
  private readonly [MARKER] = true;

  constructor(code: ErrorCode, message: string, options: IsocodeErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'IsocodeError';
    this.code = code;
    this.details = options.details;
  }

  /** A JSON form with no stack and no cause. */
  toJSON(): { code: ErrorCode; message: string; details?: Record<string, unknown> } {
    return this.details === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, details: this.details };
  }
}

/** True when `value` is an {@link IsocodeError} (from any copy of the package). */
export function isIsocodeError(value: unknown): value is IsocodeError {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as Record<symbol, unknown>)[MARKER] === true &&
    typeof (value as { code?: unknown }).code === 'string'
  );
}

/** True when `value` is one of the published {@link ErrorCode}s. */
export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && (ERROR_CODES as readonly string[]).includes(value);
}

/**
 * The text of whatever was thrown — the one way a thrown value becomes a message: an Error's
 * `message` (its `name` when the message is empty or not a string), a string as it is, a JSON value
 * as its JSON (a value {@link findJsonProblem} bounds first, so a graph that shares its parts cannot
 * hold the thread), anything else as `String()`. It never throws, whatever the value's getters,
 * proxy traps or `toString` do; callers clip the text where it goes.
 */
export function thrownText(thrown: unknown): string {
  try {
    if (typeof thrown === 'string') return thrown;
    if (thrown instanceof Error) {
      const message: unknown = thrown.message;
      if (typeof message === 'string' && message !== '') return message;
      const name: unknown = thrown.name;
      return typeof name === 'string' && name !== '' ? name : 'Error';
    }
    if (typeof thrown === 'object' && thrown !== null && findJsonProblem(thrown) === undefined)
      return JSON.stringify(thrown);
    return String(thrown);
  } catch {
    return 'a thrown value that could not be read';
  }
}
