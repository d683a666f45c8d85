/** The bridge: bindings, argument/result copies, caps, ordering, overlap, tagged errors, settlement. */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { JsonValue } from '../../src/json.js';
import { SandboxPool, type CallEvent, type DispatchResult } from '../../src/sandbox/index.js';
import {
  bindingsFor,
  expectFailure,
  expectOk,
  recordingDispatch,
  runBody,
  sleep,
} from './helpers.js';

const pool = new SandboxPool({ size: 2 });
beforeAll(() => pool.warmup());
afterAll(() => pool.close());

const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown): void => {
  unhandled.push(reason);
};
beforeEach(() => {
  unhandled.length = 0;
  process.on('unhandledRejection', onUnhandled);
});
afterEach(async () => {
  await sleep(10);
  process.off('unhandledRejection', onUnhandled);
  expect(unhandled).toEqual([]);
});

describe('the tools tree', () => {
  it('maps nested paths to tool names and exposes own properties only', async () => {
    const { dispatch, calls } = recordingDispatch();
    const bindings = [
      ...bindingsFor('files.read', 'files.write', 'search'),
      { path: ['run_code'], tool: 'run_code' },
    ];
    const result = await runBody(
      pool,
      `await tools.files.read({ path: 'a' });
       await tools.search();
       return {
         top: Object.keys(tools), files: Object.keys(tools.files),
         proto: Object.getPrototypeOf(tools) === null, frozen: Object.isFrozen(tools) && Object.isFrozen(tools.files) && Object.isFrozen(tools.search),
         inherited: [tools.constructor, tools.__proto__, tools.toString, tools.hasOwnProperty, tools.files.valueOf].map(v => typeof v),
         runCode: typeof tools.run_code,
         name: tools.files.read.name,
       };`,
      { dispatch, bindings },
    );
    expect(expectOk(result)).toEqual({
      top: ['files', 'search'],
      files: ['read', 'write'],
      proto: true,
      frozen: true,
      inherited: ['undefined', 'undefined', 'undefined', 'undefined', 'undefined'],
      runCode: 'undefined',
      name: 'files.read',
    });
    expect(calls.map((c) => [c.tool, c.args])).toEqual([
      ['files.read', { path: 'a' }],
      ['search', {}],
    ]);
  });

  it('lets a tool and a namespace share a prefix', async () => {
    const { dispatch, calls } = recordingDispatch();
    const bindings = [
      { path: ['db'], tool: 'db' },
      { path: ['db', 'query'], tool: 'db.query' },
    ];
    const outcome = await runBody(
      pool,
      `await tools.db({}); await tools.db.query({ q: 1 }); return typeof tools.db;`,
      { dispatch, bindings },
    );
    expect(expectOk(outcome)).toBe('function');
    expect(calls.map((c) => c.tool)).toEqual(['db', 'db.query']);
  });

  it('follows changes to a bindings array that is passed again', async () => {
    const { dispatch, calls } = recordingDispatch();
    const bindings = bindingsFor('a');
    const body = `return Object.keys(tools).map((k) => typeof tools[k]);`;
    expect(expectOk(await runBody(pool, body, { dispatch, bindings }))).toEqual(['function']);
    bindings.push({ path: ['b'], tool: 'b' });
    expect(expectOk(await runBody(pool, body, { dispatch, bindings }))).toEqual([
      'function',
      'function',
    ]);
    (bindings[0] as { tool: string }).tool = 'renamed';
    expectOk(await runBody(pool, `await tools.a(); return 1;`, { dispatch, bindings }));
    expect(calls.map((c) => c.tool)).toEqual(['renamed']);
    bindings[1] = { path: ['__proto__'], tool: 'b' };
    await expect(runBody(pool, body, { dispatch, bindings })).rejects.toMatchObject({
      code: 'INVALID_CONFIG',
    });
  });

  it('refuses malformed bindings', async () => {
    const { dispatch } = recordingDispatch();
    for (const bindings of [
      [{ path: [], tool: 'x' }],
      [{ path: ['__proto__'], tool: 'x' }],
      [{ path: ['a'], tool: '' }],
      bindingsFor('a', 'a'),
    ]) {
      await expect(
        pool.run({ js: '(async function () {})', bindings, dispatch }),
      ).rejects.toMatchObject({ code: 'INVALID_CONFIG' });
    }
  });
});

describe('arguments and results', () => {
  it('passes JSON copies both ways', async () => {
    const hostValue = { list: [1, 2], nested: { s: 'é😀' } };
    let received: JsonValue = null;
    const { dispatch } = recordingDispatch((_tool, args) => {
      received = args;
      (args as { a: number[] }).a.push(99);
      return { ok: true, value: hostValue };
    });
    const outcome = await runBody(
      pool,
      `const args = { a: [1], d: new Date(0), u: undefined, f() {}, n: NaN };
       const r = await tools.echo(args);
       r.list.push(3);
       return { args: { ...args, f: undefined }, r };`,
      { dispatch },
    );
    expect(received).toEqual({ a: [1, 99], d: '1970-01-01T00:00:00.000Z', n: null });
    expect(expectOk(outcome)).toEqual({
      args: { a: [1], d: '1970-01-01T00:00:00.000Z', n: null },
      r: { list: [1, 2, 3], nested: { s: 'é😀' } },
    });
    expect(hostValue.list).toEqual([1, 2]);
  });

  it('rejects arguments that are not JSON without dispatching', async () => {
    const { dispatch, calls } = recordingDispatch();
    const outcome = await runBody(
      pool,
      `const out = [];
       for (const bad of [{ big: 1n }, (() => { const c = {}; c.c = c; return c; })(), () => 1]) {
         try { await tools.echo(bad); } catch (e) { out.push([e.name, e.code, e.toolName]); }
       }
       return out;`,
      { dispatch },
    );
    expect(expectOk(outcome)).toEqual([
      ['ToolCallError', 'INVALID_ARGS', 'echo'],
      ['ToolCallError', 'INVALID_ARGS', 'echo'],
      ['ToolCallError', 'INVALID_ARGS', 'echo'],
    ]);
    expect(calls).toEqual([]);
  });

  it('caps argument bytes (UTF-8, checked by the host) without dispatching', async () => {
    const { dispatch, calls } = recordingDispatch();
    // 600 × "é" is 600 UTF-16 units (under the isolate's coarse check) but 1200+ bytes.
    const outcome = await runBody(
      pool,
      `const codes = [];
       for (const s of ['a'.repeat(100), 'é'.repeat(600), 'a'.repeat(5000)]) {
         try { await tools.echo({ s }); codes.push('ok'); } catch (e) { codes.push(e.code); }
       }
       return codes;`,
      { dispatch, limits: { maxArgBytes: 1000 } },
    );
    expect(expectOk(outcome)).toEqual(['ok', 'LIMIT_EXCEEDED', 'LIMIT_EXCEEDED']);
    expect(calls).toHaveLength(1);
  });

  it('caps binding result bytes', async () => {
    const { dispatch } = recordingDispatch((_tool, args) => ({
      ok: true,
      value: 'x'.repeat((args as { n: number }).n),
    }));
    const outcome = await runBody(
      pool,
      `const out = [];
       for (const n of [10, 5000]) { try { out.push((await tools.echo({ n })).length); } catch (e) { out.push(e.code + ': ' + e.message); } }
       return out;`,
      { dispatch, limits: { maxBindingResultBytes: 1000 } },
    );
    expect(expectOk(outcome)).toEqual([
      10,
      'LIMIT_EXCEEDED: the result of echo exceeds 1000 bytes',
    ]);
  });
});

describe('failures become ToolCallError', () => {
  it('carries the tool name, code and message, and no host stack or path', async () => {
    const { dispatch } = recordingDispatch(() => ({
      ok: false,
      code: 'NOT_FOUND',
      message: 'no such file: a.txt',
    }));
    const outcome = await runBody(
      pool,
      `try { await tools.files.read({ path: 'a.txt' }); }
       catch (e) { return { isTce: e instanceof ToolCallError, isError: e instanceof Error, name: e.name, code: e.code, toolName: e.toolName, message: e.message, stack: e.stack }; }`,
      { dispatch, bindings: bindingsFor('files.read') },
    );
    const caught = expectOk(outcome) as Record<string, string | boolean>;
    expect(caught).toMatchObject({
      isTce: true,
      isError: true,
      name: 'ToolCallError',
      code: 'NOT_FOUND',
      toolName: 'files.read',
      message: 'no such file: a.txt',
    });
    expect(caught.stack).toMatch(/^ToolCallError: no such file: a\.txt\n/);
    const frames = String(caught.stack).split('\n').slice(1);
    expect(frames.length).toBeGreaterThan(0);
    for (const frame of frames) expect(frame).toMatch(/^ {4}at .*(isocode:|<anonymous>)/);
    expect(frames.join('\n')).not.toMatch(/\/work|file:\/\/|node:|node_modules|\.ts:/);
  });

  it('reports an uncaught failure with the line of the await, and a refusal with its call', async () => {
    const { dispatch } = recordingDispatch(() => ({
      ok: false,
      code: 'DENIED',
      message: 'not allowed',
    }));
    // A failure the host reports surfaces where the program awaits the call (V8's async frames:
    // nothing is captured while a call is in flight).
    const awaited = await runBody(pool, `const a = 1;\n\n  await tools.echo({ a });`, { dispatch });
    const failure = expectFailure(awaited, 'exception');
    expect(failure.message).toBe('ToolCallError: not allowed (tool echo, code DENIED)');
    expect([failure.line, failure.column]).toEqual([3, 3]);
    const inAll = await runBody(
      pool,
      `const a = 1;\nconst [x, y] = await Promise.all([\n  tools.echo({ a }),\n  tools.echo({ a }),\n]);`,
      { dispatch },
    );
    expect(expectFailure(inAll, 'exception').line).toBe(2);
    // A refusal is decided in the call itself: its position is the call's.
    const refused = await runBody(pool, `const a = 1n;\n\nawait tools.echo({ a });`, { dispatch });
    expect(expectFailure(refused, 'exception')).toMatchObject({
      message: expect.stringContaining('code INVALID_ARGS') as string,
      line: 3,
      column: 13,
    });
  });

  it('turns a rejecting or malformed dispatch into INTERNAL_ERROR, never an unhandled rejection', async () => {
    let n = 0;
    const dispatch = (): Promise<DispatchResult> => {
      n++;
      if (n === 1) return Promise.reject(new Error('host secret /etc/passwd'));
      if (n === 2) return Promise.resolve({ nonsense: true } as unknown as DispatchResult);
      if (n === 3) return Promise.resolve({ ok: true, value: 10n } as unknown as DispatchResult);
      return Promise.resolve({ ok: false, code: 'not a code', message: 'x'.repeat(10_000) });
    };
    const outcome = await runBody(
      pool,
      `const out = [];
       for (let i = 0; i < 4; i++) { try { await tools.echo({}); } catch (e) { out.push([e.code, e.message.length, e.message.includes('/etc')]); } }
       return out;`,
      { dispatch },
    );
    expect(expectOk(outcome)).toEqual([
      ['INTERNAL_ERROR', expect.any(Number), false],
      ['INTERNAL_ERROR', expect.any(Number), false],
      ['INVALID_TOOL_OUTPUT', expect.any(Number), false],
      ['INTERNAL_ERROR', 4096, false],
    ]);
  });
});

describe('ordering, overlap and limits on calls', () => {
  it('keeps sequential calls and logs in program order', async () => {
    const order: string[] = [];
    const { dispatch } = recordingDispatch(async (_tool, args) => {
      await sleep(1);
      order.push(`call ${String((args as { i: number }).i)}`);
      return { ok: true, value: null };
    });
    const outcome = await runBody(
      pool,
      `for (let i = 0; i < 5; i++) { console.log('log ' + i); await tools.echo({ i }); } return 'done';`,
      {
        dispatch,
        onLog: (e) => order.push(e.text),
      },
    );
    expect(expectOk(outcome)).toBe('done');
    expect(order).toEqual([
      'log 0',
      'call 0',
      'log 1',
      'call 1',
      'log 2',
      'call 2',
      'log 3',
      'call 3',
      'log 4',
      'call 4',
    ]);
  });

  it('overlaps concurrent calls in the host', async () => {
    let inFlight = 0;
    let peak = 0;
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const { dispatch } = recordingDispatch(async (_tool, args) => {
      inFlight++;
      peak = Math.max(peak, inFlight);
      if (inFlight === 3) release();
      await gate;
      inFlight--;
      return { ok: true, value: args };
    });
    const outcome = await runBody(
      pool,
      `return await Promise.all([1, 2, 3].map((i) => tools.echo({ i })));`,
      { dispatch },
    );
    expect(expectOk(outcome)).toEqual([{ i: 1 }, { i: 2 }, { i: 3 }]);
    expect(peak).toBe(3);
  });

  it('lets every dispatch in flight listen on the run signal without a listener warning', async () => {
    const warnings: string[] = [];
    const onWarning = (w: Error): void => {
      warnings.push(w.name);
    };
    process.on('warning', onWarning);
    try {
      const { dispatch } = recordingDispatch(async (_tool, _args, signal) => {
        signal.addEventListener('abort', () => {}, { once: true });
        await sleep(5);
        return { ok: true, value: 1 };
      });
      const outcome = await runBody(
        pool,
        `return (await Promise.all(Array.from({ length: 20 }, () => tools.echo()))).length;`,
        { dispatch },
      );
      expect(expectOk(outcome)).toBe(20);
      await sleep(5);
    } finally {
      process.off('warning', onWarning);
    }
    expect(warnings).toEqual([]);
  });

  it('bounds calls in flight; the rest wait host-side', async () => {
    let inFlight = 0;
    let peak = 0;
    const { dispatch, calls } = recordingDispatch(async () => {
      inFlight++;
      peak = Math.max(peak, inFlight);
      await sleep(5);
      inFlight--;
      return { ok: true, value: 1 };
    });
    const outcome = await runBody(
      pool,
      `return (await Promise.all(Array.from({ length: 6 }, () => tools.echo()))).length;`,
      {
        dispatch,
        limits: { maxCallsInFlight: 2 },
      },
    );
    expect(expectOk(outcome)).toBe(6);
    expect(calls).toHaveLength(6);
    expect(peak).toBe(2);
  });

  it('holds calls beyond maxCallsInFlight within maxQueuedCalls and maxQueuedBytes, in order', async () => {
    const started: unknown[] = [];
    const { dispatch } = recordingDispatch(async (_tool, args) => {
      started.push(args);
      await sleep(5);
      return { ok: true, value: args };
    });
    const body = (sizes: number[]) =>
      `const r = await Promise.allSettled([${sizes.map((n, i) => `tools.echo({ i: ${i}, pad: 'x'.repeat(${n}) })`).join(', ')}]);
       return r.map((x) => x.status === 'fulfilled' ? x.value.i : x.reason.code + ': ' + x.reason.message);`;
    const waiting = (calls: number, bytes: number) =>
      `LIMIT_EXCEEDED: too many tool calls waiting at once (limits: ${calls} calls, ${bytes} bytes of arguments); await some before starting more`;
    // One in flight, two waiting: the fourth and fifth are refused.
    expect(
      expectOk(
        await runBody(pool, body([1, 1, 1, 1, 1]), {
          dispatch,
          limits: { maxCallsInFlight: 1, maxQueuedCalls: 2 },
        }),
      ),
    ).toEqual([0, 1, 2, waiting(2, 8 * 1024 * 1024), waiting(2, 8 * 1024 * 1024)]);
    expect(started.map((a) => (a as { i: number }).i)).toEqual([0, 1, 2]);
    // The bytes of waiting arguments: the second call (~60 bytes) fits in 100, the third does not;
    // once the queue drains, a later call waits again.
    started.length = 0;
    expect(
      expectOk(
        await runBody(
          pool,
          `${body([1, 40, 40]).replace('return', 'const first =')}
           const again = await Promise.all([tools.echo({ i: 3 }), tools.echo({ i: 4 })]);
           return [...first, ...again.map((x) => x.i)];`,
          { dispatch, limits: { maxCallsInFlight: 1, maxQueuedBytes: 100 } },
        ),
      ),
    ).toEqual([0, 1, waiting(256, 100), 3, 4]);
    expect(started.map((a) => (a as { i: number }).i)).toEqual([0, 1, 3, 4]);
  });

  it('counts calls against maxCalls, host and isolate alike', async () => {
    const { dispatch, calls } = recordingDispatch();
    const outcome = await runBody(
      pool,
      `const r = await Promise.allSettled(Array.from({ length: 8 }, () => tools.echo()));
       return r.map((x) => x.status === 'fulfilled' ? 'ok' : x.reason.code);`,
      { dispatch, limits: { maxCalls: 5 } },
    );
    expect(expectOk(outcome)).toEqual([
      'ok',
      'ok',
      'ok',
      'ok',
      'ok',
      'LIMIT_EXCEEDED',
      'LIMIT_EXCEEDED',
      'LIMIT_EXCEEDED',
    ]);
    expect(calls).toHaveLength(5);
    expect(outcome.stats.calls).toBe(5);
  });

  it('reports start and end of each call', async () => {
    const events: CallEvent[] = [];
    const { dispatch } = recordingDispatch((tool) =>
      tool === 'bad' ? { ok: false, code: 'TOOL_ERROR', message: 'x' } : { ok: true, value: 1 },
    );
    const outcome = await runBody(pool, `await tools.good(); await tools.bad().catch(() => 0);`, {
      dispatch,
      bindings: bindingsFor('good', 'bad'),
      onCall: (e) => events.push(e),
    });
    expectOk(outcome);
    expect(
      events.map((e) =>
        e.phase === 'start' ? [e.phase, e.tool, e.seq] : [e.phase, e.tool, e.seq, e.ok, e.code],
      ),
    ).toEqual([
      ['start', 'good', 1],
      ['end', 'good', 1, true, undefined],
      ['start', 'bad', 2],
      ['end', 'bad', 2, false, 'TOOL_ERROR'],
    ]);
  });
});

describe('settlement', () => {
  it('aborts in-flight calls, refuses queued ones, and resolves only after started dispatches settle', async () => {
    let settledAt = 0;
    const { dispatch, calls } = recordingDispatch(
      (_tool, _args, signal) =>
        new Promise<DispatchResult>((resolve) => {
          signal.addEventListener('abort', () => {
            setTimeout(() => {
              settledAt = performance.now();
              resolve({ ok: false, code: 'ABORTED', message: 'aborted' });
            }, 50);
          });
        }),
    );
    const outcome = await runBody(
      pool,
      `tools.echo({ n: 1 }); tools.echo({ n: 2 }); tools.echo({ n: 3 }); await null; return 'early';`,
      {
        dispatch,
        limits: { maxCallsInFlight: 1 },
      },
    );
    const resolvedAt = performance.now();
    expect(expectOk(outcome)).toBe('early');
    // Only the first call was dispatched; it saw the abort; the run waited for it.
    expect(calls.map((c) => c.args)).toEqual([{ n: 1 }]);
    expect(calls[0]?.signal.aborted).toBe(true);
    expect(settledAt).toBeGreaterThan(0);
    expect(resolvedAt).toBeGreaterThanOrEqual(settledAt);
  });

  it('drops binding calls made after the program returned', async () => {
    const { dispatch, calls } = recordingDispatch();
    const outcome = await runBody(
      pool,
      `(async () => { for (let i = 0; i < 5; i++) await null; tools.echo({ late: true }).catch(() => {}); })();
       return 'returned';`,
      { dispatch },
    );
    expect(expectOk(outcome)).toBe('returned');
    await sleep(20);
    expect(calls).toEqual([]);
  });
});
