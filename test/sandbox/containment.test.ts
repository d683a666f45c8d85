/**
 * The containment suite: one test per escape or exhaustion attempt. Each asserts that the attempt
 * fails AND that the host is unaffected (its intrinsics and globals unchanged, no unhandled
 * rejection, no run or isolate left behind). The last test runs a normal program in the same pool.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SandboxPool } from '../../src/sandbox/index.js';
import {
  bindingsFor,
  expectFailure,
  expectOk,
  recordingDispatch,
  runBody,
  sleep,
} from './helpers.js';
import { WEB_GLOBALS } from '../../sdk-templates/isolate/globals.js';

const pool = new SandboxPool({
  size: 2,
  defaultLimits: { memoryMb: 32, cpuMs: 1_000, wallMs: 3_000 },
});

/** The globals a program may see: ES2022 (minus the removed ones) plus the three isocode names. */
const ALLOWED_GLOBALS = new Set(
  (
    'Object Function Array Number parseFloat parseInt Infinity NaN undefined Boolean String Symbol Date Promise RegExp Error ' +
    'AggregateError EvalError RangeError ReferenceError SyntaxError TypeError URIError globalThis JSON Math Intl ArrayBuffer ' +
    'Uint8Array Int8Array Uint16Array Int16Array Uint32Array Int32Array Float32Array Float64Array Uint8ClampedArray ' +
    'BigUint64Array BigInt64Array DataView Map BigInt Set WeakMap WeakSet Proxy Reflect FinalizationRegistry WeakRef decodeURI ' +
    'decodeURIComponent encodeURI encodeURIComponent escape unescape eval isFinite isNaN tools console ToolCallError ' +
    // ECMAScript built-ins of newer V8s: Iterator (Node 22+), explicit resource management and
    // Float16Array (Node 24+), Temporal (Node 26; its clock is no more than Date.now()'s).
    'Iterator SuppressedError DisposableStack AsyncDisposableStack Float16Array Temporal'
  )
    .split(' ')
    // The web globals implemented inside the isolate (decision record 018).
    .concat(WEB_GLOBALS),
);

function ownKeys(o: object): string[] {
  return Reflect.ownKeys(o)
    .map((k) => String(k))
    .sort();
}
const watched: [string, object][] = [
  ['Object.prototype', Object.prototype],
  ['Array.prototype', Array.prototype],
  ['Function.prototype', Function.prototype],
  ['Promise.prototype', Promise.prototype],
  ['String.prototype', String.prototype],
  ['Error', Error],
  ['globalThis', globalThis],
];
const snapshot = new Map(watched.map(([name, o]) => [name, ownKeys(o)]));
const hostPrepareStackTrace: unknown = Reflect.get(Error, 'prepareStackTrace');
const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown): void => {
  unhandled.push(reason);
};

beforeAll(async () => {
  process.on('unhandledRejection', onUnhandled);
  await pool.warmup();
});
afterEach(async () => {
  // The host is unaffected: intrinsics and globals unchanged, nothing pending, no unhandled rejection.
  await sleep(5);
  for (const [name, o] of watched) expect(ownKeys(o), name).toEqual(snapshot.get(name));
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  expect(Reflect.get(Error, 'prepareStackTrace')).toBe(hostPrepareStackTrace);
  expect(unhandled).toEqual([]);
  expect(pool.stats().running).toBe(0);
});
afterAll(async () => {
  process.off('unhandledRejection', onUnhandled);
  await pool.close();
});

describe('containment', () => {
  it('cannot reach process', async () => {
    const failure = expectFailure(await runBody(pool, `process.exit(1);`), 'exception');
    expect(failure.message).toBe('ReferenceError: process is not defined');
    expect(
      expectOk(
        await runBody(
          pool,
          `return [typeof process, typeof globalThis.process, typeof global, typeof Buffer];`,
        ),
      ),
    ).toEqual(['undefined', 'undefined', 'undefined', 'undefined']);
  });

  it('cannot require', async () => {
    const failure = expectFailure(
      await runBody(pool, `return require('child_process');`),
      'exception',
    );
    expect(failure.message).toBe('ReferenceError: require is not defined');
    expect(
      expectOk(
        await runBody(
          pool,
          `return [typeof module, typeof exports, typeof __dirname, typeof __filename];`,
        ),
      ),
    ).toEqual(['undefined', 'undefined', 'undefined', 'undefined']);
  });

  it('cannot import() (no module resolver)', async () => {
    for (const specifier of ['node:fs', 'fs', 'data:text/javascript,export default 1', './x.js']) {
      const failure = expectFailure(
        await runBody(pool, `return await import(${JSON.stringify(specifier)});`),
        'exception',
      );
      expect(failure.message).toBe('Error: Not supported');
    }
  });

  it('cannot find a host Reference anywhere in the reachable object graph', async () => {
    const { dispatch } = recordingDispatch((tool) =>
      tool === 'bad'
        ? { ok: false, code: 'X', message: 'x' }
        : { ok: true, value: { nested: [1] } },
    );
    const outcome = await runBody(
      pool,
      `const roots = [['globalThis', globalThis]];
       const pending = tools.echo({});
       roots.push(['callPromise', pending], ['callResult', await pending]);
       try { await tools.bad(); } catch (e) { roots.push(['toolCallError', e]); }
       const seen = new Set(); const found = []; const queue = roots.slice();
       const looksLikeRef = (v) => { try { return ['applySyncPromise', 'derefInto', 'copySync', 'applyIgnored', 'setSync'].some((k) => k in v); } catch { return false; } };
       while (queue.length > 0) {
         const [path, v] = queue.shift();
         if ((typeof v !== 'object' && typeof v !== 'function') || v === null || seen.has(v)) continue;
         seen.add(v);
         if (looksLikeRef(v)) found.push(path);
         let keys = [];
         try { keys = Reflect.ownKeys(v); } catch {}
         for (const k of keys) {
           let d; try { d = Object.getOwnPropertyDescriptor(v, k); } catch { continue; }
           if (d) for (const x of [d.value, d.get, d.set]) queue.push([path + '.' + String(k), x]);
         }
         try { queue.push([path + '.[[Prototype]]', Object.getPrototypeOf(v)]); } catch {}
       }
       return { found, visited: seen.size, globals: Reflect.ownKeys(globalThis).map(String) };`,
      { dispatch, bindings: bindingsFor('echo', 'bad') },
    );
    const { found, visited, globals } = expectOk(outcome) as {
      found: string[];
      visited: number;
      globals: string[];
    };
    expect(found).toEqual([]);
    expect(visited).toBeGreaterThan(500);
    expect(globals.filter((g) => !ALLOWED_GLOBALS.has(g))).toEqual([]);
  });

  it('cannot climb from tools, console or ToolCallError to a constructor of code', async () => {
    const outcome = await runBody(
      pool,
      `const tries = {
         fnCtor: () => tools.echo.constructor('return this')(),
         tceCtor: () => ToolCallError.constructor('return this')(),
         ctorCtor: () => tools.echo.constructor.constructor('return process')(),
         consoleCtor: () => console.log.constructor('return 1')(),
         protoCtor: () => Object.getPrototypeOf(tools.echo).constructor('return 1')(),
         caller: () => tools.echo.caller,
         args: () => tools.echo.arguments,
         toolsProto: () => tools.__proto__,
         toolsCtor: () => tools.constructor,
         newTool: () => new tools.echo(),
       };
       const out = {};
       for (const [k, f] of Object.entries(tries)) { try { out[k] = 'returned ' + typeof f(); } catch (e) { out[k] = e.name; } }
       return out;`,
    );
    expect(expectOk(outcome)).toEqual({
      fnCtor: 'EvalError',
      tceCtor: 'EvalError',
      ctorCtor: 'EvalError',
      consoleCtor: 'EvalError',
      protoCtor: 'EvalError',
      caller: 'TypeError',
      args: 'TypeError',
      toolsProto: 'returned undefined',
      toolsCtor: 'returned undefined',
      newTool: 'TypeError',
    });
  });

  it('cannot build code from strings: eval and every Function constructor throw, instanceof still works', async () => {
    const outcome = await runBody(
      pool,
      `const ctors = [Function, (function () {}).constructor, (async function () {}).constructor, (function* () {}).constructor, (async function* () {}).constructor];
       const out = ctors.map((C) => { try { new C('return 1'); return 'built'; } catch (e) { return e.name; } });
       for (const f of [() => eval('1 + 1'), () => (0, eval)('1'), () => globalThis.eval('1'), () => Reflect.construct(Function, ['return 1'])]) {
         try { f(); out.push('ran'); } catch (e) { out.push(e.name); }
       }
       out.push((() => 1) instanceof Function, (async () => 1) instanceof Function, typeof Function, this === undefined);
       return out;`,
    );
    expect(expectOk(outcome)).toEqual([
      ...Array<string>(9).fill('EvalError'),
      true,
      true,
      'function',
      true,
    ]);
  });

  it('cannot use Error.prepareStackTrace to receive CallSites', async () => {
    const outcome = await runBody(
      pool,
      `const out = [];
       try { Error.prepareStackTrace = (e, frames) => frames.map((f) => f.getThis()); out.push('assigned'); } catch (e) { out.push(e.name); }
       try { Object.defineProperty(Error, 'prepareStackTrace', { value: () => 'x' }); out.push('defined'); } catch (e) { out.push(e.name); }
       try { delete Error.prepareStackTrace; out.push(typeof Error.prepareStackTrace); } catch (e) { out.push(e.name); }
       const o = {}; Error.captureStackTrace(o);
       try { await tools.echo({ x: 1n }); } catch (e) { out.push(typeof e.stack); }
       out.push(typeof Error.prepareStackTrace, typeof o.stack, typeof new Error('x').stack);
       return out;`,
    );
    expect(expectOk(outcome)).toEqual([
      'TypeError',
      'TypeError',
      'TypeError',
      'string',
      'undefined',
      'string',
      'string',
    ]);
  });

  it('cannot pollute the host through __proto__ / constructor keys in arguments', async () => {
    const { dispatch, calls } = recordingDispatch();
    const outcome = await runBody(
      pool,
      `const evil = JSON.parse('{"__proto__":{"polluted":"args"},"constructor":{"prototype":{"polluted":"args"}},"nested":[{"__proto__":{"polluted":1}}]}');
       await tools.echo(evil);
       return ({}).polluted === undefined;`,
      { dispatch },
    );
    expect(expectOk(outcome)).toBe(true);
    const args = calls[0]?.args as Record<string, unknown>;
    expect(Object.getPrototypeOf(args)).toBe(Object.prototype);
    expect(Object.keys(args)).toEqual(['__proto__', 'constructor', 'nested']);
    expect((args as { polluted?: unknown }).polluted).toBeUndefined();
  });

  it('cannot pollute the host through __proto__ / constructor keys in results', async () => {
    const evil = JSON.parse(
      '{"__proto__":{"polluted":"result"},"constructor":{"prototype":{"polluted":"result"}}}',
    ) as never;
    const { dispatch } = recordingDispatch(() => ({ ok: true, value: evil }));
    const outcome = await runBody(
      pool,
      `const r = await tools.echo({});
       return { fromTool: r, own: JSON.parse('{"__proto__":{"polluted":"own"}}'), clean: ({}).polluted === undefined };`,
      { dispatch },
    );
    const result = expectOk(outcome) as Record<string, Record<string, unknown>>;
    expect(result.clean).toBe(true);
    expect(Object.keys(result.fromTool ?? {})).toEqual(['__proto__', 'constructor']);
    expect(Object.getPrototypeOf(result.own)).toBe(Object.prototype);
    expect(Object.keys(result.own ?? {})).toEqual(['__proto__']);
  });

  it('cannot subvert the bridge by overwriting the intrinsics it uses', async () => {
    const { dispatch, calls } = recordingDispatch();
    const outcome = await runBody(
      pool,
      `JSON.stringify = () => '"forged"'; JSON.parse = () => 'forged';
       let thenReplaced = 'replaced';
       try { Promise.prototype.then = function () { throw new Error('hijacked then'); }; } catch (e) { thenReplaced = e.name; }
       Promise.resolve = () => { throw new Error('hijacked resolve'); };
       String.prototype.slice = () => 'forged'; String.prototype.charCodeAt = () => 0;
       Array.prototype[Symbol.iterator] = function* () { yield 'forged'; };
       Object.defineProperty(Object.prototype, 'copy', { get() { throw new Error('hijacked options'); }, configurable: true });
       Reflect.apply = () => 'forged'; Object.freeze = (o) => o;
       const r = await tools.echo({ a: 'é' });
       console.log('still logging', r.args.a);
       return { r, thenReplaced };`,
      { dispatch },
    );
    expect(expectOk(outcome)).toEqual({
      r: { tool: 'echo', args: { a: 'é' } },
      thenReplaced: 'TypeError',
    });
    expect(calls.map((c) => c.args)).toEqual([{ a: 'é' }]);
    expect(outcome.logs).toEqual([{ level: 'log', text: 'still logging é' }]);
  });

  it('cannot hijack the host with a thenable result', async () => {
    expect(
      expectOk(
        await runBody(
          pool,
          `return { then(resolve) { resolve({ hijacked: 'in the guest only' }); } };`,
        ),
      ),
    ).toEqual({
      hijacked: 'in the guest only',
    });
    expect(
      expectOk(
        await runBody(
          pool,
          `Object.prototype.then = function (resolve) { resolve('guest'); }; return 5;`,
        ),
      ),
    ).toBe(5);
    expectFailure(
      await runBody(pool, `return { then() { throw new Error('then threw'); } };`),
      'exception',
    );
    expectFailure(
      await runBody(pool, `return { then() {} };`, { limits: { wallMs: 100 } }),
      'timeout',
    );
    expect((Object.prototype as { then?: unknown }).then).toBeUndefined();
  });

  it('cannot spin forever before an await', async () => {
    expect(
      expectFailure(await runBody(pool, `while (true) {}`, { limits: { cpuMs: 100 } }), 'timeout')
        .message,
    ).toMatch(/CPU/);
  });

  it('cannot spin forever after an await', async () => {
    const body = `await tools.echo({}); await new Promise((r) => r()); for (;;) {}`;
    expect(
      expectFailure(await runBody(pool, body, { limits: { cpuMs: 100 } }), 'timeout').message,
    ).toMatch(/CPU/);
  });

  it('cannot wait forever on a promise that never resolves', async () => {
    expect(
      expectFailure(
        await runBody(pool, `await new Promise(() => {});`, { limits: { wallMs: 100 } }),
        'timeout',
      ).message,
    ).toMatch(/wall-clock/);
  });

  it('cannot exhaust memory (memory bomb)', async () => {
    // Many small objects: V8 collects for a while near the limit before giving up, hence the CPU budget.
    const body = `const hoard = []; for (;;) hoard.push({ s: 'x'.repeat(64) + hoard.length, n: [hoard.length] });`;
    const generous = { cpuMs: 20_000, wallMs: 60_000 };
    expectFailure(await runBody(pool, body, { limits: generous }), 'memory');
    const afterAwait = `await tools.echo({}); const a = []; for (;;) a.push(new Array(1e4).fill(a.length));`;
    expectFailure(await runBody(pool, afterAwait, { limits: generous }), 'memory');
  });

  it('cannot flood the log', async () => {
    const failure = expectFailure(
      await runBody(pool, `for (;;) console.log('flood'.repeat(50));`),
      'output-limit',
    );
    expect(failure.stats.logBytes).toBeLessThanOrEqual(64 * 1024);
    expect(failure.logs.length).toBeGreaterThan(100);
  });

  it('cannot return a huge result', async () => {
    expectFailure(await runBody(pool, `return 'x'.repeat(2 * 1024 * 1024);`), 'output-limit');
    expectFailure(
      await runBody(pool, `return Array.from({ length: 300000 }, (_, i) => i);`),
      'output-limit',
    );
  });

  it('cannot crash through deep recursion (stack overflow is an exception; the isolate goes on)', async () => {
    expect(
      expectFailure(await runBody(pool, `const f = () => f(); f();`), 'exception').message,
    ).toBe('RangeError: Maximum call stack size exceeded');
    const recovered = await runBody(
      pool,
      `const f = (n) => f(n + 1); try { f(0); } catch (e) { return [e.name, await tools.echo({ after: 1 })]; }`,
    );
    expect(expectOk(recovered)).toEqual(['RangeError', { tool: 'echo', args: { after: 1 } }]);
  });

  it('cannot make more than maxCalls binding calls (100,000 attempted)', async () => {
    const { dispatch, calls } = recordingDispatch(() => ({ ok: true, value: 1 }));
    const outcome = await runBody(
      pool,
      `const settled = await Promise.allSettled(Array.from({ length: 100000 }, (_, i) => tools.echo({ i })));
       let ok = 0, limited = 0;
       for (const s of settled) { if (s.status === 'fulfilled') ok++; else if (s.reason.code === 'LIMIT_EXCEEDED') limited++; }
       return [ok, limited];`,
      { dispatch, limits: { cpuMs: 20_000, wallMs: 30_000, memoryMb: 64 } },
    );
    expect(expectOk(outcome)).toEqual([1000, 99000]);
    expect(calls).toHaveLength(1000);
  });

  it('cannot call a binding after the run ended', async () => {
    const { dispatch, calls } = recordingDispatch(async (tool, _args, signal) => {
      if (tool === 'slow')
        await new Promise((resolve) => signal.addEventListener('abort', resolve));
      return { ok: true, value: 'late' };
    });
    const outcome = await runBody(
      pool,
      `globalThis.stash = (async () => { for (let i = 0; i < 10; i++) await null; return tools.echo({ from: 'stash' }); })();
       tools.slow().then(() => tools.echo({ from: 'then' }), () => tools.echo({ from: 'catch' }));
       return 'done';`,
      { dispatch, bindings: bindingsFor('echo', 'slow') },
    );
    expect(expectOk(outcome)).toBe('done');
    await sleep(20);
    expect(calls.map((c) => c.tool)).toEqual(['slow']);
    expect(calls[0]?.signal.aborted).toBe(true);
  });

  it('cannot change the outcome with unhandled rejections, before or after an await', async () => {
    const before = `Promise.reject(new Error('ignored')); tools.echo(1n); return 'kept';`;
    expect(expectOk(await runBody(pool, before))).toBe('kept');
    const after = `await tools.echo({}); Promise.reject(new Error('ignored')); await tools.echo({}); return 'kept';`;
    expect(expectOk(await runBody(pool, after))).toBe('kept');
  });

  it('has no SharedArrayBuffer, Atomics, WebAssembly, timers or fetch', async () => {
    const names = [
      'SharedArrayBuffer',
      'Atomics',
      'WebAssembly',
      'setTimeout',
      'setInterval',
      'setImmediate',
      'queueMicrotask',
      'fetch',
      'XMLHttpRequest',
      'Worker',
    ];
    expect(
      expectOk(
        await runBody(pool, `return ${JSON.stringify(names)}.map((n) => typeof globalThis[n]);`),
      ),
    ).toEqual(names.map(() => 'undefined'));
    expect(
      expectFailure(await runBody(pool, `new SharedArrayBuffer(8);`), 'exception').message,
    ).toBe('ReferenceError: SharedArrayBuffer is not defined');
    expect(
      expectFailure(await runBody(pool, `WebAssembly.compile(new Uint8Array(8));`), 'exception')
        .message,
    ).toBe('ReferenceError: WebAssembly is not defined');
  });

  it('still runs a normal program in the same process afterwards', async () => {
    const { dispatch } = recordingDispatch();
    const outcome = await runBody(
      pool,
      `console.log('fine'); return await tools.echo({ ok: true });`,
      { dispatch },
    );
    expect(expectOk(outcome)).toEqual({ tool: 'echo', args: { ok: true } });
    expect(outcome.logs).toEqual([{ level: 'log', text: 'fine' }]);
  });
});
