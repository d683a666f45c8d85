/**
 * A replica's claim scan, on its own: it pages past runs of scopes it does not serve (any number of
 * them never hides one it could take), and a busy replica reads the queue once per pass.
 */
import { describe, expect, it } from 'vitest';
import { Replica } from '../../src/durable/index.js';
import type { RunStore } from '../../src/durable/store.js';
import { createMemoryStore } from './memory-store.js';

/** The store, counting its reads of the claim queue. */
function counted(): { store: RunStore; reads: () => number } {
  const store = createMemoryStore();
  let reads = 0;
  const list = store.listClaimable.bind(store);
  store.listClaimable = (...args) => {
    reads++;
    return list(...args);
  };
  return { store, reads: () => reads };
}

describe('the claim scan', () => {
  it('pages past the runs of scopes it does not serve to the one it does', async () => {
    const { store, reads } = counted();
    for (let i = 0; i < 120; i++)
      await store.createRun({ id: `gone${i}`, scope: `gone-${i}`, program: 'p' });
    await store.createRun({ id: 'mine', scope: 'beta', program: 'p' });
    const replica = new Replica(store, {
      serves: (scope) => scope === 'beta',
      reserve: () => Promise.resolve(() => undefined),
      launch: () => Promise.resolve(),
    });
    expect(await replica.dispatch()).toEqual(['mine']);
    expect(reads()).toBe(3); // 50 passed over, 50 more, then the last 20 and beta's run
    await replica.stop();
  });

  it('a busy replica reads the queue once per pass, however many scopes wait', async () => {
    const { store, reads } = counted();
    for (let i = 0; i < 300; i++)
      await store.createRun({ id: `r${i}`, scope: `s-${i % 150}`, program: 'p' });
    const replica = new Replica(store, {
      reserve: () => Promise.resolve(undefined), // no slot free
      launch: () => Promise.resolve(),
    });
    expect(await replica.dispatch()).toEqual([]);
    expect(reads()).toBe(1);
    await replica.stop();
  });

  it('a free replica takes a page, then reads on while it finds runs to claim', async () => {
    const { store, reads } = counted();
    for (let i = 0; i < 120; i++) await store.createRun({ id: `r${i}`, scope: 'a', program: 'p' });
    let open = (): void => undefined;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const replica = new Replica(store, {
      reserve: () => Promise.resolve(() => undefined),
      launch: () => gate, // the runs stay held until the test ends
    });
    const claimed = await replica.dispatch();
    expect(claimed).toHaveLength(120);
    expect(reads()).toBe(3);
    open();
    await replica.stop();
  });
});
