/** Results, exceptions, console and every limit of one run. */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { SandboxPool, type LogEntry } from '../../src/sandbox/index.js';
import { expectFailure, expectOk, program, recordingDispatch, runBody, sleep } from './helpers.js';

const pool = new SandboxPool({
  size: 2,
  defaultLimits: { cpuMs: 500, wallMs: 2_000, memoryMb: 32 },
});
beforeAll(() => pool.warmup());
afterAll(() => pool.close());

describe('results', () => {
  it('returns the JSON value; undefined becomes null', async () => {
    expect(
      expectOk(await runBody(pool, `return { a: [1, 'x', null, true], b: { c: 1.5 } };`)),
    ).toEqual({ a: [1, 'x', null, true], b: { c: 1.5 } });
    expect(expectOk(await runBody(pool, `const x = 1;`))).toBeNull();
    expect(expectOk(await runBody(pool, `return undefined;`))).toBeNull();
    expect(expectOk(await runBody(pool, `return { toJSON() { return 'custom'; } };`))).toBe(
      'custom',
    );
  });

  it('reports values the return-value rule refuses as invalid-output, naming the path', async () => {
    for (const [body, text] of [
      ['return () => 1;', 'result is a function'],
      ['return Symbol("s");', 'result is a symbol'],
      ['const a = {}; a.self = a; return a;', 'result.self refers back to result (a cycle)'],
      [
        'return { toJSON() { throw new Error("nope"); } };',
        'result could not be read: Error: nope',
      ],
    ]) {
      const failure = expectFailure(await runBody(pool, body ?? ''), 'invalid-output');
      expect(failure.message).toMatch(/^the returned value cannot be sent as JSON: /);
      expect(failure.message).toContain(text);
    }
    // Converted by the rule (decision record 018), not refused.
    expect(expectOk(await runBody(pool, 'return 10n;'))).toBe('10');
  });

  it('caps the result bytes (UTF-8, checked by the host)', async () => {
    const failure = expectFailure(
      await runBody(pool, `return 'é'.repeat(600);`, { limits: { maxResultBytes: 1000 } }),
      'output-limit',
    );
    expect(failure.message).toBe(
      "the returned value's JSON is 1202 bytes; the limit is 1000 bytes",
    );
    expectFailure(
      await runBody(pool, `return 'x'.repeat(5000);`, { limits: { maxResultBytes: 1000 } }),
      'output-limit',
    );
    expect(
      expectOk(
        await runBody(pool, `return 'é'.repeat(400);`, { limits: { maxResultBytes: 1000 } }),
      ),
    ).toHaveLength(400);
  });
});

describe('exceptions', () => {
  it('reports the message and the program line and column', async () => {
    const failure = expectFailure(
      await runBody(
        pool,
        `const a = 1;\nfunction f() {\n  throw new RangeError('bad ' + a);\n}\nf();`,
      ),
      'exception',
    );
    expect(failure).toMatchObject({ message: 'RangeError: bad 1', line: 3, column: 9 });
    const asyncFailure = expectFailure(await runBody(pool, `await null;\nnull.x;`), 'exception');
    expect(asyncFailure).toMatchObject({
      message: "TypeError: Cannot read properties of null (reading 'x')",
      line: 2,
      column: 6,
    });
  });

  it('reports thrown non-errors as bounded JSON, and strange errors', async () => {
    const boom = expectFailure(await runBody(pool, `throw 'boom';`), 'exception');
    expect(boom.message).toBe('Uncaught non-Error value: "boom"');
    expect(boom.thrown).toBe('boom');
    const code = expectFailure(await runBody(pool, `throw { code: 1 };`), 'exception');
    expect(code.message).toBe('Uncaught non-Error value: {"code":1}');
    expect(code.thrown).toEqual({ code: 1 });
    const hostile = `throw { get name() { throw 1; }, get message() { while (false); return 'm'; }, get stack() { throw 2; } };`;
    expect(expectFailure(await runBody(pool, hostile), 'exception').thrown).toEqual({
      name: '[unreadable]',
      message: 'm',
      stack: '[unreadable]',
    });
    const failure = expectFailure(
      await runBody(pool, `throw Object.assign(new Error('x'), { stack: 'forged' });`),
      'exception',
    );
    expect(failure.line).toBeUndefined();
    expect(failure.thrown).toBeUndefined();
  });

  it('keeps positions in the JS when no mapper is given, and drops those the mapper rejects', async () => {
    const { dispatch } = recordingDispatch();
    const raw = expectFailure(
      await pool.run({ js: program(`throw new Error('x');`), bindings: [], dispatch }),
      'exception',
    );
    expect([raw.line, raw.column]).toEqual([3, 7]);
    const dropped = expectFailure(
      await pool.run({
        js: program(`throw new Error('x');`),
        bindings: [],
        dispatch,
        mapPosition: () => undefined,
      }),
      'exception',
    );
    expect(dropped.line).toBeUndefined();
  });

  it('reports a syntax error of the JS with its position', async () => {
    const failure = expectFailure(await runBody(pool, `let x = ;`), 'exception');
    expect(failure).toMatchObject({
      message: "SyntaxError: Unexpected token ';'",
      line: 1,
      column: 9,
    });
  });

  it('reports deep recursion as an exception', async () => {
    const failure = expectFailure(
      await runBody(pool, `function f(n) { return f(n + 1) + 1; }\nf(0);`),
      'exception',
    );
    expect(failure.message).toBe('RangeError: Maximum call stack size exceeded');
  });
});

describe('console', () => {
  it('captures every level in order, formatted in the isolate', async () => {
    const streamed: LogEntry[] = [];
    const outcome = await runBody(
      pool,
      `console.log('a', 1, { b: [2] }); console.info(null, undefined); console.warn(new Error('w')); console.error(10n); console.debug(() => 1);`,
      { onLog: (e) => streamed.push(e) },
    );
    expectOk(outcome);
    const expected = [
      { level: 'log', text: 'a 1 {"b":[2]}' },
      { level: 'info', text: 'null undefined' },
      { level: 'warn', text: 'Error: w' },
      { level: 'error', text: '10n' },
      { level: 'debug', text: '[Function: anonymous]' },
    ];
    expect(outcome.logs).toEqual(expected);
    expect(streamed).toEqual(expected);
    expect(outcome.stats.logBytes).toBe(
      expected.reduce((n, e) => n + Buffer.byteLength(e.text) + 1, 0),
    );
  });

  it('is not broken by hostile arguments', async () => {
    const outcome = await runBody(
      pool,
      `const evil = { toString() { throw new Error('ts'); }, get x() { throw new Error('getter'); } };
       const proxy = new Proxy({}, { get() { throw new Error('trap'); }, ownKeys() { throw new Error('trap'); } });
       console.log(evil); console.log(proxy); console.log('still', 'here');
       return 'ok';`,
    );
    expect(expectOk(outcome)).toBe('ok');
    expect(outcome.logs.map((e) => e.text)).toEqual([
      '[object Object]',
      '[unprintable value]',
      'still here',
    ]);
  });

  it('ends the run past maxLogBytes, keeping what fit', async () => {
    const failure = expectFailure(
      await runBody(pool, `for (let i = 0; ; i++) console.log('line ' + i);`, {
        limits: { maxLogBytes: 100 },
      }),
      'output-limit',
    );
    expect(failure.message).toMatch(/console output exceeded 100 bytes/);
    expect(failure.stats.truncatedLogs).toBe(true);
    // "line 0"…"line 9" cost 7 bytes each, "line 10"… 8: 94 bytes fit, then "line 13" is cut to "line ".
    expect(failure.logs.map((e) => e.text)).toEqual([
      ...Array.from({ length: 13 }, (_, i) => `line ${i}`),
      'line ',
    ]);
    expect(failure.stats.logBytes).toBe(100);
  });
});

describe('time limits', () => {
  it('stops a synchronous spin (CPU limit)', async () => {
    const failure = expectFailure(
      await runBody(pool, `while (true) {}`, { limits: { cpuMs: 100 } }),
      'timeout',
    );
    expect(failure.message).toMatch(/CPU time limit/);
    expect(failure.stats.cpuMs).toBeGreaterThanOrEqual(100);
  });

  it('stops a spin after an await (CPU limit, watchdog)', async () => {
    const failure = expectFailure(
      await runBody(pool, `await null; await tools.echo({}); while (true) {}`, {
        limits: { cpuMs: 100 },
      }),
      'timeout',
    );
    expect(failure.message).toMatch(/CPU time limit/);
  });

  it('stops a program awaiting forever (wall-clock limit)', async () => {
    const failure = expectFailure(
      await runBody(pool, `await new Promise(() => {});`, { limits: { wallMs: 150 } }),
      'timeout',
    );
    expect(failure.message).toMatch(/wall-clock limit/);
    expect(failure.stats.cpuMs).toBeLessThan(100);
  });

  it('does not count time spent waiting on the host as CPU', async () => {
    const { dispatch } = recordingDispatch(async () => {
      await sleep(150);
      return { ok: true, value: 1 };
    });
    const outcome = await runBody(pool, `return await tools.echo({});`, {
      dispatch,
      limits: { cpuMs: 100 },
    });
    expect(expectOk(outcome)).toBe(1);
  });
});

describe('memory and aborts', () => {
  it('reports a memory bomb as memory', async () => {
    const body = `const a = []; while (true) a.push(new Array(10000).fill(a.length));`;
    const failure = expectFailure(
      await runBody(pool, body, { limits: { cpuMs: 20_000, wallMs: 60_000 } }),
      'memory',
    );
    expect(failure.message).toBe('the program exceeded its memory limit of 32 MiB');
  });

  it('aborts before the start without creating an isolate', async () => {
    const controller = new AbortController();
    controller.abort();
    // The previous test's isolate was disposed: a refill may still be under way.
    await vi.waitFor(() => expect(pool.stats()).toMatchObject({ preparing: 0, running: 0 }));
    const before = pool.stats().created;
    expectFailure(await runBody(pool, `return 1;`, { signal: controller.signal }), 'aborted');
    expect(pool.stats().created).toBe(before);
  });

  it('aborts a running program and its in-flight calls', async () => {
    const controller = new AbortController();
    const { dispatch, calls } = recordingDispatch(
      (_tool, _args, signal) =>
        new Promise((resolve) => {
          controller.abort();
          signal.addEventListener('abort', () =>
            resolve({ ok: false, code: 'ABORTED', message: 'aborted' }),
          );
        }),
    );
    const failure = expectFailure(
      await runBody(pool, `await tools.echo({}); return 'unreachable';`, {
        dispatch,
        signal: controller.signal,
      }),
      'aborted',
    );
    expect(failure.message).toBe('the run was aborted');
    expect(calls[0]?.signal.aborted).toBe(true);
  });

  it('refuses invalid limits', async () => {
    await expect(runBody(pool, `return 1;`, { limits: { cpuMs: 0 } })).rejects.toMatchObject({
      code: 'INVALID_CONFIG',
    });
    await expect(runBody(pool, `return 1;`, { limits: { memoryMb: 4 } })).rejects.toMatchObject({
      code: 'INVALID_CONFIG',
    });
    await expect(
      runBody(pool, `return 1;`, { limits: { bogus: 1 } as never }),
    ).rejects.toMatchObject({ code: 'INVALID_CONFIG' });
  });
});
