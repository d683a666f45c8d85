/** Hostile programs through the whole runtime (type-check on): each fails cleanly and the next run works. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createRuntime, defineTool, type Runtime, type ToolResult } from '../../src/index.js';

let rt: Runtime;
let echoed = 0;
beforeAll(async () => {
  rt = await createRuntime({
    tools: [
      defineTool({
        name: 'echo',
        description: 'Echoes its input.',
        input: z.object({ v: z.unknown() }),
        isConcurrencySafe: true,
        execute: (a: { v: unknown }) => (echoed++, a.v ?? null),
      }),
    ],
    scopes: { default: { mode: 'code' } },
    codeMode: {
      limits: {
        cpuMs: 300,
        wallMs: 2_000,
        memoryMb: 16,
        maxLogBytes: 2_048,
        maxResultBytes: 4_096,
        maxCalls: 50,
      },
    },
  });
});
afterAll(() => rt.close());

const run = (code: string): Promise<ToolResult> =>
  rt.execute({ name: 'run_code', args: { code, description: 'hostile' } });
const kind = (r: ToolResult): string | undefined =>
  r.ok ? undefined : (r.error.details as { kind?: string } | undefined)?.kind;
const result = (r: ToolResult): unknown =>
  r.ok ? (r.value as { result: unknown }).result : r.error.message;

describe('hostile programs through run_code', () => {
  it('sees no Node: process, require, fetch, timers, eval and Function from strings are absent or refused', async () => {
    const r = await run(`const g = globalThis as any;
return [typeof g.process, typeof g.require, typeof g.fetch, typeof g.setTimeout, typeof g.WebAssembly, typeof g.SharedArrayBuffer];`);
    expect(result(r)).toEqual([
      'undefined',
      'undefined',
      'undefined',
      'undefined',
      'undefined',
      'undefined',
    ]);
    const ev = await run(
      `try { return (0, eval)('1 + 1'); } catch (e) { return (e as Error).name; }`,
    );
    expect(result(ev)).toBe('EvalError');
    const fn = await run(
      `const F = (() => 1).constructor as any; try { return F('return globalThis')(); } catch (e) { return (e as Error).name; }`,
    );
    expect(result(fn)).toBe('EvalError');
  });

  it('tools has only its bindings: no prototype, no constructor chain to the host', async () => {
    const r = await run(`const t = tools as any;
return [t.constructor, t.__proto__, t.toString, Object.getPrototypeOf(t), Object.keys(t)];`);
    expect(result(r)).toEqual([null, null, null, null, ['echo']]);
  });

  it('prototype pollution through arguments and results leaves the host clean', async () => {
    const r =
      await run(`const polluted = JSON.parse('{"__proto__": {"isocodePolluted": true}, "constructor": {"prototype": {"x": 1}}}');
const back = await tools.echo({ v: polluted });
return back;`);
    expect(r.ok).toBe(true);
    expect(({} as Record<string, unknown>).isocodePolluted).toBeUndefined();
    expect(({} as Record<string, unknown>).x).toBeUndefined();
  });

  it('a spin before or after an await is a timeout, and so is a promise that never settles', async () => {
    expect(kind(await run('while (true) {}'))).toBe('timeout');
    expect(kind(await run('await tools.echo({ v: 1 }); while (true) {}'))).toBe('timeout');
    expect(kind(await run('await new Promise(() => {});'))).toBe('timeout');
  });

  it('a memory bomb is stopped (memory, or the CPU limit first)', async () => {
    const r = await run('const a: string[] = []; for (;;) a.push("x".repeat(4096) + a.length);');
    expect(['memory', 'timeout']).toContain(kind(r));
  });

  it('a log flood keeps what fit; a huge result is output-limit', async () => {
    const flood = await run('for (let i = 0; i < 100000; i++) console.log("line " + i); return 1;');
    expect(kind(flood)).toBe('output-limit');
    const logs = (flood.ok ? [] : ((flood.error.details as { logs?: unknown[] }).logs ?? [])) as {
      text: string;
    }[];
    expect(logs.length).toBeGreaterThan(0);
    expect(logs.map((l) => l.text).join('\n').length).toBeLessThanOrEqual(2_048);
    expect(kind(await run('return "x".repeat(100000);'))).toBe('output-limit');
  });

  it('deep recursion is an exception; non-JSON results are invalid-output', async () => {
    expect(kind(await run('const f = (n: number): number => f(n + 1) + 1; return f(0);'))).toBe(
      'exception',
    );
    expect(kind(await run('return (() => 10) as unknown;'))).toBe('invalid-output');
  });

  it('more binding calls than maxCalls reject with LIMIT_EXCEEDED inside the program', async () => {
    echoed = 0;
    const r =
      await run(`const results = await Promise.allSettled(Array.from({ length: 200 }, (_, i) => tools.echo({ v: i })));
return results.filter((x) => x.status === 'rejected').map((x) => ((x as PromiseRejectedResult).reason as ToolCallError).code)[0];`);
    expect(result(r)).toBe('LIMIT_EXCEEDED');
    expect(echoed).toBeLessThanOrEqual(50);
  });

  it('a thenable result is settled inside the isolate: its then() receives no host function', async () => {
    const r = await run(`return {
  then(resolve: (v: unknown) => void) {
    const F = (resolve as any).constructor;
    let reach = 'none';
    try { reach = typeof F('return typeof process')(); } catch (e) { reach = (e as Error).name; }
    resolve({ adopted: true, reach });
  },
} as unknown;`);
    // Standard JS adoption, inside the isolate; the host only ever sees the JSON that came out of it.
    expect(result(r)).toEqual({ adopted: true, reach: 'EvalError' });
  });

  it('after all of that, a normal run still works in the same process', async () => {
    const r = await run('return (await tools.echo({ v: "still fine" }));');
    expect(result(r)).toBe('still fine');
  });
});
