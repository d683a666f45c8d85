/**
 * The approval seam: a pre-execute `ask` is resolved by a pluggable approver into a closed
 * outcome. It never rejects: no approver, a throw, a bad answer or a time-out are contained.
 */
import type { JsonValue } from '../json.js';

/** The closed set of approval outcomes. Only `allowed-once` lets the call proceed. */
export type ApprovalOutcome = 'allowed-once' | 'rejected' | 'cancelled' | 'unavailable';

const OUTCOMES: readonly ApprovalOutcome[] = [
  'allowed-once',
  'rejected',
  'cancelled',
  'unavailable',
];

/** What an approver is asked. */
export interface ApprovalRequest {
  callId: string;
  name: string;
  args: JsonValue;
  scope: string;
  parentId: string | undefined;
  /** The messages of the hooks that asked. */
  messages: string[];
}

/** Decides an approval request. The signal aborts when the call is aborted (answer ignored then). */
export type Approver = (
  request: ApprovalRequest,
  signal: AbortSignal,
) => ApprovalOutcome | Promise<ApprovalOutcome>;

/**
 * Asks `approver` and always resolves to an outcome: no approver → `unavailable` (fail closed);
 * a throw or an answer outside the closed set → `unavailable`; no answer within `timeoutMs` →
 * `unavailable`; `signal` aborted → `cancelled`. Answers after settlement are discarded.
 */
export function requestApproval(
  approver: Approver | undefined,
  request: ApprovalRequest,
  signal: AbortSignal,
  timeoutMs: number,
): Promise<ApprovalOutcome> {
  if (!approver) return Promise.resolve('unavailable');
  if (signal.aborted) return Promise.resolve('cancelled');
  return new Promise<ApprovalOutcome>((resolve) => {
    let settled = false;
    const inner = new AbortController();
    const settle = (outcome: ApprovalOutcome): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      if (outcome !== 'allowed-once' && !inner.signal.aborted) inner.abort();
      resolve(outcome);
    };
    const onAbort = (): void => settle('cancelled');
    const timer = setTimeout(() => settle('unavailable'), timeoutMs);
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      Promise.resolve(approver(request, inner.signal)).then(
        (answer) => settle(OUTCOMES.includes(answer) ? answer : 'unavailable'),
        () => settle('unavailable'),
      );
    } catch {
      settle('unavailable');
    }
  });
}
