/**
 * What one HTTP answer of `/v1/run` counts as. A `429` with `Retry-After` is admission control doing
 * its job (not a failure); a `5xx`, a `429` without `Retry-After`, a reset or a timeout is a failure.
 */

/** The class of one answer. */
export type Outcome =
  | 'ok' // 200, the run succeeded
  | 'run-failed' // 200, a ToolResult with ok: false
  | 'refused' // 429 with Retry-After
  | 'refused-without-retry-after'
  | 'client-error' // another 4xx
  | 'server-error' // 5xx
  | 'bad-body'; // 200 whose body is not a ToolResult

/** One classified answer. */
export interface Answer {
  outcome: Outcome;
  status: number;
  /** The ToolResult's `meta.callId` of a 200 answer. */
  callId?: string;
  /** `error.code` of a failed run or a request-level error. */
  code?: string;
  /** `error.details.kind` of a failed run. */
  kind?: string;
}

const field = (value: unknown, key: string): unknown =>
  typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined;
const text = (value: unknown): string | undefined =>
  typeof value === 'string' ? value : undefined;

const withCode = (answer: Answer, code: string | undefined): Answer =>
  code === undefined ? answer : { ...answer, code };

/** Classifies a status, its body text and whether the response carried `Retry-After`. */
export function classify(status: number, body: string, hasRetryAfter: boolean): Answer {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body) as unknown;
  } catch {
    parsed = undefined;
  }
  const error = field(parsed, 'error');
  const code = text(field(error, 'code'));
  if (status === 429)
    return withCode(
      { outcome: hasRetryAfter ? 'refused' : 'refused-without-retry-after', status },
      code,
    );
  if (status >= 500) return withCode({ outcome: 'server-error', status }, code);
  if (status !== 200) return withCode({ outcome: 'client-error', status }, code);
  const ok = field(parsed, 'ok');
  const callId = text(field(field(parsed, 'meta'), 'callId'));
  if (typeof ok !== 'boolean' || callId === undefined) return { outcome: 'bad-body', status };
  if (ok) return { outcome: 'ok', status, callId };
  const kind = text(field(field(error, 'details'), 'kind'));
  return {
    outcome: 'run-failed',
    status,
    callId,
    ...(code === undefined ? {} : { code }),
    ...(kind === undefined ? {} : { kind }),
  };
}

/** Outcomes that break the service's promises (for any program, benign or hostile). */
export const FAILURE_OUTCOMES: ReadonlySet<Outcome> = new Set([
  'refused-without-retry-after',
  'server-error',
  'bad-body',
]);
