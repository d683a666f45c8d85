/**
 * The tool executor: every call — a model's direct call and a run_code program's nested call —
 * goes through the same pipeline, which `#run` and `#dispatch` read top to bottom:
 * create → validate → pre-execute → guards → approval → execute → post-execute → finalize. A nested
 * call that must wait for its turn in its run's queue asks on arrival and runs its guards at its
 * turn: pre-execute → approval → schedule → guards-at-turn → execute (`#nested`, decision 027).
 * Each stage returns a `{ ok }` outcome; the first refusal goes straight to `#finish`.
 * `execute` never rejects: it resolves to a discriminated {@link ToolResult}.
 */
import { thrownText } from '../errors.js';
import { durationOptionOr, integerOptionOr } from '../options.js';
import { performance } from 'node:perf_hooks';
import type { JsonValue } from '../json.js';
import type { ToolRegistry } from '../tools/registry.js';
import { invalidArgsMessage } from '../tools/schema.js';
import type { ContentBlock, OutcomeSummary, ToolContext } from '../tools/types.js';
import type { Approver } from './approval.js';
import type { PauseClock } from '../pause-clock.js';
import { checkOutput, runBody, withSignal, type LazySignal } from './body.js';
import { admit, CallRecord, type Target } from './call.js';
import type { EventBody, EventBus } from './events.js';
import { HookSet } from './hook-set.js';
import {
  errorContent,
  failure,
  contentBlocks,
  type Outcome,
  type Settled,
  type StageOutcome,
} from './outcome.js';
import { decide, decideOnArrival, guardAtTurn, type PolicyDeps } from './policy.js';
import { NOT_RUN } from './scheduler.js';
import { TokenTable, type ParentEntry } from './tokens.js';
import { mintTransport } from './transport.js';
import type {
  BodyOutcome,
  ExecuteOptions,
  HookContext,
  Hooks,
  ResultMeta,
  ToolCall,
  ToolResult,
} from './types.js';

/** Executor options. */
export interface ExecutorOptions {
  /** Resolves `ask` decisions. Without one, every ask is denied (fail closed). */
  approver?: Approver | undefined;
  /** How long an approver may take before the ask settles `unavailable`. @default 300000 */
  approvalTimeoutMs?: number | undefined;
  /** The time limit of a tool that sets none. @default 60000 */
  defaultTimeoutMs?: number | undefined;
  /** After an abort or a time-out, how long a started body is awaited before it is abandoned. @default 10000 */
  abortGraceMs?: number | undefined;
  /** How many concurrency-safe nested calls of one run may overlap. @default 10 */
  maxParallelSubCalls?: number | undefined;
  /** Rewrites the final content of every outcome, exactly once (after the tool's own finalizer). */
  finalizeContent?:
    ((content: ContentBlock[], outcome: OutcomeSummary) => ContentBlock[]) | undefined;
  /** Hooks installed from the start. */
  hooks?: Hooks | undefined;
}

const GO = { ok: true, value: undefined } as const;

/** The executor. Create it through `createRuntime` (or directly over a registry). */
export class Executor {
  readonly #registry: ToolRegistry;
  readonly #events: EventBus;
  readonly #tokens = new TokenTable();
  readonly #hooks = new HookSet();
  readonly #approver: Approver | undefined;
  readonly #approvalTimeoutMs: number;
  readonly #defaultTimeoutMs: number;
  readonly #abortGraceMs: number;
  readonly #maxParallel: number;
  readonly #finalizeContent: ExecutorOptions['finalizeContent'];

  constructor(registry: ToolRegistry, events: EventBus, options: ExecutorOptions = {}) {
    this.#registry = registry;
    this.#events = events;
    this.#approver = options.approver;
    const ms = durationOptionOr;
    this.#approvalTimeoutMs = ms('approvalTimeoutMs', options.approvalTimeoutMs, 300_000, 1);
    this.#defaultTimeoutMs = ms('defaultTimeoutMs', options.defaultTimeoutMs, 60_000, 1);
    this.#abortGraceMs = ms('abortGraceMs', options.abortGraceMs, 10_000, 0);
    this.#maxParallel = integerOptionOr('maxParallelSubCalls', options.maxParallelSubCalls, 10, 1);
    this.#finalizeContent = options.finalizeContent;
    if (options.hooks) this.#hooks.add(options.hooks);
  }

  /** Installs hooks; returns a function that removes them. */
  use(hooks: Hooks): () => void {
    return this.#hooks.add(hooks);
  }

  /**
   * The wall clock of the live run_code execution `token` stands for (paused while one of its
   * nested calls waits for an approval); undefined for an unknown or settled token.
   */
  clockOf(token: unknown): PauseClock | undefined {
    return this.#tokens.lookup(token)?.clock;
  }

  /** Live parent tokens (running run_code executions). */
  get liveParents(): number {
    return this.#tokens.size;
  }

  /** Executes one call. Never rejects. */
  execute(raw: ToolCall, options?: ExecuteOptions | null): Promise<ToolResult> {
    const call = new CallRecord(raw, options, this.#tokens, this.#registry);
    const work = this.#run(call).catch((err: unknown) =>
      this.#finish(call, failure('INTERNAL_ERROR', `internal error: ${thrownText(err)}`)),
    );
    // The parent execution does not settle before its nested calls have.
    const inFlight = call.parent?.inFlight;
    if (inFlight) {
      inFlight.add(work);
      void work.finally(() => inFlight.delete(work));
    }
    return work;
  }

  /** One call: create, validate, then (for a nested call) its turn in the parent's scheduler. */
  async #run(call: CallRecord): Promise<ToolResult> {
    const argsView = this.#events.idle || call.argsProblem ? undefined : call.argsView();
    this.#emit(call, { type: 'tool/call', args: argsView });
    const admitted = admit(call, this.#registry);
    if (!admitted.ok) return this.#finish(call, admitted);
    const target = admitted.value;

    call.stages.enter('validate');
    const valid = target.tool.validateInput(call.args);
    if (!valid.ok)
      return this.#finish(
        call,
        failure('INVALID_ARGS', invalidArgsMessage(target.tool.name, valid.issues), {
          details: { issues: valid.issues },
        }),
      );
    const args = valid.value;
    if (!call.parent) return this.#dispatch(call, target, args);
    return this.#nested(call, call.parent, target, args);
  }

  /**
   * A nested call (decision 027). It takes its place in its run's queue on arrival, so bodies
   * start in arrival order. With nothing of its run ahead of it, its turn is now and it runs the
   * policy of a direct call in it (pre-execute → guards → approval). Otherwise its pre-execute and
   * approval start now, beside the calls the program issued with it (their asks are pending
   * together), and at its turn it waits for its own decision, then runs the guards, which see
   * what the earlier calls did, then the body.
   */
  async #nested(
    call: CallRecord,
    parent: ParentEntry,
    target: Target,
    args: unknown,
  ): Promise<ToolResult> {
    const deps = this.#policy(call);
    const ctx = call.hookContext(!this.#hooks.empty);
    const safe = target.tool.isConcurrencySafe(args);
    const queuedAt = performance.now();
    // Its turn is now: it is decided in it. Otherwise it asks now and is decided by its turn.
    const decided = parent.scheduler.free(safe)
      ? undefined
      : decideOnArrival(deps, ctx, call.stages).catch((err: unknown): StageOutcome<undefined> =>
          failure('INTERNAL_ERROR', `internal error: ${thrownText(err)}`),
        );
    const ran = await parent.scheduler.run(safe, call.signal, async () => {
      const startedAt = performance.now();
      this.#emit(call, { type: 'tool/code-dispatch-start', queuedMs: startedAt - queuedAt });
      const allowed = decided
        ? await this.#atTurn(call, deps, ctx, await decided)
        : await decide(deps, ctx, call.stages);
      if (allowed.ok && !call.stages.reached('schedule')) call.stages.enter('schedule');
      const result = allowed.ok
        ? await this.#execute(call, target, args)
        : await this.#finish(call, allowed);
      this.#emit(call, {
        type: 'tool/code-dispatch',
        ok: result.ok,
        code: result.ok ? undefined : result.error.code,
        durationMs: performance.now() - startedAt,
      });
      return result;
    });
    if (ran !== NOT_RUN) return ran;
    // Released without its turn (the run settled or was aborted): a pending ask was cancelled.
    const decision = decided ? await decided : GO;
    return this.#finish(
      call,
      decision.ok
        ? failure(
            'ABORTED_BEFORE_DISPATCH',
            'the call was aborted before it was dispatched (its run_code execution settled)',
          )
        : decision,
    );
  }

  /**
   * The turn of a nested call that waited: its decision given, the guards, in the `schedule` stage.
   * A refused call does not enter it: it settles with its refusal at its turn.
   */
  async #atTurn(
    call: CallRecord,
    deps: PolicyDeps,
    ctx: HookContext,
    decision: StageOutcome<undefined>,
  ): Promise<StageOutcome<undefined>> {
    if (!decision.ok) return decision;
    call.stages.enter('schedule');
    return guardAtTurn(deps, ctx, call.stages);
  }

  /** What the policy stages of `call` need. */
  #policy(call: CallRecord): PolicyDeps {
    return {
      hooks: this.#hooks,
      approver: call.approver ?? this.#approver,
      approvalTimeoutMs: this.#approvalTimeoutMs,
      emit: (event) => this.#emit(call, event),
      pause: call.parent && (() => call.parent!.clock.pause()),
    };
  }

  /** A direct call: the policy stages, then the body. */
  async #dispatch(call: CallRecord, target: Target, args: unknown): Promise<ToolResult> {
    const allowed = await decide(
      this.#policy(call),
      call.hookContext(!this.#hooks.empty),
      call.stages,
    );
    if (!allowed.ok) return this.#finish(call, allowed);
    return this.#execute(call, target, args);
  }

  /** The execute stage and what follows it. */
  async #execute(call: CallRecord, target: Target, args: unknown): Promise<ToolResult> {
    call.stages.enter('execute');
    return this.#finish(call, await this.#body(call, target, args));
  }

  /**
   * The execute stage. A transport's body gets a freshly minted parent token, and the transport is
   * settled (its nested calls released, aborted and awaited) before the outcome is.
   */
  async #body(call: CallRecord, target: Target, args: unknown): Promise<Outcome> {
    const { call: info, tool } = call.hookContext(!this.#hooks.empty);
    const base: Omit<ToolContext, 'signal'> = {
      callId: call.id,
      parentId: call.parentId,
      scope: call.scope,
    };
    const run = (
      signal: AbortSignal,
      invoke: (signal: LazySignal) => unknown,
      clock?: PauseClock,
    ): Promise<BodyOutcome> =>
      runBody({
        name: target.tool.name,
        invoke,
        hookContext: { call: info, tool, args },
        middleware: this.#hooks.execute,
        signal,
        timeoutMs: target.tool.timeoutMs ?? this.#defaultTimeoutMs,
        abortGraceMs: this.#abortGraceMs,
        clock,
      });
    let body: BodyOutcome;
    if (target.kind === 'transport') {
      const transport = mintTransport(this.#tokens, this.#maxParallel, call, call.signal);
      const parentToken = transport.token;
      try {
        body = await run(
          transport.signal,
          (signal) => target.tool.execute(args, withSignal({ ...base, parentToken }, signal)),
          this.clockOf(parentToken),
        );
      } finally {
        await transport.settle();
      }
    } else {
      body = await run(call.signal, (signal) =>
        target.tool.execute(args, withSignal({ ...base }, signal)),
      );
    }
    const outcome = checkOutput(target.tool, body);
    // An abort after the body started replaces only a success.
    return call.signal.aborted && outcome.ok
      ? failure('ABORTED', 'the call was aborted while it ran; its result was discarded')
      : outcome;
  }

  /** Post-execute and finalize: every call ends here, exactly once. */
  #finish(call: CallRecord, outcome: Outcome): ToolResult | Promise<ToolResult> {
    const tool = call.tool;
    // A render that throws or returns no content falls back to the value's JSON text.
    const render = (value: JsonValue): ContentBlock[] => {
      let rendered: unknown;
      try {
        rendered = tool ? tool.render(value) : undefined;
      } catch {
        rendered = undefined;
      }
      return contentBlocks(rendered) ?? [{ type: 'text', text: JSON.stringify(value, null, 2) }];
    };
    const settled = this.#settled(call, outcome, render);
    // The one rule of post-execute: its hooks see every outcome of a call that reached
    // pre-execute, except an abort before dispatch (that call never happened).
    const dispatched = call.stages.reached('pre-execute');
    if (!dispatched || (!outcome.ok && outcome.error.code === 'ABORTED_BEFORE_DISPATCH'))
      return this.#finalize(call, settled);
    call.stages.enter('post-execute');
    if (!this.#hooks.has('postExecute')) return this.#finalize(call, settled);
    return this.#hooks
      .runPost(call.hookContext(true), settled, render)
      .then((after) => this.#finalize(call, after));
  }

  /**
   * An outcome with its content. A value that can no longer be written as JSON here — its tool
   * changed it after the output check (a BigInt or a cycle added later) — settles the call as
   * INVALID_TOOL_OUTPUT: the tool's fault, never an internal error.
   */
  #settled(
    call: CallRecord,
    outcome: Outcome,
    render: (value: JsonValue) => ContentBlock[],
  ): Settled {
    if (outcome.ok)
      try {
        return { ok: true, value: outcome.value, content: render(outcome.value), context: [] };
      } catch {
        outcome = failure(
          'INVALID_TOOL_OUTPUT',
          `${call.tool?.name ?? call.name} changed its result after returning it: it is no longer JSON`,
        );
      }
    return { ok: false, error: outcome.error, content: errorContent(outcome.error), context: [] };
  }

  /** The finalize stage: context appended, finalizers run once, the result and its event. */
  #finalize(call: CallRecord, settled: Settled): ToolResult {
    call.stages.enter('finalize');
    const toolName = call.tool?.name ?? call.name;
    const { context } = settled;
    let content = settled.content;
    if (context.length > 0)
      content = [...content, ...context.map((text): ContentBlock => ({ type: 'text', text }))];
    const summary: OutcomeSummary = {
      ok: settled.ok,
      code: settled.ok ? undefined : settled.error.code,
      toolName,
    };
    for (const finalizer of [call.tool?.finalizeContent, this.#finalizeContent]) {
      if (!finalizer) continue;
      try {
        content = contentBlocks(finalizer(content, summary)) ?? content;
      } catch {
        // a failing finalizer keeps the content it was given
      }
    }
    const meta: ResultMeta = {
      callId: call.id,
      toolName,
      scope: call.scope,
      parentId: call.parentId,
      durationMs: performance.now() - call.started,
      stages: call.stages.visited,
    };
    if (context.length > 0) meta.additionalContext = context;
    const result: ToolResult = settled.ok
      ? { ok: true, value: settled.value, content, meta }
      : { ok: false, error: settled.error, content, meta };
    this.#emit(call, {
      type: 'tool/result',
      ok: result.ok,
      code: result.ok ? undefined : result.error.code,
      reason: result.ok ? undefined : result.error.reason,
      durationMs: meta.durationMs,
    });
    return result;
  }

  /** Emits an event of `call` (nothing is built when nobody listens). */
  #emit(call: CallRecord, event: EventBody): void {
    if (this.#events.idle) return;
    const { id: callId, name, scope, parentId } = call;
    const base = { type: event.type, time: Date.now(), callId, name, scope, parentId };
    this.#events.emit(Object.assign(base, event)); // `type` first in every record
  }
}
