/**
 * The policy stages of a call, in order: pre-execute hooks (allow, deny, ask), guards (deny only),
 * then the approval seam for the asks. Guards run before approval: a call a guard refuses is a
 * deterministic denial and never reaches a human.
 */
import { performance } from 'node:perf_hooks';
import { requestApproval, type Approver } from './approval.js';
import type { EventBody } from './events.js';
import type { HookSet } from './hook-set.js';
import { failure, type StageOutcome, type StageTracker } from './outcome.js';
import type { HookContext } from './types.js';

/** What the policy stages need from the executor. */
export interface PolicyDeps {
  hooks: HookSet;
  approver: Approver | undefined;
  approvalTimeoutMs: number;
  /** Emits an event of this call. */
  emit(event: EventBody): void;
  /** Pauses the parent execution's wall clock while the approver is asked (nested calls only). */
  pause?: (() => () => void) | undefined;
}

const APPROVAL_DENIED = {
  rejected: 'the approver rejected the call',
  cancelled: 'the approval was cancelled',
  unavailable: 'no approval could be obtained (no approver answered)',
} as const;

/** Runs pre-execute, guards and approval. `ok` means the body may run. */
export async function decide(
  deps: PolicyDeps,
  ctx: HookContext,
  stages: StageTracker,
): Promise<StageOutcome<undefined>> {
  const { signal } = ctx;
  const go = { ok: true, value: undefined } as const;
  const live = (): StageOutcome<undefined> =>
    signal.aborted
      ? failure('ABORTED_BEFORE_DISPATCH', 'the call was aborted before it was dispatched')
      : go;

  stages.enter('pre-execute');
  const pre = await deps.hooks.runPre(ctx);
  if (pre.deny !== undefined) return failure('DENIED', pre.deny, { reason: 'policy' });
  if (signal.aborted) return live();

  stages.enter('guards');
  const guard = await deps.hooks.runGuards(ctx);
  if (guard !== undefined) return failure('DENIED', guard, { reason: 'guard' });
  if (pre.ask.length === 0 || signal.aborted) return live();

  stages.enter('approval');
  const message = pre.ask.filter((m) => m.length > 0).join('\n') || undefined;
  deps.emit({ type: 'approval/asked', message });
  const askedAt = performance.now();
  const { call } = ctx;
  const resume = deps.pause?.();
  const { outcome, decidedBy } = await requestApproval(
    deps.approver,
    {
      callId: call.id,
      name: call.name,
      args: call.args,
      scope: call.scope,
      parentId: call.parentId,
      messages: pre.ask,
    },
    signal,
    deps.approvalTimeoutMs,
  ).finally(resume);
  deps.emit({
    type: 'approval/decided',
    outcome,
    durationMs: performance.now() - askedAt,
    ...(decidedBy === undefined ? {} : { decidedBy }),
  });
  if (outcome === 'allowed-once') return live();
  if (signal.aborted)
    return failure('ABORTED_BEFORE_DISPATCH', 'the call was aborted while awaiting approval', {
      reason: 'approval-cancelled',
    });
  return failure('DENIED', APPROVAL_DENIED[outcome], { reason: `approval-${outcome}` });
}
