/**
 * The policy stages of a call: pre-execute hooks (allow, deny, ask), guards (deny only) and the
 * approval seam for the asks. A call whose turn has come (a direct call; a nested call with nothing
 * of its run ahead of it) runs them in that order, {@link decide}: a call a guard refuses never
 * reaches a human. A nested call that has to wait splits them (decision 027): pre-execute and the
 * approval when it arrives ({@link decideOnArrival}), so that the asks of a batch are pending
 * together; the guards at its turn ({@link guardAtTurn}), where they see what every earlier call
 * of the run did. Either way the guards run once per call.
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

const GO = { ok: true, value: undefined } as const;

/** Go on, unless the call was aborted meanwhile. */
function live(signal: AbortSignal): StageOutcome<undefined> {
  return signal.aborted
    ? failure('ABORTED_BEFORE_DISPATCH', 'the call was aborted before it was dispatched')
    : GO;
}

/** The guards, as stage `stage`: the first deny refuses the call (`DENIED/guard`). */
async function guard(
  deps: PolicyDeps,
  ctx: HookContext,
  stages: StageTracker,
  stage: 'guards' | 'guards-at-turn',
): Promise<StageOutcome<undefined>> {
  stages.enter(stage);
  if (!deps.hooks.has('guards')) return live(ctx.signal);
  const denied = await deps.hooks.runGuards(ctx);
  if (denied !== undefined) return failure('DENIED', denied, { reason: 'guard' });
  return live(ctx.signal);
}

/**
 * Runs pre-execute, guards and approval, in that order: the policy of a call that runs as soon as
 * it is decided (a direct call). `ok` means the body may run.
 */
export async function decide(
  deps: PolicyDeps,
  ctx: HookContext,
  stages: StageTracker,
): Promise<StageOutcome<undefined>> {
  stages.enter('pre-execute');
  const pre = await deps.hooks.runPre(ctx);
  if (pre.deny !== undefined) return failure('DENIED', pre.deny, { reason: 'policy' });
  if (ctx.signal.aborted) return live(ctx.signal);
  const guarded = await guard(deps, ctx, stages, 'guards');
  if (!guarded.ok || pre.ask.length === 0) return guarded;
  return approve(deps, ctx, stages, pre.ask);
}

/**
 * The policy of a nested call that has to wait for its turn, run when it arrives (decision 027):
 * pre-execute, then for an ask the approval, so that the asks of calls a program issues together
 * are pending together whatever their tools' concurrency. The guards are left for the call's turn
 * ({@link guardAtTurn}): only there do they see what the earlier calls of its run did.
 */
export async function decideOnArrival(
  deps: PolicyDeps,
  ctx: HookContext,
  stages: StageTracker,
): Promise<StageOutcome<undefined>> {
  stages.enter('pre-execute');
  const pre = deps.hooks.has('preExecute') ? await deps.hooks.runPre(ctx) : NO_OBJECTION;
  if (pre.deny !== undefined) return failure('DENIED', pre.deny, { reason: 'policy' });
  if (pre.ask.length === 0 || ctx.signal.aborted) return live(ctx.signal);
  return approve(deps, ctx, stages, pre.ask);
}
const NO_OBJECTION = { deny: undefined, ask: [] };

/**
 * The guards of a nested call that waited, at its turn, immediately before its body: every earlier
 * call of its run has settled (or, for a concurrency-safe call, started), so a guard that reads the
 * world sees what those calls did.
 */
export function guardAtTurn(
  deps: PolicyDeps,
  ctx: HookContext,
  stages: StageTracker,
): Promise<StageOutcome<undefined>> {
  return guard(deps, ctx, stages, 'guards-at-turn');
}

/** The approval stage: the approver's answer, with its events; only `allowed-once` goes on. */
async function approve(
  deps: PolicyDeps,
  ctx: HookContext,
  stages: StageTracker,
  asks: string[],
): Promise<StageOutcome<undefined>> {
  const { signal, call } = ctx;
  stages.enter('approval');
  const message = asks.filter((m) => m.length > 0).join('\n') || undefined;
  deps.emit({ type: 'approval/asked', message });
  const askedAt = performance.now();
  const resume = deps.pause?.();
  const { outcome, decidedBy } = await requestApproval(
    deps.approver,
    {
      callId: call.id,
      name: call.name,
      args: call.args,
      scope: call.scope,
      parentId: call.parentId,
      messages: asks,
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
  if (outcome === 'allowed-once') return live(signal);
  if (signal.aborted)
    return failure('ABORTED_BEFORE_DISPATCH', 'the call was aborted while awaiting approval', {
      reason: 'approval-cancelled',
    });
  return failure('DENIED', APPROVAL_DENIED[outcome], { reason: `approval-${outcome}` });
}
