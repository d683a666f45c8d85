import { describe, expect, it } from 'vitest';
import { Emitter } from '../../src/events/emitter.js';
import { codeRuntime, echo, run } from './fixtures.js';

describe('the emitter', () => {
  it('calls listeners in order, contains throws and rejections, and counts them', async () => {
    const e = new Emitter<[number]>();
    const got: string[] = [];
    e.on((n) => void got.push(`a${n}`));
    e.on(() => {
      throw new Error('listener bug');
    });
    e.on(() => Promise.reject(new Error('async listener bug')));
    const off = e.on((n) => void got.push(`d${n}`));
    expect(e.idle).toBe(false);
    e.emit(1);
    off();
    e.emit(2);
    await new Promise((r) => setImmediate(r));
    expect(got).toEqual(['a1', 'd1', 'a2']);
    expect(e.failures).toBe(4);
  });

  it('failing event, progress and catalog listeners never break a run or a registration', async () => {
    const rt = await codeRuntime(async (api) => {
      api.log('hello');
      return (await api.call('echo', { text: 'x' })).ok;
    });
    rt.on(() => {
      throw new Error('event listener bug');
    });
    let progress = 0;
    rt.onProgress(() => {
      progress++;
      throw new Error('progress listener bug');
    });
    let changed = 0;
    rt.onToolsChanged(() => {
      changed++;
      throw new Error('catalog listener bug');
    });
    const res = await rt.execute(run());
    expect(res.ok && res.value).toMatchObject({ result: true });
    expect(progress).toBeGreaterThan(0);
    expect(rt.stats().eventListenerFailures).toBeGreaterThan(0);
    expect(() => rt.register([{ ...echo, name: 'echo2' }])).not.toThrow();
    expect(changed).toBe(1);
    await rt.close();
  });
});
