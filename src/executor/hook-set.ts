/** The installed hooks and the waterfalls that run them, each failure contained. */
import type { Settled } from './executor.js';
import type { ContentBlock } from '../tools/types.js';
import { capMessage } from './outcome.js';
import { findJsonProblem, type JsonValue } from '../json.js';
import type {
  ExecuteMiddleware,
  GuardHook,
  HookContext,
  Hooks,
  PostExecuteContext,
  PostExecuteHook,
  PreExecuteHook,
} from './types.js';

const list = <T>(v: T | readonly T[] | undefined): T[] =>
  v === undefined ? [] : Array.isArray(v) ? [...(v as readonly T[])] : [v as T];
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null;

/** Ordered hook lists. */
export class HookSet {
  pre: PreExecuteHook[] = [];
  guards: GuardHook[] = [];
  execute: ExecuteMiddleware[] = [];
  post: PostExecuteHook[] = [];

  get empty(): boolean {
    return this.pre.length + this.guards.length + this.execute.length + this.post.length === 0;
  }

  /** Adds hooks; returns the function that removes exactly these. */
  add(hooks: Hooks): () => void {
    const added = {
      pre: list(hooks.preExecute),
      guards: list(hooks.guards),
      execute: list(hooks.execute),
      post: list(hooks.postExecute),
    };
    for (const [key, fns] of Object.entries(added) as [keyof typeof added, never[]][]) {
      for (const fn of fns)
        if (typeof fn !== 'function') throw new TypeError(`hooks.${key}: expected functions`);
    }
    // Copy-on-write: a call in flight keeps the lists it started with.
    this.pre = [...this.pre, ...added.pre];
    this.guards = [...this.guards, ...added.guards];
    this.execute = [...this.execute, ...added.execute];
    this.post = [...this.post, ...added.post];
    return () => {
      this.pre = this.pre.filter((h) => !added.pre.includes(h));
      this.guards = this.guards.filter((h) => !added.guards.includes(h));
      this.execute = this.execute.filter((h) => !added.execute.includes(h));
      this.post = this.post.filter((h) => !added.post.includes(h));
    };
  }

  /** Runs pre-execute hooks in order: the first deny wins; asks accumulate. A throw denies. */
  async runPre(ctx: HookContext): Promise<{ deny: string | undefined; ask: string[] }> {
    const ask: string[] = [];
    for (const hook of this.pre) {
      let decision: unknown;
      try {
        decision = await hook(ctx);
      } catch (err) {
        return {
          deny: `a pre-execute hook failed: ${capMessage(err instanceof Error ? err.message : String(err))}`,
          ask,
        };
      }
      if (decision === undefined || decision === null) continue;
      if (!isObject(decision))
        return { deny: 'a pre-execute hook returned an invalid decision', ask };
      if (decision.action === 'allow') continue;
      if (decision.action === 'deny')
        return {
          deny: typeof decision.reason === 'string' ? decision.reason : 'denied by policy',
          ask,
        };
      if (decision.action === 'ask') {
        ask.push(typeof decision.message === 'string' ? decision.message : '');
        continue;
      }
      return { deny: 'a pre-execute hook returned an invalid decision', ask };
    }
    return { deny: undefined, ask };
  }

  /** Runs guards in order: the first deny wins. A throw or a malformed answer denies. */
  async runGuards(ctx: HookContext): Promise<string | undefined> {
    for (const guard of this.guards) {
      let decision: unknown;
      try {
        decision = await guard(ctx);
      } catch (err) {
        return `a guard failed: ${capMessage(err instanceof Error ? err.message : String(err))}`;
      }
      if (decision === undefined || decision === null) continue;
      if (isObject(decision) && decision.action === 'allow') continue;
      if (isObject(decision) && decision.action === 'deny')
        return typeof decision.reason === 'string' ? decision.reason : 'denied by a guard';
      return 'a guard returned an invalid decision';
    }
    return undefined;
  }

  /** Runs post-execute hooks in order over the evolving outcome. A throw is contained and ignored. */
  async runPost(
    ctx: HookContext,
    outcome: Settled,
    render: (value: JsonValue) => ContentBlock[],
  ): Promise<Settled> {
    let current = outcome;
    const context: string[] = [...(current.context ?? [])];
    for (const hook of this.post) {
      const view: PostExecuteContext = {
        ...ctx,
        outcome:
          'error' in current
            ? { ok: false, error: current.error, content: current.content }
            : { ok: true, value: current.value, content: current.content },
      };
      let decision: unknown;
      try {
        decision = await hook(view);
      } catch {
        continue;
      }
      if (!isObject(decision)) continue;
      if (decision.action === 'context' && typeof decision.context === 'string')
        context.push(decision.context);
      else if (decision.action === 'block' && !('error' in current)) {
        const reason =
          typeof decision.reason === 'string'
            ? decision.reason
            : 'the result was blocked by a post-execute hook';
        current = {
          error: { code: 'DENIED', message: capMessage(reason), reason: 'blocked' },
          content: [{ type: 'text', text: `Error DENIED (blocked): ${capMessage(reason)}` }],
        };
      } else if (decision.action === 'replace') {
        const content = decision.content;
        const nextContent: ContentBlock[] | undefined =
          typeof content === 'string'
            ? [{ type: 'text', text: content }]
            : Array.isArray(content)
              ? (content as ContentBlock[])
              : undefined;
        if ('error' in current) {
          // Nothing later turns a failure into a success: only the content of a failure can change.
          if (nextContent) current = { ...current, content: nextContent };
        } else {
          const replaced = 'value' in decision && findJsonProblem(decision.value) === undefined;
          const value = replaced ? (decision.value as JsonValue) : current.value;
          current = { value, content: nextContent ?? (replaced ? render(value) : current.content) };
        }
      }
    }
    return context.length > 0 ? { ...current, context } : current;
  }
}
