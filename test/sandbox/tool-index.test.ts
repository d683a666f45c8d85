/**
 * The `tools` tree built lazily from the tool index (decision 034): from the program's side it is
 * the frozen, null-prototype tree it always was, whatever the program touches first, whatever it
 * did to the intrinsics before, and whatever characters the binding names hold.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SandboxPool, type SandboxBinding } from '../../src/sandbox/index.js';
import { bindingsFor, expectOk, recordingDispatch, runBody } from './helpers.js';

const pool = new SandboxPool({ size: 1 });
beforeAll(() => pool.warmup());
afterAll(() => pool.close());

/** 1,000 tools in 10 namespaces, plus the ones a test calls. */
const large: SandboxBinding[] = [
  ...bindingsFor('kv.get', 'kv.set', 'users.get'),
  ...Array.from({ length: 1000 }, (_, i) => {
    const tool = `ns${i % 10}.tool_${i}`;
    return { path: tool.split('.'), tool };
  }),
];

describe('the tools tree from the tool index', () => {
  it('calls any tool of a large catalog, touched in any order', async () => {
    const { dispatch, calls } = recordingDispatch();
    const result = await runBody(
      pool,
      `await tools.ns7.tool_997({ a: 1 });
       await tools.users.get({});
       await tools['ns0']['tool_0']();
       return [typeof tools.ns3.tool_3, typeof tools.ns3.tool_4, 'tool_13' in tools.ns3, tools.nope, tools.ns1.nope];`,
      { dispatch, bindings: large },
    );
    expect(expectOk(result)).toEqual(['function', 'undefined', true, null, null]);
    expect(calls.map((c) => c.tool)).toEqual(['ns7.tool_997', 'users.get', 'ns0.tool_0']);
  });

  it('enumerates like the eager tree: every name, in binding order, frozen, after a touch or not', async () => {
    const { dispatch } = recordingDispatch();
    const result = await runBody(
      pool,
      `const touched = tools.ns4.tool_994;
       const d = Object.getOwnPropertyDescriptor(tools.ns4, 'tool_4');
       return {
         top: Object.keys(tools),
         ns4: Object.keys(tools.ns4).length,
         first: Object.keys(tools.ns4).slice(0, 3),
         same: touched === tools.ns4.tool_994,
         frozen: Object.isFrozen(tools) && Object.isFrozen(tools.ns9) && Object.isFrozen(tools.ns9.tool_9),
         extensible: Object.isExtensible(tools.ns2),
         proto: Object.getPrototypeOf(tools.ns5) === null,
         d: [d.writable, d.enumerable, d.configurable, typeof d.value],
         json: JSON.stringify(tools.kv),
       };`,
      { dispatch, bindings: large },
    );
    expect(expectOk(result)).toEqual({
      top: ['kv', 'users', ...Array.from({ length: 10 }, (_, i) => `ns${i}`)],
      ns4: 100,
      first: ['tool_4', 'tool_14', 'tool_24'],
      same: true,
      frozen: true,
      extensible: false,
      proto: true,
      d: [false, true, false, 'function'],
      json: '{}',
    });
  });

  it('cannot be changed, and a polluted Object.prototype changes nothing of it', async () => {
    const { dispatch, calls } = recordingDispatch();
    const result = await runBody(
      pool,
      `Object.prototype.writable = true;
       Object.prototype.configurable = true;
       Object.prototype.get = function () { return 'polluted'; };
       Object.prototype.ownKeys = () => ['evil'];
       Object.prototype.set = () => true;
       Object.prototype.defineProperty = () => true;
       const attempts = [
         function () { 'use strict'; tools.kv = 1; },
         function () { 'use strict'; tools.extra = 1; },
         function () { 'use strict'; delete tools.kv; },
         () => Object.defineProperty(tools, 'extra', { value: 1 }),
         () => Object.setPrototypeOf(tools.users, {}),
       ].map((f) => { try { f(); return 'changed'; } catch (e) { return e instanceof TypeError ? 'refused' : String(e); } });
       const d = Object.getOwnPropertyDescriptor(tools.kv, 'get');
       for (const k of ['writable', 'configurable', 'get', 'ownKeys', 'set', 'defineProperty']) delete Object.prototype[k];
       await tools.kv.get({});
       return { attempts, d: [d.writable, d.configurable, typeof d.value], keys: Object.keys(tools.kv), extra: 'extra' in tools };`,
      { dispatch, bindings: large },
    );
    expect(expectOk(result)).toEqual({
      attempts: ['refused', 'refused', 'refused', 'refused', 'refused'],
      d: [false, false, 'function'],
      keys: ['get', 'set'],
      extra: false,
    });
    expect(calls.map((c) => c.tool)).toEqual(['kv.get']);
  });

  it('keeps names apart whatever characters they hold', async () => {
    const { dispatch, calls } = recordingDispatch();
    const odd = ['a","b', 'a', 'with\ttab', 'new\nline', 'q"uote', 'back\\slash', 'comma,name'];
    const bindings: SandboxBinding[] = [
      { path: ['a', 'b'], tool: 'a.b' },
      ...odd.map((name) => ({ path: [name, 'x'], tool: `${name}/x` })),
      { path: ['c'], tool: 'c' },
    ];
    const result = await runBody(
      pool,
      `const names = ${JSON.stringify(odd)};
       for (const n of names) await tools[n].x();
       await tools.a.b();
       await tools.c();
       return [Object.keys(tools), Object.keys(tools.a), tools['a"'], tools['a","b'].b];`,
      { dispatch, bindings },
    );
    expect(expectOk(result)).toEqual([
      ['a', 'a","b', ...odd.slice(2), 'c'],
      ['b', 'x'],
      null,
      null,
    ]);
    expect(calls.map((c) => c.tool)).toEqual([...odd.map((n) => `${n}/x`), 'a.b', 'c']);
  });
});
