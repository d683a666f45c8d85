import type PQueue from 'p-queue';
import { describe, expect, it, vi } from 'vitest';
import { defineTool, type ToolResult } from '../../src/index.js';
import { codeRuntime, concurrencyProbe, deferred, run } from './fixtures.js';

// A p-queue that records what the executor asks of it: the real queue does the scheduling.
const seen = vi.hoisted(() => ({ adds: 0, concurrency: [] as number[] }));
vi.mock('p-queue', async (importOriginal) => {
  const real = (await importOriginal<{ default: typeof PQueue }>()).default;
  class RecordingQueue extends real {
    constructor(options: { concurrency: number }) {
      super(options);
      this.on('add', () => seen.adds++);
    }
    override get concurrency(): number {
      return super.concurrency;
    }
    override set concurrency(n: number) {
      seen.concurrency.push(n);
      super.concurrency = n;
    }
  }
  return { default: RecordingQueue };
});

describe('the nested-call scheduler is p-queue', () => {
  it('every nested call goes through the queue; a direct call does not', async () => {
    const p = concurrencyProbe();
    const rt = await codeRuntime(
      // Two reads, the exclusive write W, a read: four nested calls.
      (api) =>
        Promise.all(
          ['a', 'b', 'W', 'c'].map((id) => api.call(id === 'W' ? 'write' : 'read', { id })),
        ),
      [p.make('read', true), p.make('write', false)],
      { maxParallelSubCalls: 4, scopes: { default: { mode: 'both' } } },
    );
    seen.adds = 0;
    seen.concurrency.length = 0;
    const res = await rt.execute(run());
    expect(res.ok).toBe(true);
    expect(seen.adds).toBe(4);
    // The queue starts at the cap; the exclusive call lowers it to 1 while it runs, then restores it.
    expect(seen.concurrency).toEqual([4, 1, 4]);
    expect(p.order.indexOf('start:W')).toBeGreaterThan(p.order.indexOf('end:a'));
    expect(p.order.indexOf('start:c')).toBeGreaterThan(p.order.indexOf('end:W'));

    seen.adds = 0;
    const direct = await rt.execute({ name: 'read', args: { id: 'd' } });
    expect(direct.ok).toBe(true);
    expect(seen.adds).toBe(0);
    await rt.close();
  });

  it('a queued call whose own signal aborts is released without running; the queue goes on', async () => {
    const p = concurrencyProbe();
    const gate = deferred();
    let late: ToolResult | undefined;
    const rt = await codeRuntime(
      async (api) => {
        const ac = new AbortController();
        const first = api.call('slow', { id: 'first' });
        const dropped = api.call('read', { id: 'dropped' }, ac.signal);
        const next = api.call('read', { id: 'next' });
        ac.abort();
        late = await dropped;
        gate.resolve();
        return Promise.all([first, next]).then((rs) => rs.map((r) => r.ok));
      },
      [p.make('slow', false, gate.promise), p.make('read', true)],
      { maxParallelSubCalls: 1 },
    );
    const res = await rt.execute(run());
    expect(res.ok && res.value).toMatchObject({ result: [true, true] });
    expect(!late?.ok && late?.error.code).toBe('ABORTED_BEFORE_DISPATCH');
    expect(p.order).toEqual(['start:first', 'end:first', 'start:next', 'end:next']);
    await rt.close();
  });

  it('an exclusive call aborted while it waits for running calls does not run, and the cap comes back', async () => {
    const p = concurrencyProbe();
    const gate = deferred();
    const rt = await codeRuntime(
      async (api) => {
        const ac = new AbortController();
        const running = api.call('slow', { id: 'running' });
        const exclusive = api.call('write', { id: 'W' }, ac.signal);
        await new Promise((r) => setTimeout(r, 5)); // W has started waiting for "running"
        ac.abort();
        gate.resolve();
        const w = await exclusive;
        await running;
        const after = await Promise.all([
          api.call('read', { id: 'x' }),
          api.call('read', { id: 'y' }),
        ]);
        return [w.ok ? 'ran' : w.error.code, ...after.map((r) => r.ok)];
      },
      [p.make('slow', true, gate.promise), p.make('write', false), p.make('read', true)],
      { maxParallelSubCalls: 2 },
    );
    const res = await rt.execute(run());
    expect(res.ok && res.value).toMatchObject({
      result: ['ABORTED_BEFORE_DISPATCH', true, true],
    });
    expect(p.order).not.toContain('start:W');
    expect(p.peak()).toBe(2); // x and y overlapped again once W gave its turn back
    await rt.close();
  });

  it('a running call keeps its slot until its body settles, even after its signal aborts', async () => {
    const p = concurrencyProbe();
    const gate = deferred();
    const stubborn = defineTool({
      name: 'stubborn',
      description: 'ignores its abort signal until the gate opens',
      input: {},
      isConcurrencySafe: true,
      execute: async () => {
        p.order.push('start:stubborn');
        await gate.promise;
        p.order.push('end:stubborn');
        return 1;
      },
    });
    const rt = await codeRuntime(
      async (api) => {
        const ac = new AbortController();
        const first = api.call('stubborn', {}, ac.signal);
        const second = api.call('read', { id: 'second' });
        await new Promise((r) => setTimeout(r, 5));
        ac.abort();
        await new Promise((r) => setTimeout(r, 5));
        gate.resolve();
        const rs = await Promise.all([first, second]);
        return rs.map((r) => (r.ok ? 'ok' : r.error.code));
      },
      [stubborn, p.make('read', true)],
      { maxParallelSubCalls: 1 },
    );
    const res = await rt.execute(run());
    expect(res.ok && res.value).toMatchObject({ result: ['ABORTED', 'ok'] });
    expect(p.order).toEqual(['start:stubborn', 'end:stubborn', 'start:second', 'end:second']);
    await rt.close();
  });
});
