/**
 * The tool executor: every call — a model's direct call and a run_code program's nested call —
 * goes through the same pipeline:
 * create → validate → (schedule) → pre-execute → approval → guards → execute → post-execute → finalize.
 * `execute` never rejects: it resolves to a discriminated {@link ToolResult}.
 */
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { ErrorCode } from '../errors.js';
import { findJsonProblem, type JsonValue } from '../json.js';
import { RUN_CODE } from '../tools/names.js';
import type { ToolRegistry } from '../tools/registry.js';
import type { ResolvedTool } from '../tools/resolve-tool.js';
import { DEFAULT_SCOPE } from '../tools/scopes.js';
import type { ContentBlock, OutcomeSummary, ToolContext } from '../tools/types.js';
import { requestApproval, type Approver } from './approval.js';
import { NEVER_ABORTED, runBody } from './body.js';
import type { EventBus } from './events.js';
import { HookSet } from './hook-set.js';
import { bindingExpression, errorContent, errorInfo, StageTracker, toContent } from './outcome.js';
import { TokenTable, type ParentEntry, type ParentToken } from './tokens.js';
import { mintTransport } from './transport.js';
import type {
  CallInfo,
  ExecuteOptions,
  HookContext,
  Hooks,
  ResultMeta,
  ToolCall,
  ToolErrorInfo,
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

/** What a transport tool's body (run_code) receives in addition to the usual context. */
export interface TransportContext {
  /** The capability its nested calls must carry. Expires when this execution settles. */
  readonly parentToken: ParentToken;
}

/** The context a transport tool's body receives. */
export type TransportToolContext = ToolContext & TransportContext;

interface Failure {
  error: ToolErrorInfo;
}

/** An outcome after post-execute: content rendered, context gathered. */
export type Settled =
  | { value: JsonValue; content: ContentBlock[]; context?: string[] | undefined }
  | { error: ToolErrorInfo; content: ContentBlock[]; context?: string[] | undefined };

const fail = (
  code: ErrorCode,
  message: string,
  extra?: Parameters<typeof errorInfo>[2],
): Failure => ({
  error: errorInfo(code, message, extra),
});

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

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
  readonly #finalize: ExecutorOptions['finalizeContent'];

  constructor(registry: ToolRegistry, events: EventBus, options: ExecutorOptions = {}) {
    this.#registry = registry;
    this.#events = events;
    this.#approver = options.approver;
    this.#approvalTimeoutMs = options.approvalTimeoutMs ?? 300_000;
    this.#defaultTimeoutMs = options.defaultTimeoutMs ?? 60_000;
    this.#abortGraceMs = options.abortGraceMs ?? 10_000;
    this.#maxParallel = options.maxParallelSubCalls ?? 10;
    this.#finalize = options.finalizeContent;
    if (options.hooks) this.#hooks.add(options.hooks);
  }

  /** Installs hooks; returns a function that removes them. */
  use(hooks: Hooks): () => void {
    return this.#hooks.add(hooks);
  }

  /** Live parent tokens (running run_code executions). */
  get liveParents(): number {
    return this.#tokens.size;
  }

  /** Executes one call. Never rejects. */
  async execute(call: ToolCall, options: ExecuteOptions = {}): Promise<ToolResult> {
    const started = performance.now();
    const stages = new StageTracker();
    const id =
      typeof call?.id === 'string' && call.id.length > 0 && call.id.length <= 128
        ? call.id
        : randomUUID();
    const name = typeof call?.name === 'string' ? call.name.slice(0, 200) : '';
    const scope = options.scope ?? DEFAULT_SCOPE;
    const parent = options.parent === undefined ? undefined : this.#tokens.lookup(options.parent);
    const parentId = parent?.callId;
    const signal =
      parent && options.signal
        ? AbortSignal.any([options.signal, parent.signal])
        : (parent?.signal ?? options.signal ?? NEVER_ABORTED);
    let tool: ResolvedTool | undefined;
    let argsView: JsonValue | undefined;
    const emitBase = { callId: id, name, scope, parentId };
    const finish = (r: Settled | Failure | { value: unknown }): ToolResult =>
      this.#finish(r, { stages, started, id, name, scope, parentId, tool });

    const run = async (): Promise<ToolResult> => {
      try {
        stages.enter('create');
        const problem =
          call !== null && typeof call === 'object'
            ? findJsonProblem(call.args)
            : { path: '$', problem: 'the call must be an object' };
        if (!this.#events.idle && !problem)
          argsView = deepFreeze(structuredClone(call.args) as JsonValue);
        this.#events.emit({ type: 'tool/call', time: Date.now(), ...emitBase, args: argsView });
        if (problem)
          return finish(
            fail(
              'INVALID_ARGS',
              `arguments must be plain JSON: ${problem.problem} at ${problem.path}`,
              { details: { path: problem.path } },
            ),
          );
        if (!this.#registry.hasScope(scope))
          return finish(fail('INVALID_SCOPE', `unknown scope "${scope}"`));
        if (options.parent !== undefined && (!parent || parent.scope !== scope)) {
          return finish(
            fail(
              'INVALID_PARENT',
              'the parent token is not valid: it was not minted by this executor, or its run_code execution has settled, or it belongs to another scope',
            ),
          );
        }
        const resolution = this.#registry.resolveExecution(name, scope, parent !== undefined);
        if (resolution.kind === 'tool' || resolution.kind === 'collapsed') tool = resolution.tool;
        if (signal.aborted)
          return finish(
            fail('ABORTED_BEFORE_DISPATCH', 'the call was aborted before it was dispatched'),
          );
        if (resolution.kind === 'unknown')
          return finish(fail('UNKNOWN_TOOL', `unknown tool "${name}" in scope "${scope}"`));
        if (resolution.kind === 'recursion')
          return finish(
            fail(
              'UNKNOWN_TOOL',
              `"${RUN_CODE}" cannot be called from inside a ${RUN_CODE} program`,
            ),
          );
        if (resolution.kind === 'collapsed') {
          return finish(
            fail(
              'UNKNOWN_TOOL',
              `tool "${name}" cannot be called directly in this scope (code mode): only "${RUN_CODE}" can. It is reachable from inside a ${RUN_CODE} program as ${bindingExpression(name)}(...).`,
            ),
          );
        }
        const resolved = resolution.tool;
        return await this.#dispatch({
          call,
          resolved,
          parent,
          signal,
          stages,
          emitBase,
          argsView,
          finish,
        });
      } catch (err) {
        return finish(
          fail(
            'INTERNAL_ERROR',
            `internal error: ${err instanceof Error ? err.message : String(err)}`,
          ),
        );
      }
    };
    const work = run();
    if (parent) {
      parent.inFlight.add(work);
      void work.finally(() => parent.inFlight.delete(work));
    }
    return work;
  }

  async #dispatch(c: {
    call: ToolCall;
    resolved: ResolvedTool;
    parent: ParentEntry | undefined;
    signal: AbortSignal;
    stages: StageTracker;
    emitBase: { callId: string; name: string; scope: string; parentId: string | undefined };
    argsView: JsonValue | undefined;
    finish: (r: Settled | Failure | { value: unknown }) => ToolResult;
  }): Promise<ToolResult> {
    const { resolved: tool, parent, signal, stages, emitBase, finish } = c;
    stages.enter('validate');
    const valid = tool.validateInput(c.call.args);
    if (!valid.ok) {
      const where = valid.issues.map((i) => `${i.path}: ${i.message}`).join('; ');
      return finish(
        fail('INVALID_ARGS', `invalid arguments for ${tool.name}: ${where}`, {
          details: { issues: valid.issues },
        }),
      );
    }
    const args = valid.value;
    let release: (() => void) | undefined;
    if (parent) {
      stages.enter('schedule');
      const queuedAt = performance.now();
      release = await parent.scheduler.acquire(tool.isConcurrencySafe(args), signal);
      if (!release)
        return finish(
          fail(
            'ABORTED_BEFORE_DISPATCH',
            'the call was aborted before it was dispatched (its run_code execution settled)',
          ),
        );
      this.#events.emit({
        type: 'tool/code-dispatch-start',
        time: Date.now(),
        ...emitBase,
        queuedMs: performance.now() - queuedAt,
      });
    }
    const dispatchStart = performance.now();
    let result: ToolResult | undefined;
    try {
      const info: CallInfo = {
        id: emitBase.callId,
        name: tool.name,
        args:
          c.argsView ??
          (this.#hooks.empty
            ? (null as JsonValue)
            : deepFreeze(structuredClone(c.call.args) as JsonValue)),
        scope: emitBase.scope,
        mode: this.#registry.mode(emitBase.scope),
        parentId: emitBase.parentId,
      };
      const hookCtx: HookContext = {
        call: info,
        tool: { name: tool.name, description: tool.description },
        signal,
      };
      result = finish(await this.#policyAndBody(tool, args, hookCtx, parent, stages));
      return result;
    } finally {
      release?.();
      if (parent) {
        this.#events.emit({
          type: 'tool/code-dispatch',
          time: Date.now(),
          ...emitBase,
          ok: result?.ok ?? false,
          code: result && !result.ok ? result.error.code : undefined,
          durationMs: performance.now() - dispatchStart,
        });
      }
    }
  }

  async #policyAndBody(
    tool: ResolvedTool,
    args: unknown,
    ctx: HookContext,
    parent: ParentEntry | undefined,
    stages: StageTracker,
  ): Promise<Settled | Failure> {
    const { signal } = ctx;
    const aborted = (): Failure =>
      fail('ABORTED_BEFORE_DISPATCH', 'the call was aborted before it was dispatched');
    const base = {
      callId: ctx.call.id,
      name: tool.name,
      scope: ctx.call.scope,
      parentId: ctx.call.parentId,
    };

    stages.enter('pre-execute');
    const pre = await this.#hooks.runPre(ctx);
    if (pre.deny !== undefined)
      return this.#post(ctx, stages, tool, fail('DENIED', pre.deny, { reason: 'policy' }));
    if (signal.aborted) return aborted();

    if (pre.ask.length > 0) {
      stages.enter('approval');
      const message = pre.ask.filter((m) => m.length > 0).join('\n') || undefined;
      this.#events.emit({ type: 'approval/asked', time: Date.now(), ...base, message });
      const askedAt = performance.now();
      const outcome = await requestApproval(
        this.#approver,
        {
          callId: ctx.call.id,
          name: tool.name,
          args: ctx.call.args,
          scope: ctx.call.scope,
          parentId: ctx.call.parentId,
          messages: pre.ask,
        },
        signal,
        this.#approvalTimeoutMs,
      );
      this.#events.emit({
        type: 'approval/decided',
        time: Date.now(),
        ...base,
        outcome,
        durationMs: performance.now() - askedAt,
      });
      if (outcome !== 'allowed-once') {
        if (signal.aborted)
          return fail('ABORTED_BEFORE_DISPATCH', 'the call was aborted while awaiting approval', {
            reason: 'approval-cancelled',
          });
        const why = {
          rejected: 'the approver rejected the call',
          cancelled: 'the approval was cancelled',
          unavailable: 'no approval could be obtained (no approver answered)',
        }[outcome];
        return this.#post(
          ctx,
          stages,
          tool,
          fail('DENIED', why, { reason: `approval-${outcome}` }),
        );
      }
    }

    stages.enter('guards');
    const guard = await this.#hooks.runGuards(ctx);
    if (guard !== undefined)
      return this.#post(ctx, stages, tool, fail('DENIED', guard, { reason: 'guard' }));
    if (signal.aborted) return aborted();

    stages.enter('execute');
    const transport =
      tool.name === RUN_CODE
        ? mintTransport(this.#tokens, this.#maxParallel, ctx.call, signal)
        : undefined;
    let settled;
    try {
      settled = await runBody({
        tool,
        args,
        toolContext: {
          callId: ctx.call.id,
          parentId: ctx.call.parentId,
          scope: ctx.call.scope,
          ...(transport ? { parentToken: transport.token } : {}),
        },
        hookContext: { call: ctx.call, tool: ctx.tool, args },
        middleware: this.#hooks.execute,
        signal: transport ? transport.signal : signal,
        timeoutMs: tool.timeoutMs ?? this.#defaultTimeoutMs,
        abortGraceMs: this.#abortGraceMs,
      });
    } finally {
      if (transport) await transport.settle();
    }
    let outcome: { value: unknown } | Failure;
    if (!settled.ok) {
      outcome = fail(settled.code, settled.message, {
        details: settled.details,
      });
    } else {
      const value = settled.value === undefined ? null : settled.value;
      const problem = findJsonProblem(value);
      const checked = problem ? undefined : tool.validateOutput(value);
      if (problem)
        outcome = fail(
          'INVALID_TOOL_OUTPUT',
          `${tool.name} returned a value that is not JSON: ${problem.problem} at ${problem.path}`,
        );
      else if (checked && !checked.ok) {
        const where = checked.issues.map((i) => `${i.path}: ${i.message}`).join('; ');
        outcome = fail(
          'INVALID_TOOL_OUTPUT',
          `${tool.name} returned a value that does not match its output schema: ${where}`,
          { details: { issues: checked.issues } },
        );
      } else
        outcome = {
          value: checked && checked.ok && checked.value !== undefined ? checked.value : value,
        };
    }
    // An abort after the body started replaces only a success.
    if (signal.aborted && !('error' in outcome))
      outcome = fail('ABORTED', 'the call was aborted while it ran; its result was discarded');
    return this.#post(ctx, stages, tool, outcome);
  }

  async #post(
    ctx: HookContext,
    stages: StageTracker,
    tool: ResolvedTool,
    outcome: { value: unknown } | Failure,
  ): Promise<Settled> {
    stages.enter('post-execute');
    const render = (value: JsonValue): ContentBlock[] => {
      try {
        return toContent(tool.render(value));
      } catch {
        return toContent(JSON.stringify(value, null, 2)); // a failing render falls back to JSON text
      }
    };
    const settled: Settled =
      'error' in outcome
        ? { error: outcome.error, content: errorContent(outcome.error) }
        : { value: outcome.value as JsonValue, content: render(outcome.value as JsonValue) };
    return this.#hooks.post.length === 0 ? settled : this.#hooks.runPost(ctx, settled, render);
  }

  #finish(
    r: Settled | Failure | { value: unknown },
    c: {
      stages: StageTracker;
      started: number;
      id: string;
      name: string;
      scope: string;
      parentId: string | undefined;
      tool: ResolvedTool | undefined;
    },
  ): ToolResult {
    c.stages.enter('finalize');
    const toolName = c.tool?.name ?? c.name;
    const context = 'context' in r ? r.context : undefined;
    let content: ContentBlock[] =
      'content' in r
        ? r.content
        : 'error' in r
          ? errorContent(r.error)
          : toContent(JSON.stringify(r.value, null, 2));
    if (context && context.length > 0)
      content = [...content, ...context.map((text): ContentBlock => ({ type: 'text', text }))];
    const summary: OutcomeSummary = {
      ok: !('error' in r),
      code: 'error' in r ? r.error.code : undefined,
      toolName,
    };
    for (const finalizer of [c.tool?.finalizeContent, this.#finalize]) {
      if (!finalizer) continue;
      try {
        const next = finalizer(content, summary);
        if (Array.isArray(next)) content = next;
      } catch {
        // a failing finalizer keeps the content it was given
      }
    }
    const meta: ResultMeta = {
      callId: c.id,
      toolName,
      scope: c.scope,
      parentId: c.parentId,
      durationMs: performance.now() - c.started,
      stages: c.stages.visited,
    };
    if (context && context.length > 0) meta.additionalContext = context;
    const result: ToolResult =
      'error' in r
        ? { ok: false, error: r.error, content, meta }
        : { ok: true, value: r.value as JsonValue, content, meta };
    this.#events.emit({
      type: 'tool/result',
      time: Date.now(),
      callId: c.id,
      name: c.name,
      scope: c.scope,
      parentId: c.parentId,
      ok: result.ok,
      code: result.ok ? undefined : result.error.code,
      reason: result.ok ? undefined : result.error.reason,
      durationMs: meta.durationMs,
    });
    return result;
  }
}
