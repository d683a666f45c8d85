/** CLI failures and their exit codes: 0 success, 1 a failed run or check, 2 a usage or config error. */
import { isIsocodeError, type ErrorCode, thrownText } from '../errors.js';

/** Exit code of a successful command. */
export const EXIT_OK = 0;
/** Exit code of a failed run, a check with diagnostics, or an unexpected error. */
export const EXIT_FAILURE = 1;
/** Exit code of a usage or configuration error (nothing ran). */
export const EXIT_USAGE = 2;

/** A usage problem (bad flag value, unreadable program file); exits 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/** Error codes that mean "the command could not start": exit 2. */
const STARTUP_CODES: readonly ErrorCode[] = [
  'INVALID_CONFIG',
  'INVALID_SCOPE',
  'INVALID_TOOL_DEFINITION',
  'DEPENDENCY_MISSING',
  'BAD_REQUEST',
  'UPSTREAM_UNAVAILABLE',
];

/** The message and exit code of an error that escaped a command. */
export function describeFailure(err: unknown): { message: string; exitCode: number } {
  if (err instanceof UsageError) return { message: err.message, exitCode: EXIT_USAGE };
  if (isIsocodeError(err))
    return {
      message: `${err.code}: ${err.message}`,
      exitCode: STARTUP_CODES.includes(err.code) ? EXIT_USAGE : EXIT_FAILURE,
    };
  const message = thrownText(err);
  return { message, exitCode: EXIT_FAILURE };
}
