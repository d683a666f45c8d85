/**
 * The installed hooks, and one runner that folds every decision-making hook kind (pre-execute,
 * guards, post-execute) over a state, each hook's failure contained. Execute middleware is an
 * onion instead (see compose.ts).
 */
import { thrownText } from '../errors.js';
import { copyJson, type JsonValue } from '../json.js';
import type { ContentBlock } from '../tools/types.js';
import { capMessage, contentBlocks, errorContent, type Settled } from './outcome.js';
import type {
  ExecuteMiddleware,
  GuardHook,
  HookContext,
  Hooks,
  PostExecuteHook,
  PreExecuteHook,
} from './types.js';

/** What one hook's decision (or failure) does to the state: go on, or stop with a final state. */
type Step<S> = { state: S; stop?: boolean };

/**
 * The one hook runner: calls `hooks` in order, folding each decision into the state with `decide`;
 * a hook that throws or rejects is handed to `failed`. Stops at the first step that says so.
 */
async function fold<H, S>(
  hooks: readonly H[],
  initial: S,
  call: (hook: H, state: S) => unknown,
  decide: (state: S, decision: unknown) => Step<S>,
  failed: (state: S, err: unknown) => Step<S>,
): Promise<S> {
  let state = initial;
  for (const hook of hooks) {
    let step: Step<S>;
    try {
      step = decide(state, await call(hook, state));
    } catch (err) {
      step = failed(state, err);
    }
    state = step.state;
    if (step.stop) break;
  }
  return state;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null;
const failedWith = (who: string, err: unknown): string =>
  `${who} failed: ${capMessage(thrownText(err))}`;

/** The verdict of the pre-execute hooks: a denial, or the messages of the hooks that asked. */
export interface PreVerdict {
  deny: string | undefined;
  ask: string[];
}

interface Lists {
  preExecute: readonly PreExecuteHook[];
  guards: readonly GuardHook[];
  execute: readonly ExecuteMiddleware[];
  postExecute: readonly PostExecuteHook[];
}

/** One kind's hooks as a list. @throws TypeError when one is not a function. */
function listOf<T>(kind: keyof Lists, v: T | readonly T[] | undefined): readonly T[] {
  const hooks = v === undefined ? [] : Array.isArray(v) ? (v as readonly T[]) : [v as T];
  if (hooks.some((h) => typeof h !== 'function'))
    throw new TypeError(`hooks.${kind}: expected functions`);
  return [...hooks];
}

/** Combines two sets of lists kind by kind. */
function merge(a: Lists, b: Lists, f: <T>(x: readonly T[], y: readonly T[]) => T[]): Lists {
  return {
    preExecute: f(a.preExecute, b.preExecute),
    guards: f(a.guards, b.guards),
    execute: f(a.execute, b.execute),
    postExecute: f(a.postExecute, b.postExecute),
  };
}

/** Ordered hook lists. Copy-on-write: a call in flight keeps the lists it started with. */
export class HookSet {
  #lists: Lists = { preExecute: [], guards: [], execute: [], postExecute: [] };

  /** True when no hook of any kind is installed. */
  get empty(): boolean {
    const l = this.#lists;
    return l.preExecute.length + l.guards.length + l.execute.length + l.postExecute.length === 0;
  }

  /** True when hooks of this kind are installed. */
  has(kind: keyof Lists): boolean {
    return this.#lists[kind].length > 0;
  }

  /** The execute middleware, outermost first. */
  get execute(): readonly ExecuteMiddleware[] {
    return this.#lists.execute;
  }

  /** Adds hooks; returns the function that removes exactly these. */
  add(hooks: Hooks): () => void {
    const added: Lists = {
      preExecute: listOf('preExecute', hooks.preExecute),
      guards: listOf('guards', hooks.guards),
      execute: listOf('execute', hooks.execute),
      postExecute: listOf('postExecute', hooks.postExecute),
    };
    this.#lists = merge(this.#lists, added, (x, y) => [...x, ...y]);
    return () => {
      this.#lists = merge(this.#lists, added, (x, y) => x.filter((h) => !y.includes(h)));
    };
  }

  /** Pre-execute: the first deny wins; asks accumulate. A throw or a malformed answer denies. */
  runPre(ctx: HookContext): Promise<PreVerdict> {
    const invalid = 'a pre-execute hook returned an invalid decision';
    return fold<PreExecuteHook, PreVerdict>(
      this.#lists.preExecute,
      { deny: undefined, ask: [] },
      (hook) => hook(ctx),
      (state, d) => {
        if (d === undefined || d === null) return { state };
        if (!isObject(d)) return { state: { ...state, deny: invalid }, stop: true };
        if (d.action === 'allow') return { state };
        if (d.action === 'ask') {
          const message = typeof d.message === 'string' ? d.message : '';
          return { state: { ...state, ask: [...state.ask, message] } };
        }
        const reason = typeof d.reason === 'string' ? d.reason : 'denied by policy';
        return { state: { ...state, deny: d.action === 'deny' ? reason : invalid }, stop: true };
      },
      (state, err) => ({
        state: { ...state, deny: failedWith('a pre-execute hook', err) },
        stop: true,
      }),
    );
  }

  /** Guards: the first deny wins (its reason, or undefined when all allow). A throw or a malformed answer denies. */
  runGuards(ctx: HookContext): Promise<string | undefined> {
    return fold<GuardHook, string | undefined>(
      this.#lists.guards,
      undefined,
      (guard) => guard(ctx),
      (state, d) => {
        if (d === undefined || d === null || (isObject(d) && d.action === 'allow'))
          return { state };
        if (isObject(d) && d.action === 'deny')
          return {
            state: typeof d.reason === 'string' ? d.reason : 'denied by a guard',
            stop: true,
          };
        return { state: 'a guard returned an invalid decision', stop: true };
      },
      (_state, err) => ({ state: failedWith('a guard', err), stop: true }),
    );
  }

  /**
   * Post-execute: each hook sees the evolving outcome and may replace, block or add context.
   * Nothing turns a failure into a success. A throw is contained and ignored.
   */
  runPost(
    ctx: HookContext,
    settled: Settled,
    render: (value: JsonValue) => ContentBlock[],
  ): Promise<Settled> {
    return fold<PostExecuteHook, Settled>(
      this.#lists.postExecute,
      settled,
      (hook, current) =>
        hook({
          ...ctx,
          outcome: current.ok
            ? { ok: true, value: current.value, content: current.content }
            : { ok: false, error: current.error, content: current.content },
        }),
      (current, d) => ({ state: isObject(d) ? applyPost(current, d, render) : current }),
      (current) => ({ state: current }),
    );
  }
}

/** One post-execute decision applied to the outcome. */
function applyPost(
  current: Settled,
  d: Record<string, unknown>,
  render: (value: JsonValue) => ContentBlock[],
): Settled {
  if (d.action === 'context' && typeof d.context === 'string')
    return { ...current, context: [...current.context, d.context] };
  if (d.action === 'block' && current.ok) {
    const reason = capMessage(
      typeof d.reason === 'string' ? d.reason : 'the result was blocked by a post-execute hook',
    );
    const error = { code: 'DENIED', message: reason, reason: 'blocked' } as const;
    return { ok: false, error, content: errorContent(error), context: current.context };
  }
  if (d.action !== 'replace') return current;
  const content = contentBlocks(d.content);
  // Only the content of a failure can change.
  if (!current.ok) return content ? { ...current, content } : current;
  // A replacement is copied, as a tool's value is: the result shares nothing with the hook.
  const copied = 'value' in d ? copyJson(d.value) : undefined;
  const replaced = copied !== undefined && 'value' in copied;
  const value = replaced ? copied.value : current.value;
  return {
    ok: true,
    value,
    content: content ?? (replaced ? render(value) : current.content),
    context: current.context,
  };
}
