import { describe, expect, it } from 'vitest';
import { defineTool, type ToolResult } from '../../src/index.js';
import { codeRuntime, concurrencyProbe, deferred, run } from './fixtures.js';

describe('the nested-call scheduler', () => {
  it('overlaps safe calls up to the cap, runs an exclusive call alone, in arrival order', async () => {
    const p = concurrencyProbe();
    const rt = await codeRuntime(
      // Two reads, the exclusive write W, two reads: five nested calls.
      (api) =>
        Promise.all(
          ['a', 'b', 'W', 'c', 'd'].map((id) => api.call(id === 'W' ? 'write' : 'read', { id })),
        ),
      [p.make('read', true), p.make('write', false)],
      { maxParallelSubCalls: 4, scopes: { default: { mode: 'both' } } },
    );
    const res = await rt.execute(run());
    expect(res.ok).toBe(true);
    // a and b overlapped; W waited for both, ran alone; c and d waited for W, then overlapped.
    expect(p.order.slice(0, 2)).toEqual(['start:a', 'start:b']);
    expect(p.order.indexOf('start:W')).toBeGreaterThan(p.order.indexOf('end:a'));
    expect(p.order.indexOf('start:W')).toBeGreaterThan(p.order.indexOf('end:b'));
    expect(p.order.indexOf('start:c')).toBeGreaterThan(p.order.indexOf('end:W'));
    expect(p.order.indexOf('start:d')).toBeLessThan(p.order.indexOf('end:c'));
    expect(p.peak()).toBe(2);

    const direct = await rt.execute({ name: 'read', args: { id: 'e' } });
    expect(direct.ok).toBe(true);
    await rt.close();
  });

  it('never starts more safe calls at once than the cap, and starts them in arrival order', async () => {
    const p = concurrencyProbe();
    const ids = Array.from({ length: 12 }, (_, i) => `r${i}`);
    const rt = await codeRuntime(
      (api) => Promise.all(ids.map((id) => api.call('read', { id }))),
      [p.make('read', true)],
      { maxParallelSubCalls: 3 },
    );
    const res = await rt.execute(run());
    expect(res.ok).toBe(true);
    expect(p.peak()).toBe(3);
    expect(p.order.filter((e) => e.startsWith('start:'))).toEqual(ids.map((id) => `start:${id}`));
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
