/**
 * Replay through the runtime: a run's first life is cut short (the store freezes, as a dead
 * replica's would, and the run is aborted), then a second life replays it from the journal.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { executeDurably, installDurableCalls } from '../../src/durable/execute.js';
import type { ReplayVerdict } from '../../src/durable/journal-types.js';
import type { ApprovalOutcome } from '../../src/executor/approval.js';
import { createRuntime, defineTool, type Runtime } from '../../src/index.js';
import { MemoryJournal } from './memory-journal.js';

const effects = new Map<string, number>();
let gateOpen = false;
let gateEntered: () => void = () => {};
let approve: () => ApprovalOutcome | Promise<ApprovalOutcome> = () => 'allowed-once';

const gate = (signal: AbortSignal): Promise<string> =>
  new Promise((resolve) => {
    gateEntered();
    if (gateOpen) return resolve('open');
    signal.addEventListener('abort', () => resolve('aborted'), { once: true });
  });

let rt: Runtime;
beforeAll(async () => {
  rt = await createRuntime({
    tools: [
      defineTool({
        name: 'append',
        description: 'A side effect, counted.',
        input: z.object({ v: z.string() }),
        isConcurrencySafe: true,
        execute: ({ v }: { v: string }) => {
          const n = (effects.get(v) ?? 0) + 1;
          effects.set(v, n);
          return n;
        },
      }),
      defineTool({
        name: 'slow',
        description: 'Waits.',
        input: z.object({ ms: z.number() }),
        isConcurrencySafe: true,
        idempotent: true,
        execute: ({ ms }: { ms: number }) => new Promise((r) => setTimeout(() => r(ms), ms)),
      }),
      defineTool({
        name: 'gate',
        description: 'Blocks until the test opens it.',
        input: z.object({}),
        isConcurrencySafe: true,
        execute: (_: unknown, ctx) => gate(ctx.signal),
      }),
      defineTool({
        name: 'gate_idem',
        description: 'Blocks until the test opens it; idempotent.',
        input: z.object({}),
        isConcurrencySafe: true,
        idempotent: true,
        execute: (_: unknown, ctx) => gate(ctx.signal),
      }),
      defineTool({
        name: 'guarded',
        description: 'Needs an approval; a side effect.',
        input: z.object({ v: z.string() }),
        isConcurrencySafe: true,
        execute: ({ v }: { v: string }) => {
          effects.set(`guarded:${v}`, (effects.get(`guarded:${v}`) ?? 0) + 1);
          return v;
        },
      }),
    ],
    scopes: { default: { mode: 'code' } },
    hooks: {
      preExecute: (ctx) => (ctx.call.name === 'guarded' ? { action: 'ask' } : undefined),
    },
    approver: () => approve(),
    codeMode: { typecheck: 'off', limits: { wallMs: 10_000 } },
  });
  installDurableCalls(rt);
});
afterAll(() => rt.close());

let store: MemoryJournal;
let n = 0;
let runId: string;
beforeEach(() => {
  effects.clear();
  gateOpen = false;
  gateEntered = () => {};
  approve = () => 'allowed-once';
  store = new MemoryJournal();
  runId = `run-${++n}`;
});

const life = (program: string, signal?: AbortSignal): Promise<ReplayVerdict> =>
  executeDurably(rt, store, { id: runId, scope: 'default', program }, { signal, stallMs: 2_000 });

/** Runs `program` until `until` resolves, then the replica "dies": the store freezes, the run stops. */
async function crashedLife(program: string, until: Promise<void>): Promise<void> {
  const controller = new AbortController();
  const running = life(program, controller.signal);
  await until;
  store.freeze();
  controller.abort();
  await running;
  store.thaw();
}
const entered = (): Promise<void> => new Promise((r) => (gateEntered = r));
const value = (v: ReplayVerdict): unknown =>
  v.status === 'succeeded' && v.result.ok ? (v.result.value as { result: unknown }).result : v;

describe('replay', () => {
  it('answers completed calls from the journal: a finished run replays with no side effect and the same clock and dice', async () => {
    const program =
      'const t = Date.now(); const r = Math.random(); const a = await tools.append({ v: "x" }); const d = new Date().getTime(); await tools.append({ v: "y" }); return [t, r, a, d];';
    const first = await life(program);
    expect(first.status).toBe('succeeded');
    const again = await life(program);
    expect(value(again)).toEqual(value(first));
    expect(effects.get('x')).toBe(1);
    expect(effects.get('y')).toBe(1);
  });

  it('interrupts a run on a non-idempotent call that was in flight, with its name and arguments', async () => {
    const program =
      'await tools.append({ v: "x" }); const g = await tools.gate({}); await tools.append({ v: "y" }); return g;';
    await crashedLife(program, entered());
    gateOpen = true;
    const second = await life(program);
    expect(second.status).toBe('interrupted');
    if (second.status !== 'interrupted') return;
    expect(second.call).toMatchObject({ name: 'gate', args: {} });
    expect(effects.get('x')).toBe(1);
    expect(effects.get('y')).toBeUndefined();
  });

  it('re-runs an idempotent call that was in flight, and only that', async () => {
    const program =
      'const t = Date.now(); await tools.append({ v: "x" }); const g = await tools.gate_idem({}); await tools.append({ v: "y" }); return [t, g];';
    await crashedLife(program, entered());
    const recordedClock = store.values.get(runId)?.find((v) => v.kind === 'date')?.value;
    gateOpen = true;
    const second = await life(program);
    expect(value(second)).toEqual([recordedClock, 'open']);
    expect(effects.get('x')).toBe(1);
    expect(effects.get('y')).toBe(1);
  });

  it('replays Promise.all with .then chains in their original completion order (no false divergence)', async () => {
    // c and d settle first; slow settles later and its continuation (the gate) had not been made
    // when the replica died: on replay the gate arrives only after d, as it did originally.
    const program = `const [g, d] = await Promise.all([
  tools.slow({ ms: 300 }).then(() => tools.gate({})),
  tools.append({ v: "c" }).then(() => tools.append({ v: "d" })),
]);
return [g, d];`;
    const original = store.callArrived.bind(store);
    const died = new Promise<void>((resolve) => {
      store.callArrived = (runId, call) => {
        if (call.name === 'gate') {
          store.freeze();
          resolve();
        }
        return original(runId, call);
      };
    });
    await crashedLife(program, died);
    store.callArrived = original;
    expect((await store.listCalls(runId)).map((c) => c.name).sort()).toEqual([
      'append',
      'append',
      'slow',
    ]);
    gateOpen = true;
    const second = await life(program);
    expect(value(second)).toEqual(['open', 1]);
    expect(effects.get('c')).toBe(1);
    expect(effects.get('d')).toBe(1);
  });

  it('fails with REPLAY_DIVERGED when the program takes another path, and runs nothing new', async () => {
    await crashedLife('await tools.append({ v: "x" }); return await tools.gate({});', entered());
    const second = await life('await tools.append({ v: "z" }); return await tools.gate({});');
    expect(second.status).toBe('failed');
    if (second.status !== 'failed') return;
    expect(second.error.code).toBe('REPLAY_DIVERGED');
    expect(second.error.message).toMatch(/append\(\{"v":"z"\}\).*program position 1:13/);
    expect(effects.get('z')).toBeUndefined();
    expect(effects.get('x')).toBe(1);

    const third = await life('return 1;');
    expect(third.status === 'failed' && third.error.code).toBe('REPLAY_DIVERGED');
  });

  it('keys calls by the recorded clock: arguments made of Date.now() and Math.random() replay', async () => {
    const program =
      'await tools.append({ v: `t${Date.now()}r${Math.random()}` }); return await tools.gate_idem({});';
    await crashedLife(program, entered());
    gateOpen = true;
    const second = await life(program);
    expect(second.status).toBe('succeeded');
    expect([...effects.values()]).toEqual([1]);
  });

  it('re-runs a call that was waiting for an approval (its body never ran): it runs once', async () => {
    let asks = 0;
    let asked!: () => void;
    const askedTwice = new Promise<void>((r) => (asked = r));
    approve = () => {
      if (++asks === 2) asked();
      return new Promise<ApprovalOutcome>(() => {}); // the human never answers in this life
    };
    const program =
      'await tools.append({ v: "x" }); const [a, b] = await Promise.all([tools.guarded({ v: "1" }), tools.guarded({ v: "2" })]); return a + b;';
    const journaled = async (): Promise<void> => {
      await askedTwice;
      while ((store.calls.get(runId) ?? []).filter((c) => c.status === 'pending').length < 2)
        await new Promise((r) => setTimeout(r, 5));
    };
    await crashedLife(program, journaled());
    expect((await store.listCalls(runId)).filter((c) => c.status === 'pending')).toHaveLength(2);
    approve = () => 'allowed-once';
    const second = await life(program);
    expect(value(second)).toBe('12');
    expect(effects.get('guarded:1')).toBe(1);
    expect(effects.get('guarded:2')).toBe(1);
    expect(effects.get('x')).toBe(1);
  });
});
