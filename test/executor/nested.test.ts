import { describe, expect, it } from 'vitest';
import { defineTool, type ExecutorEvent, type ToolResult } from '../../src/index.js';
import { codeRuntime, concurrencyProbe, deferred, run } from './fixtures.js';

describe('nested dispatch', () => {
  it('concurrency-safe calls overlap up to maxParallelSubCalls', async () => {
    const p = concurrencyProbe();
    const rt = await codeRuntime(
      (api) => Promise.all(Array.from({ length: 7 }, (_, i) => api.call('read', { id: `r${i}` }))),
      [p.make('read', true)],
      { maxParallelSubCalls: 3 },
    );
    const res = await rt.execute(run());
    expect(res.ok).toBe(true);
    expect(p.peak()).toBe(3);
    expect(p.order.filter((o) => o.startsWith('start')).map((o) => o.slice(6))).toEqual([
      'r0',
      'r1',
      'r2',
      'r3',
      'r4',
      'r5',
      'r6',
    ]);
  });

  it('an exclusive call waits for running calls, runs alone and holds later calls back', async () => {
    const p = concurrencyProbe();
    const rt = await codeRuntime(
      (api) =>
        Promise.all([
          api.call('read', { id: 'a' }),
          api.call('read', { id: 'b' }),
          api.call('write', { id: 'W' }),
          api.call('read', { id: 'c' }),
        ]),
      [p.make('read', true), p.make('write', false)],
    );
    await rt.execute(run());
    expect(p.order.slice(0, 2).sort()).toEqual(['start:a', 'start:b']);
    const w = p.order.indexOf('start:W');
    expect(p.order.indexOf('end:a')).toBeLessThan(w);
    expect(p.order.indexOf('end:b')).toBeLessThan(w);
    expect(p.order[w + 1]).toBe('end:W');
    expect(p.order.indexOf('start:c')).toBeGreaterThan(w + 1);
  });

  it('when the run settles, queued calls are rejected without running and started ones are awaited', async () => {
    const gate = deferred();
    let secondRan = false;
    let firstFinished = false;
    const block = defineTool({
      name: 'block',
      description: '',
      input: {},
      execute: async (_a, ctx) => {
        await Promise.race([
          gate.promise,
          new Promise((r) => ctx.signal.addEventListener('abort', r)),
        ]);
        firstFinished = true;
        return 1;
      },
    });
    const other = defineTool({
      name: 'other',
      description: '',
      input: {},
      execute: () => ((secondRan = true), 2),
    });
    let queued: Promise<ToolResult> | undefined;
    let first: Promise<ToolResult> | undefined;
    const rt = await codeRuntime(
      async (api) => {
        first = api.call('block', {});
        queued = api.call('other', {});
        await new Promise((r) => setTimeout(r, 5));
        return 'returned early';
      },
      [block, other],
    );
    const res = await rt.execute(run());
    expect(res.ok).toBe(true);
    expect(firstFinished).toBe(true); // the started call settled before run_code returned
    const q = await queued!;
    expect(!q.ok && q.error.code).toBe('ABORTED_BEFORE_DISPATCH');
    expect(secondRan).toBe(false);
    const f = await first!;
    expect(!f.ok && f.error.code).toBe('ABORTED'); // it received the abort and its success was discarded
    gate.resolve();
  });

  it('aborting run_code aborts its nested calls and nothing runs afterwards', async () => {
    const started = deferred();
    let nestedAborted = false;
    let afterAbort = 0;
    const wait = defineTool({
      name: 'wait',
      description: '',
      input: {},
      execute: (_a, ctx) =>
        new Promise((resolve) => {
          started.resolve();
          ctx.signal.addEventListener('abort', () => {
            nestedAborted = true;
            resolve(0);
          });
        }),
    });
    const after = defineTool({
      name: 'after',
      description: '',
      input: {},
      execute: () => ++afterAbort,
    });
    const rt = await codeRuntime(
      async (api) => {
        await api.call('wait', {});
        await api.call('after', {});
        return null;
      },
      [wait, after],
    );
    const ac = new AbortController();
    const pending = rt.execute(run(), { signal: ac.signal });
    await started.promise;
    ac.abort();
    const res = await pending;
    expect(res.ok).toBe(false);
    expect(nestedAborted).toBe(true);
    expect(afterAbort).toBe(0);
  });

  it("a nested call follows its own caller's signal and the parent's, never another caller's", async () => {
    const outcomes: string[] = [];
    const allStarted = deferred();
    let started = 0;
    const hold = defineTool({
      name: 'hold',
      description: '',
      input: {},
      isConcurrencySafe: true,
      execute: (args, ctx) =>
        new Promise((resolve) => {
          const id = (args as { id: string }).id;
          const timer = setTimeout(() => (outcomes.push(`${id}:done`), resolve(id)), 300);
          if (++started === 3) allStarted.resolve();
          ctx.signal.addEventListener('abort', () => {
            clearTimeout(timer);
            outcomes.push(`${id}:aborted`);
            resolve(id);
          });
        }),
    });
    const first = new AbortController();
    const second = new AbortController();
    const rt = await codeRuntime(
      async (api) => {
        // Two calls share the first caller signal (the join made once is reused), one has its own.
        const calls = [
          api.call('hold', { id: 'a1' }, first.signal),
          api.call('hold', { id: 'a2' }, first.signal),
          api.call('hold', { id: 'b' }, second.signal),
        ];
        await allStarted.promise;
        first.abort();
        return (await Promise.all(calls)).map((r) => r.ok && r.value);
      },
      [hold],
    );
    const res = await rt.execute(run());
    expect(res.ok).toBe(true);
    expect(outcomes.sort()).toEqual(['a1:aborted', 'a2:aborted', 'b:done']);
  });

  it('hooks, approvals and events see nested calls with the parent id', async () => {
    const events: ExecutorEvent[] = [];
    const seenParents: (string | undefined)[] = [];
    const t = defineTool({ name: 't', description: '', input: {}, execute: () => 1 });
    const rt = await codeRuntime(async (api) => (await api.call('t', {})).ok, [t], {
      onEvent: (e) => void events.push(e),
      hooks: {
        preExecute: (ctx) =>
          ctx.call.name === 't'
            ? (seenParents.push(ctx.call.parentId), { action: 'ask' })
            : undefined,
      },
      approver: (req) => (req.parentId ? 'allowed-once' : 'rejected'),
    });
    const res = await rt.execute(run());
    expect(res.ok && res.value).toMatchObject({ result: true });
    expect(seenParents).toEqual([res.meta.callId]);
    const nested = events.filter((e) => e.name === 't').map((e) => e.type);
    expect(nested).toEqual([
      'tool/call',
      'tool/code-dispatch-start',
      'approval/asked',
      'approval/decided',
      'tool/result',
      'tool/code-dispatch',
    ]);
    expect(events.filter((e) => e.name === 't').every((e) => e.parentId === res.meta.callId)).toBe(
      true,
    );
  });

  it('a denied nested call fails the nested call, not the run', async () => {
    const t = defineTool({ name: 't', description: '', input: {}, execute: () => 1 });
    const rt = await codeRuntime(
      async (api) => {
        const r = await api.call('t', {});
        return r.ok ? 'ran' : `${r.error.code}:${r.error.reason ?? ''}`;
      },
      [t],
      {
        hooks: {
          preExecute: (c) =>
            c.call.parentId ? { action: 'deny', reason: 'not from programs' } : undefined,
        },
      },
    );
    const res = await rt.execute(run());
    expect(res.ok && res.value).toMatchObject({
      result: 'DENIED:policy',
      calls: [{ name: 't', ok: false, code: 'DENIED' }],
    });
  });
});
