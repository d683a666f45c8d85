/** The executor's public types: calls, results, hooks and their decisions. */
import type { ErrorCode } from '../errors.js';
import type { Approver } from './approval.js';
import type { JsonValue } from '../json.js';
import type { SavingsLedger } from '../run-code/ledger.js';
import type { ContentBlock, ParentToken, PresentationMode } from '../tools/types.js';

/** A tool call as a model (or a run_code program) makes it. */
export interface ToolCall {
  name: string;
  args: unknown;
  /** A caller-chosen id; one is generated when absent. */
  id?: string | undefined;
}

/** Options of one `execute` call. */
export interface ExecuteOptions {
  /** The scope the call runs in. @default "default" */
  scope?: string | undefined;
  /** Aborts the call. */
  signal?: AbortSignal | undefined;
  /** The parent token of the live run_code execution that dispatches this call (nested calls only). */
  parent?: ParentToken | undefined;
  /**
   * Resolves this call's `ask` decisions instead of the runtime's approver. A run_code call's
   * approver is carried by its parent token to every nested call of the program; a nested call
   * (one with `parent`) always uses its token's, and this option is ignored there.
   * @default the runtime's approver
   */
  approver?: Approver | undefined;
}

/** Why a call was denied. */
export type DenyReason =
  | 'policy'
  | 'guard'
  | 'approval-rejected'
  | 'approval-cancelled'
  | 'approval-unavailable'
  | 'blocked';

/** A failed call's error, as data. */
export interface ToolErrorInfo {
  code: ErrorCode;
  message: string;
  /** Set for DENIED (and for an abort that cancelled an approval). */
  reason?: DenyReason | undefined;
  /** Structured, JSON-safe details (for example the failing paths of INVALID_ARGS). */
  details?: Record<string, unknown> | undefined;
}

/**
 * The stages of the pipeline, in order. A direct call, and a nested call whose turn in its run's
 * queue is there when it arrives, pass create → validate → pre-execute → guards → approval →
 * (schedule) → execute; a nested call that has to wait asks on arrival and runs its guards at its
 * turn: pre-execute → approval → schedule → guards-at-turn → execute (decision 027). `schedule`
 * marks a nested call that was allowed and got its turn.
 */
export const STAGES = [
  'create',
  'validate',
  'pre-execute',
  'guards',
  'approval',
  'schedule',
  'guards-at-turn',
  'execute',
  'post-execute',
  'finalize',
] as const;
/** One pipeline stage. */
export type Stage = (typeof STAGES)[number];

/** Facts about a settled call. */
export interface ResultMeta {
  callId: string;
  toolName: string;
  scope: string;
  parentId: string | undefined;
  durationMs: number;
  /** The stages the call went through, in order. */
  stages: Stage[];
  /** Context strings added by post-execute hooks. */
  additionalContext?: string[] | undefined;
  /** run_code calls through the runtime: what code mode saved in this run (the savings ledger). */
  savings?: SavingsLedger | undefined;
}

/** The outcome of `execute`. The executor never rejects: it always resolves to one of these. */
export type ToolResult =
  | { ok: true; value: JsonValue; content: ContentBlock[]; meta: ResultMeta }
  | { ok: false; error: ToolErrorInfo; content: ContentBlock[]; meta: ResultMeta };

/** A call as hooks see it: arguments are a deep-frozen copy, so hooks cannot rewrite them. */
export interface CallInfo {
  readonly id: string;
  readonly name: string;
  readonly args: JsonValue;
  readonly scope: string;
  readonly mode: PresentationMode;
  /** The id of the run_code execution that dispatched this call. */
  readonly parentId: string | undefined;
}

/** What every hook receives. */
export interface HookContext {
  readonly call: CallInfo;
  readonly tool: { readonly name: string; readonly description: string };
  readonly signal: AbortSignal;
}

/** A pre-execute decision. `undefined` means no objection. */
export type PreExecuteDecision =
  | undefined
  | void
  | { action: 'allow' }
  | { action: 'deny'; reason?: string | undefined }
  | { action: 'ask'; message?: string | undefined };

/**
 * Runs first; may allow, deny or ask. A throw is contained as a denial. A nested call's
 * pre-execute hooks run when the call arrives, possibly before earlier calls of its run have
 * finished (decision 027): they judge the call as sent; a rule that reads the world belongs in a
 * guard.
 */
export type PreExecuteHook = (ctx: HookContext) => PreExecuteDecision | Promise<PreExecuteDecision>;

/** A guard's decision: guards can only deny. */
export type GuardDecision =
  undefined | void | { action: 'allow' } | { action: 'deny'; reason?: string | undefined };

/**
 * Runs once per call, after pre-execute; guards can only deny. They run before approval (a call a
 * guard refuses never reaches the approver), except for a nested call that has to wait for its
 * turn: its ask goes out on arrival and its guards run at its turn, immediately before its body,
 * where they see what every earlier call of its run did (decision 027). A throw is contained as
 * a denial.
 */
export type GuardHook = (ctx: HookContext) => GuardDecision | Promise<GuardDecision>;

/** What the body (and the execute chain around it) produces. */
export type BodyOutcome =
  | { ok: true; value: unknown }
  | { ok: false; code: ErrorCode; message: string; details?: Record<string, unknown> | undefined };

/** What an execute middleware receives. */
export interface ExecuteContext extends HookContext {
  /** The validated arguments the body will receive (read-only view). */
  readonly args: unknown;
}

/** Onion middleware around the body. `next()` may be called at most once. */
export type ExecuteMiddleware = (
  ctx: ExecuteContext,
  next: () => Promise<BodyOutcome>,
) => Promise<BodyOutcome>;

/** The outcome as a post-execute hook sees it. */
export interface PostExecuteContext extends HookContext {
  readonly outcome:
    | { readonly ok: true; readonly value: JsonValue; readonly content: readonly ContentBlock[] }
    | {
        readonly ok: false;
        readonly error: ToolErrorInfo;
        readonly content: readonly ContentBlock[];
      };
}

/** A post-execute decision. `undefined` accepts the outcome. */
export type PostExecuteDecision =
  | undefined
  | void
  | { action: 'accept' }
  /** Replaces the value (successes only) and/or the content. */
  | { action: 'replace'; value?: JsonValue; content?: string | ContentBlock[] }
  /** Withholds a successful result: the call becomes DENIED with reason "blocked". */
  | { action: 'block'; reason?: string | undefined }
  /** Adds context for the model, appended to the content. */
  | { action: 'context'; context: string };

/** Runs after the body (and after denials and errors). A throw is contained and ignored. */
export type PostExecuteHook = (
  ctx: PostExecuteContext,
) => PostExecuteDecision | Promise<PostExecuteDecision>;

/** Hooks that can be installed on an executor. */
export interface Hooks {
  preExecute?: PreExecuteHook | readonly PreExecuteHook[] | undefined;
  guards?: GuardHook | readonly GuardHook[] | undefined;
  execute?: ExecuteMiddleware | readonly ExecuteMiddleware[] | undefined;
  postExecute?: PostExecuteHook | readonly PostExecuteHook[] | undefined;
}
