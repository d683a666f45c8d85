/**
 * The per-call record, built once when a call enters the executor, and the `create` stage that
 * admits it: plain-JSON arguments, a known scope, a live parent token, a live signal, and a name
 * that resolves to something this caller may run.
 */
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { copyJson, type JsonProblem, type JsonValue } from '../json.js';
import { bindingExpression } from '../sdk/bindings.js';
import { cutText } from '../text/clip.js';
import { RUN_CODE } from '../tools/names.js';
import type { Resolution, ToolRegistry } from '../tools/registry.js';
import type { AnyTool } from '../tools/resolve-tool.js';
import { DEFAULT_SCOPE } from '../tools/scopes.js';
import type { Approver } from './approval.js';
import { NEVER_ABORTED } from './body.js';
import { failure, frozenCopy, StageTracker, type StageOutcome } from './outcome.js';
import { joinedSignal, type ParentEntry, type TokenTable } from './tokens.js';
import type { CallInfo, ExecuteOptions, HookContext, ToolCall } from './types.js';

/** What name resolution let through: a tool, or a transport. */
export type Target = Extract<Resolution, { kind: 'tool' | 'transport' }>;

/** One call as the executor tracks it from `create` to `finalize`, built once when it arrives. */
export class CallRecord {
  readonly id: string;
  /** The name as called (what events report). */
  readonly name: string;
  readonly scope: string;
  /** True when the caller's options named no readable scope (a non-string, a getter that threw). */
  readonly scopeUnreadable: boolean;
  /** The live parent execution of a nested call. */
  readonly parent: ParentEntry | undefined;
  readonly parentId: string | undefined;
  /**
   * The approver of this call's asks when it is not the runtime's: the caller's
   * `ExecuteOptions.approver`, or for a nested call the one its parent token carries.
   */
  readonly approver: Approver | undefined;
  /** The caller's signal, joined with the parent execution's. */
  readonly signal: AbortSignal;
  /** When the call entered the executor (performance.now()). */
  readonly started = performance.now();
  readonly stages = new StageTracker();
  /** What the name resolved to; undefined when the scope or the parent token is bad. */
  readonly resolution: Resolution | undefined;
  /** The resolved tool (also for a refused collapsed call: its finalizer still applies). */
  readonly tool: AnyTool | undefined;
  /** The arguments as sent. */
  readonly args: unknown;
  /** Why the arguments are not plain JSON, if they are not. */
  readonly argsProblem: JsonProblem | undefined;
  readonly #registry: ToolRegistry;
  #view: JsonValue | undefined;
  #hookContext: HookContext | undefined;

  /** Reads `raw` once. Never throws, whatever `raw` is. */
  constructor(raw: ToolCall, given: unknown, tokens: TokenTable, registry: ToolRegistry) {
    this.stages.enter('create');
    const options = readOptions(given);
    this.#registry = registry;
    const sent = read(raw);
    this.id =
      typeof sent.id === 'string' && sent.id.length > 0 && sent.id.length <= 128
        ? sent.id
        : randomUUID();
    this.name = typeof sent.name === 'string' ? cutText(sent.name, 200) : '';
    this.args = sent.args;
    this.argsProblem = sent.problem;
    // A scope that is not a string names no scope, whatever a registry holds.
    this.scopeUnreadable = options.unreadableScope !== undefined;
    const scope = (this.scope = options.unreadableScope ?? options.scope ?? DEFAULT_SCOPE);
    const parent = options.parent === undefined ? undefined : tokens.lookup(options.parent);
    this.parent = parent;
    this.parentId = parent?.callId;
    this.approver = options.parent === undefined ? options.approver : parent?.approver;
    this.signal =
      parent && options.signal
        ? joinedSignal(parent, options.signal)
        : (parent?.signal ?? options.signal ?? NEVER_ABORTED);
    const parentOk = options.parent === undefined || parent?.scope === scope;
    const resolution =
      parentOk && !this.scopeUnreadable && registry.hasScope(scope)
        ? registry.resolveExecution(this.name, scope, parent !== undefined)
        : undefined;
    this.resolution = resolution;
    this.tool = resolution && 'tool' in resolution ? resolution.tool : undefined;
  }

  /** A deep-frozen copy of the arguments, made on first use (for hooks and listeners). */
  argsView(): JsonValue {
    return (this.#view ??= frozenCopy(this.args as JsonValue));
  }

  /**
   * What hooks see of this call, made on first use (after `create` admitted it). Without hooks
   * nobody reads the arguments, and `args` is null rather than a copy nobody looks at.
   */
  hookContext(withArgs: boolean): HookContext {
    if (this.#hookContext) return this.#hookContext;
    const name = this.tool?.name ?? this.name;
    const call: CallInfo = {
      id: this.id,
      name,
      args: withArgs ? this.argsView() : null,
      scope: this.scope,
      mode: this.#registry.mode(this.scope),
      parentId: this.parentId,
    };
    const tool = { name, description: this.tool?.description ?? '' };
    return (this.#hookContext = { call, tool, signal: this.signal });
  }
}

/** The fields of a call as sent, read once; a call that cannot even be read is not plain JSON. */
function read(raw: ToolCall): {
  id: unknown;
  name: unknown;
  args: unknown;
  problem?: JsonProblem | undefined;
} {
  try {
    if (raw === null || typeof raw !== 'object')
      return { id: undefined, name: undefined, args: undefined, problem: NOT_AN_OBJECT };
    const { id, name, args } = raw;
    // The tool gets a copy: it cannot change the caller's object, nor the caller what the tool holds.
    const copied = copyJson(args);
    return 'problem' in copied
      ? { id, name, args, problem: copied.problem }
      : { id, name, args: copied.value };
  } catch {
    return { id: undefined, name: undefined, args: undefined, problem: UNREADABLE };
  }
}
/**
 * The caller's options, read once: `null`, a non-object or fields whose getters throw read as
 * absent, a non-string scope as a scope no registry has, a signal that is not an `AbortSignal` as
 * none, so the call is refused (INVALID_SCOPE) or runs, and is never thrown out of `execute`.
 */
function readOptions(given: unknown): ExecuteOptions & { unreadableScope?: string } {
  if (typeof given !== 'object' || given === null) return {};
  try {
    const { scope, signal, parent, approver } = given as Record<string, unknown>;
    return {
      ...(scope === undefined || typeof scope === 'string'
        ? { scope }
        : { unreadableScope: `(a scope that is a ${typeof scope})` }),
      signal: signal instanceof AbortSignal ? signal : undefined,
      parent: parent as ExecuteOptions['parent'],
      approver: approver as ExecuteOptions['approver'],
    };
  } catch {
    return { unreadableScope: '(options that cannot be read)' };
  }
}
const NOT_AN_OBJECT: JsonProblem = { path: '$', problem: 'the call must be an object' };
const UNREADABLE: JsonProblem = { path: '$', problem: 'the call cannot be read' };

/** The `create` stage: the checks in their documented order, then what the name resolved to. */
export function admit(call: CallRecord, registry: ToolRegistry): StageOutcome<Target> {
  const problem = call.argsProblem;
  if (problem)
    return failure(
      'INVALID_ARGS',
      `arguments must be plain JSON: ${problem.problem} at ${problem.path}`,
      { details: { path: problem.path } },
    );
  if (call.scopeUnreadable || !registry.hasScope(call.scope))
    return failure('INVALID_SCOPE', `unknown scope "${call.scope}"`);
  const r = call.resolution; // with a known scope, undefined only for a bad parent token
  if (!r)
    return failure(
      'INVALID_PARENT',
      'the parent token is not valid: it was not minted by this executor, or its run_code execution has settled, or it belongs to another scope',
    );
  if (call.signal.aborted)
    return failure('ABORTED_BEFORE_DISPATCH', 'the call was aborted before it was dispatched');
  switch (r.kind) {
    case 'tool':
    case 'transport':
      return { ok: true, value: r };
    case 'unknown':
      return failure('UNKNOWN_TOOL', `unknown tool "${call.name}" in scope "${call.scope}"`);
    case 'recursion':
      return failure(
        'UNKNOWN_TOOL',
        `"${RUN_CODE}" cannot be called from inside a ${RUN_CODE} program`,
      );
    case 'collapsed':
      return failure(
        'UNKNOWN_TOOL',
        `tool "${call.name}" cannot be called directly in this scope (code mode): only "${RUN_CODE}" can. It is reachable from inside a ${RUN_CODE} program as ${bindingExpression(r.route)}(...).`,
      );
  }
}
