import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { onAbort } from '../../src/executor/abort-fanout.js';

describe('onAbort (one listener per signal)', () => {
  it('puts one listener on a signal shared by many subscribers, and calls each once', () => {
    const controller = new AbortController();
    const calls: number[] = [];
    const offs = Array.from({ length: 50 }, (_, i) =>
      onAbort(controller.signal, () => calls.push(i)),
    );
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(1);
    offs[3]?.();
    controller.abort();
    controller.abort();
    expect(calls).toHaveLength(49);
    expect(calls).not.toContain(3);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });

  it('calls the listener now when the signal has already aborted', () => {
    let called = 0;
    const off = onAbort(AbortSignal.abort(), () => (called += 1));
    expect(called).toBe(1);
    off();
  });

  it('an unsubscribed listener is not called', () => {
    const controller = new AbortController();
    let called = false;
    onAbort(controller.signal, () => (called = true))();
    controller.abort();
    expect(called).toBe(false);
  });
});
