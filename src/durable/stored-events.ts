/**
 * The events the store writes with its changes, each in the change's own transaction: one shape
 * per event (an approval's, a queued run's, a life's start, a park), and the settlement's rule
 * (which status it settles and which events end the run's story). Both engines and the test
 * memory store use these; nothing else spells them (decision 020).
 */
import type { JsonValue } from '../json.js';
import type { ApprovalRecord, NewEvent, RunRecord, RunStatus, Settlement } from './records.js';

/**
 * The data of a run's `approval` event: the one shape, written by the store in the same
 * transaction as each change of the approval (asked, decided, expired, cancelled when its run
 * settled), so an approval never changes without its event, nor gets one twice.
 */
export function approvalEventData(a: ApprovalRecord): JsonValue {
  return {
    id: a.id,
    tool: a.tool,
    status: a.status,
    reason: a.reason,
    decidedBy: a.decidedBy ?? null,
  };
}

/** The `status` event a run created without a lease is queued with (see {@link RunStore.createRun}). */
export const QUEUED_EVENT: JsonValue = { status: 'queued' };

/**
 * The `status` event a life starts with, written with the claim or the leased insert that begins
 * it (one transaction): `replay` when an earlier life ran the run (epoch > 1).
 */
export function lifeEventData(owner: string, epoch: number): JsonValue {
  return { status: 'running', replica: owner, ...(epoch > 1 ? { replay: true } : {}) };
}

/** The `status` event a parked release writes (see {@link RunStore.releaseRun}). */
export const PARKED_EVENT: JsonValue = { status: 'waiting-approval', parked: true };

/** What a settlement writes, decided from the run as stored in the settlement's transaction. */
export interface SettlementPlan {
  status: RunStatus;
  result: JsonValue | undefined;
  error: JsonValue | undefined;
  /** Null for `interrupted`. */
  finishedAt: number | null;
  /** After the leftover approvals' events: a `status` event when it becomes `cancelled`, then `result`. */
  events: NewEvent[];
}

/**
 * The one rule of every store's settlement: a cancel committed before it wins (the run settles
 * `cancelled`, the cancel's event already written), a run that becomes `cancelled` here gets its
 * `status` event, and every settlement ends with its `result` event — the last event of the run,
 * which SSE followers stop at (an `interrupted` run's result is followed by a later life's).
 */
export function planSettlement(stored: RunRecord, s: Settlement, now: number): SettlementPlan {
  const status: RunStatus = stored.status === 'cancelled' ? 'cancelled' : s.status;
  const events: NewEvent[] = [];
  if (status === 'cancelled' && stored.status !== 'cancelled')
    events.push({ type: 'status', data: { status } });
  events.push({
    type: 'result',
    data: {
      status,
      result: s.result ?? null,
      ...(s.error === undefined ? {} : { error: s.error }),
    },
  });
  return {
    status,
    result: s.result,
    error: s.error,
    finishedAt: status === 'interrupted' ? null : (s.finishedAt ?? now),
    events,
  };
}
