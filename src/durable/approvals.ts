/**
 * The parked approver: an `ask` of a nested call inside a durable run becomes a pending approval in
 * the store, answered later by a human over HTTP (any replica), or by a time-out (`unavailable`).
 * Asks outside a durable run go to the fallback approver (or fail closed).
 */
import { randomUUID } from 'node:crypto';
import type {
  ApprovalAnswer,
  ApprovalOutcome,
  ApprovalRequest,
  Approver,
} from '../executor/approval.js';
import type { ApprovalRecord, RunStore } from './store.js';

/** What the approver learns about the run an ask belongs to, and tells it. */
export interface ParkedRunLink {
  /** The durable run of a run_code call id (the ask's `parentId`) in `scope`; undefined for other calls. */
  runOf(parentId: string, scope: string): string | undefined;
  /**
   * Resolves once the events run `runId`'s life queued so far are written (its call's start among
   * them): an ask is stored after them, so a timeline reads the call, then why it waits.
   */
  written(runId: string): Promise<unknown>;
  /** An approval was parked (the run now waits for a human). */
  asked(approval: ApprovalRecord): void;
  /** A parked approval was settled (by a human, the time-out or a cancel). */
  settled(approval: ApprovalRecord): void;
  /**
   * True while the run's life ends on purpose and its approvals must stay pending for the next
   * life (the run is being parked, or this replica shuts down): an aborted wait then leaves the
   * approval as it is instead of cancelling it.
   */
  keepsApprovals(runId: string): boolean;
}

/** Options of {@link createParkedApprover}. */
export interface ParkedApproverOptions {
  store: RunStore;
  link: ParkedRunLink;
  /** Asks of calls outside durable runs. @default none: they are `unavailable` */
  fallback?: Approver | undefined;
  /** How long a parked approval waits for a human before it settles `unavailable`. @default 86400000 (24 h) */
  timeoutMs?: number | undefined;
}

const TO_OUTCOME: Record<string, ApprovalOutcome> = {
  'allowed-once': 'allowed-once',
  rejected: 'rejected',
  cancelled: 'cancelled',
  unavailable: 'unavailable',
};

/** Who settles approvals no human decided (a time-out, a cancel, a run that ended). */
export const ISOCODE_DECIDER = 'isocode';

/**
 * Settles every approval of run `runId` that is still pending as `cancelled`, decided by isocode:
 * called when the run has settled (succeeded, failed, cancelled, interrupted), so no approval of a
 * finished run waits for a human forever (for example the sibling asks of a `Promise.all` whose
 * program threw, or asks an earlier life made that a diverged replay never reached). A decision a
 * human posts at the same moment wins or loses by the store's first-decision-wins rule.
 * @returns the approvals it settled.
 */
export async function cancelLeftoverApprovals(
  store: Pick<RunStore, 'listApprovals' | 'decideApproval'>,
  runId: string,
): Promise<ApprovalRecord[]> {
  const pending = await store.listApprovals({ runId, status: ['pending'], limit: 1000 });
  const settled = await Promise.all(
    pending.map((a) => store.decideApproval(a.id, 'cancelled', ISOCODE_DECIDER)),
  );
  return settled.filter((a): a is ApprovalRecord => a !== undefined);
}

/** The parked approver. Never rejects: a store failure is `unavailable`. */
export function createParkedApprover(options: ParkedApproverOptions): Approver {
  const { store, link } = options;
  const timeoutMs = options.timeoutMs ?? 86_400_000;
  return async (
    request: ApprovalRequest,
    signal: AbortSignal,
  ): Promise<ApprovalOutcome | ApprovalAnswer> => {
    const runId =
      request.parentId === undefined ? undefined : link.runOf(request.parentId, request.scope);
    if (runId === undefined)
      return options.fallback ? options.fallback(request, signal) : 'unavailable';
    let parked: ApprovalRecord;
    try {
      await link.written(runId);
      // A replayed (or resumed) run asks again with the same call id (run id / call key): it
      // re-parks on the approval its earlier life made, or takes the decision already given — by a
      // human, or by the time-out; one isocode cancelled when an earlier life ended does not count:
      // the call asks anew.
      const earlier = (await store.listApprovals({ runId, limit: 1000 }))
        .filter((a) => a.callKey === request.callId)
        .pop();
      if (
        earlier !== undefined &&
        earlier.status !== 'pending' &&
        !(earlier.status === 'cancelled' && earlier.decidedBy === ISOCODE_DECIDER)
      ) {
        link.settled(earlier);
        return answerOf(earlier);
      }
      parked =
        (earlier?.status === 'pending' ? earlier : undefined) ??
        (await store.createApproval({
          id: `apr_${randomUUID()}`,
          runId,
          callKey: request.callId,
          tool: request.name,
          args: request.args,
          scope: request.scope,
          reason: request.messages.filter((m) => m.length > 0).join('\n'),
          expiresAt: Date.now() + Math.round(timeoutMs), // whole ms: an integer column
        }));
    } catch {
      return 'unavailable';
    }
    link.asked(parked);
    let final: ApprovalRecord | undefined = parked;
    try {
      // A re-parked ask keeps its first deadline: a restart or a resume never extends it.
      const left = Math.max(0, (parked.expiresAt ?? Date.now() + timeoutMs) - Date.now());
      const seen = await store.waitForDecision(parked.id, { signal, timeoutMs: left });
      final = seen;
      if (seen?.status === 'pending' && signal.aborted && link.keepsApprovals(runId)) {
        // The life ends on purpose (parked, shutting down): the ask waits for the next life.
        return { outcome: 'cancelled' };
      }
      if (seen?.status === 'pending') {
        // Nobody decided: the call was aborted (the run ended or was cancelled), or time ran out.
        const status = signal.aborted ? 'cancelled' : 'unavailable';
        final =
          (await store.decideApproval(parked.id, status, ISOCODE_DECIDER)) ??
          (await store.getApproval(parked.id));
      }
    } catch {
      final = { ...parked, status: 'unavailable' };
    }
    const settled = final ?? { ...parked, status: 'unavailable' as const };
    link.settled(settled);
    return answerOf(settled);
  };
}

/** The executor's answer for a settled approval: its outcome and who decided it. */
function answerOf(approval: ApprovalRecord): ApprovalAnswer {
  const outcome = TO_OUTCOME[approval.status] ?? 'unavailable';
  return approval.decidedBy === undefined
    ? { outcome }
    : { outcome, decidedBy: approval.decidedBy };
}
