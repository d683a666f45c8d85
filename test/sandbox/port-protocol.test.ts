/**
 * The host's side of the isolate's one-way port: only the bootstrap sends, in three shapes (a call
 * with an integer id, a console line, a text outcome). A message outside them — which only a
 * broken bootstrap could send, never a program — ends the run at once as an internal failure and
 * discards the isolate, instead of leaving the run to its wall limit; the pool's next run works.
 *
 * A program cannot reach the port, so the test takes the handler the run attaches to it and
 * delivers the broken message itself, while the program waits on a promise that never settles.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { SandboxPool } from '../../src/sandbox/index.js';
import { ContextPort, type PortHandler } from '../../src/sandbox/sandbox-isolate.js';
import { expectFailure, expectOk, recordingDispatch, runBody } from './helpers.js';

const pool = new SandboxPool({ size: 1, maxIdle: 2 });
beforeAll(() => pool.warmup());
afterAll(() => pool.close());
afterEach(() => vi.restoreAllMocks());

/** Runs a program that calls `echo` once and then waits forever; `inject` gets the port's handler once that call is answered. */
async function runWith(inject: (handler: PortHandler) => void) {
  let handler: PortHandler | undefined;
  const spy = vi.spyOn(ContextPort.prototype, 'attach');
  spy.mockImplementation(function (this: ContextPort, h: PortHandler) {
    handler = h;
    spy.mockRestore();
    this.attach(h);
  });
  const { dispatch } = recordingDispatch(() => {
    // After the answer is on its way, the program is parked on its never-settling promise.
    setTimeout(() => {
      if (handler !== undefined) inject(handler);
    }, 20);
    return { ok: true, value: 1 };
  });
  // A wall limit far longer than the test's timeout: only the broken message can end the run.
  return runBody(pool, 'await tools.echo({}); await new Promise(() => {});', {
    dispatch,
    limits: { wallMs: 600_000, cpuMs: 600_000 },
  });
}

describe('a message outside the port protocol', () => {
  const cases: [string, (h: PortHandler) => void][] = [
    ['an unknown kind', (h) => h('x', 1, 'echo', '{}')],
    ['an outcome that is not text', (h) => h('o', 42, undefined, undefined)],
    ['a call with a fractional id', (h) => h('c', 1.5, 'echo', '{}')],
    ['a call with a text id', (h) => h('c', '7', 'echo', '{}')],
    ['a call with no id', (h) => h('c', undefined, undefined, undefined)],
  ];
  for (const [name, inject] of cases) {
    it(`(${name}) ends the run as an internal failure at once, and the next run works`, async () => {
      const outcome = await runWith(inject);
      const failure = expectFailure(outcome, 'internal');
      expect(failure.message).toMatch(/outside its protocol/);
      vi.restoreAllMocks();
      expect(expectOk(await runBody(pool, 'return 1 + 1;'))).toBe(2);
    }, 30_000);
  }

  it('well-formed messages keep the run going', async () => {
    const { dispatch, calls } = recordingDispatch();
    const outcome = await runBody(
      pool,
      'console.log("a"); const r = await Promise.all([tools.echo({ n: 1 }), tools.echo({ n: 2 })]); return r.length;',
      { dispatch },
    );
    expect(expectOk(outcome)).toBe(2);
    expect(calls).toHaveLength(2);
  });
});
