/**
 * Batched approval asks (decision 027): the calls a program issues together have their asks pending
 * together, also for tools that are not concurrency-safe; their bodies still run one at a time, in
 * program order, each after its own decision, and a guard still sees what the earlier calls did.
 * Through the public runtime API and the real sandbox.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  createRuntime,
  defineTool,
  type ApprovalOutcome,
  type ApprovalRequest,
  type Runtime,
  type RunCodeValue,
  type ToolResult,
} from '../../src/index.js';
import { deferred } from '../executor/fixtures.js';

/** The world the writes change: keys in the order their bodies ran. */
const written: string[] = [];
/** What the guard saw when it judged each write. */
const guardSaw: Record<string, string[]> = {};

/** One ask the approver holds until the test decides it. */
interface Held {
  request: ApprovalRequest;
  signal: AbortSignal;
  decide(outcome: ApprovalOutcome): void;
}
let held: Held[] = [];
let waiters: { count: number; resolve: () => void }[] = [];
/** Resolves once `count` asks are pending at the approver. */
const asksPending = (count: number): Promise<void> => {
  const pending = (): number => held.length;
  if (pending() >= count) return Promise.resolve();
  const d = deferred();
  waiters.push({ count, resolve: d.resolve });
  return d.promise;
};
const heldFor = (key: string): Held => {
  const h = held.find((x) => (x.request.args as { key?: unknown }).key === key);
  if (!h) throw new Error(`no ask for ${key}`);
  return h;
};

let rt: Runtime;
beforeAll(async () => {
  rt = await createRuntime({
    tools: [
      defineTool({
        name: 'store.write',
        description: 'Writes a key (not concurrency-safe). `after`: a key that must exist first.',
        input: z.object({ key: z.string(), after: z.string().optional() }),
        execute: async ({ key }: { key: string }) => {
          await new Promise((r) => setImmediate(r)); // a body that yields: overlap would show
          written.push(key);
          return `wrote ${key}`;
        },
      }),
    ],
    scopes: { default: { mode: 'code' } },
    hooks: {
      preExecute: (ctx) =>
        ctx.call.name === 'store.write' ? { action: 'ask', message: 'write?' } : undefined,
      // Reads the world: a write with `after` needs that key written first.
      guards: (ctx) => {
        if (ctx.call.name !== 'store.write') return undefined;
        const { key, after } = ctx.call.args as { key: string; after?: string };
        guardSaw[key] = [...written];
        return after !== undefined && !written.includes(after)
          ? { action: 'deny', reason: `${after} is not written yet` }
          : undefined;
      },
    },
    approver: (request, signal) =>
      new Promise<ApprovalOutcome>((resolve) => {
        held.push({ request, signal, decide: resolve });
        for (const w of waiters.filter((x) => held.length >= x.count)) w.resolve();
        waiters = waiters.filter((x) => held.length < x.count);
      }),
  });
});
afterAll(() => rt.close());

const reset = (): void => {
  for (const h of held) h.decide('rejected'); // a failed test's run ends, not the next test
  written.length = 0;
  held = [];
  waiters = [];
  for (const k of Object.keys(guardSaw)) delete guardSaw[k];
};
const start = (code: string, signal?: AbortSignal): Promise<ToolResult> =>
  rt.execute({ name: 'run_code', args: { code, description: 'batched asks' } }, { signal });
const resultOf = (r: ToolResult): unknown => {
  if (!r.ok) throw new Error(`run failed: ${r.error.code} ${r.error.message}`);
  return (r.value as unknown as RunCodeValue).result;
};
/** Each write's outcome: its value, or its error code. */
const settleEach = (calls: string[]): string =>
  `return await Promise.all([${calls
    .map((c) => `tools.store.write(${c}).catch((e) => (e as ToolCallError).code)`)
    .join(', ')}]);`;

describe('batched approval asks', () => {
  it('a Promise.all of three gated writes shows three pending asks at once, decided together, run once each in program order', async () => {
    reset();
    const run = start(settleEach(['{ key: "a" }', '{ key: "b" }', '{ key: "c" }']));
    await asksPending(3);
    // All three are pending together, and no body ran before its decision.
    const keys = held.map((h) => (h.request.args as { key: string }).key);
    expect(keys.sort()).toEqual(['a', 'b', 'c']);
    expect(written).toEqual([]);
    // Decided together, in another order than the program's.
    for (const key of ['c', 'a', 'b']) heldFor(key).decide('allowed-once');
    expect(resultOf(await run)).toEqual(['wrote a', 'wrote b', 'wrote c']);
    expect(written).toEqual(['a', 'b', 'c']);
    expect(held).toHaveLength(3); // asked once each
  });

  it('a rejected ask does not run its call; the others proceed on their own decisions', async () => {
    reset();
    const run = start(settleEach(['{ key: "a" }', '{ key: "b" }', '{ key: "c" }']));
    await asksPending(3);
    heldFor('b').decide('rejected');
    heldFor('c').decide('allowed-once');
    heldFor('a').decide('allowed-once');
    expect(resultOf(await run)).toEqual(['wrote a', 'DENIED', 'wrote c']);
    expect(written).toEqual(['a', 'c']);
  });

  it("a guard that depends on an earlier call's effect sees it, though the asks went out together", async () => {
    reset();
    const run = start(
      settleEach(['{ key: "a" }', '{ key: "b", after: "a" }', '{ key: "c", after: "b" }']),
    );
    await asksPending(3);
    expect(written).toEqual([]);
    for (const key of ['c', 'b', 'a']) heldFor(key).decide('allowed-once');
    expect(resultOf(await run)).toEqual(['wrote a', 'wrote b', 'wrote c']);
    expect(guardSaw).toEqual({ a: [], b: ['a'], c: ['a', 'b'] });
  });

  it('a guard that refuses a call that waited refuses it at its turn: its body never runs', async () => {
    reset();
    // "c" needs "z", which nobody writes.
    const run = start(
      settleEach(['{ key: "a" }', '{ key: "b", after: "a" }', '{ key: "c", after: "z" }']),
    );
    await asksPending(3);
    for (const key of ['a', 'b', 'c']) heldFor(key).decide('allowed-once');
    expect(resultOf(await run)).toEqual(['wrote a', 'wrote b', 'DENIED']);
    expect(written).toEqual(['a', 'b']);
  });

  it('a call with nothing ahead of it is judged by the guards before it is asked (a refusal reaches no human)', async () => {
    reset();
    const run = start(
      `try { return await tools.store.write({ key: "x", after: "nope" }); } catch (e) { return (e as ToolCallError).code; }`,
    );
    const first = await Promise.race([
      run.then(() => 'settled'),
      asksPending(1).then(() => 'asked'),
    ]);
    expect(first).toBe('settled');
    expect(resultOf(await run)).toBe('DENIED');
    expect(held).toEqual([]);
    expect(written).toEqual([]);
  });

  it('an aborted run cancels every pending ask and runs none of the calls', async () => {
    reset();
    const controller = new AbortController();
    const run = start(
      settleEach(['{ key: "a" }', '{ key: "b" }', '{ key: "c" }']),
      controller.signal,
    );
    await asksPending(3);
    controller.abort();
    const r = await run;
    expect(r.ok).toBe(false);
    expect(held.map((h) => h.signal.aborted)).toEqual([true, true, true]);
    // A decision after the abort changes nothing.
    for (const h of held) h.decide('allowed-once');
    await new Promise((resolve) => setImmediate(resolve));
    expect(written).toEqual([]);
  });
});
