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

/** An approver's answer with who gave it (recorded in the `approval/decided` event and the audit). */
export interface ApprovalAnswer {
  outcome: ApprovalOutcome;
  /** Who decided, for example `http:<scope>:<request id>` for a decision posted over HTTP. */
  decidedBy?: string | undefined;
}

/**
 * Decides an approval request: an outcome, or an {@link ApprovalAnswer} saying who decided. The
 * signal aborts when the call is aborted (answer ignored then).
 */
export type Approver = (
  request: ApprovalRequest,
  signal: AbortSignal,
) => ApprovalOutcome | ApprovalAnswer | Promise<ApprovalOutcome | ApprovalAnswer>;

const isOutcome = (v: unknown): v is ApprovalOutcome => OUTCOMES.includes(v as ApprovalOutcome);

/** An approver's answer, checked: anything outside the closed set is `unavailable`. */
function answerOf(answer: unknown): ApprovalAnswer {
  if (isOutcome(answer)) return { outcome: answer };
  if (typeof answer !== 'object' || answer === null) return { outcome: 'unavailable' };
  const { outcome, decidedBy } = answer as { outcome?: unknown; decidedBy?: unknown };
  if (!isOutcome(outcome)) return { outcome: 'unavailable' };
  return typeof decidedBy === 'string' ? { outcome, decidedBy } : { outcome };
}

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
): Promise<ApprovalAnswer> {
  if (!approver) return Promise.resolve({ outcome: 'unavailable' });
  if (signal.aborted) return Promise.resolve({ outcome: 'cancelled' });
  return new Promise<ApprovalAnswer>((resolve) => {
    let settled = false;
    const inner = new AbortController();
    // The approver's signal aborts only when its ask is given up (the call aborted, the time-out):
    // once it answered, its work is done. (An aborted signal after an answer made the MCP face
    // cancel an elicitation the client had already answered.)
    const settle = (answer: ApprovalAnswer, answered = false): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      if (!answered && !inner.signal.aborted) inner.abort();
      resolve(answer);
    };
    const onAbort = (): void => settle({ outcome: 'cancelled' });
    const timer = setTimeout(() => settle({ outcome: 'unavailable' }), timeoutMs);
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      Promise.resolve(approver(request, inner.signal)).then(
        (answer) => settle(answerOf(answer), true),
        () => settle({ outcome: 'unavailable' }, true),
      );
    } catch {
      settle({ outcome: 'unavailable' });
    }
  });
}
