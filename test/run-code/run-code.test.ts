import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  createRuntime,
  defineTool,
  type Runtime,
  type RunCodeValue,
  type ToolResult,
} from '../../src/index.js';
import { deferred } from '../executor/fixtures.js';

let active = 0;
let peak = 0;
const log: string[] = [];
const track = async <T>(name: string, ms: number, value: T): Promise<T> => {
  active++;
  peak = Math.max(peak, active);
  log.push(`start:${name}`);
  await new Promise((r) => setTimeout(r, ms));
  log.push(`end:${name}`);
  active--;
  return value;
};

const tools = [
  defineTool({
    name: 'users.get',
    description: 'Gets a user by id.',
    input: z.object({ id: z.number().int() }),
    output: z.object({ id: z.number(), name: z.string() }),
    isConcurrencySafe: true,
    execute: ({ id }: { id: number }) => track(`get${id}`, 10, { id, name: `user-${id}` }),
  }),
  defineTool({
    name: 'users.rename',
    description: 'Renames a user (exclusive).',
    input: z.object({ id: z.number().int(), name: z.string() }),
    output: z.object({ ok: z.boolean() }),
    execute: ({ id }: { id: number }) => track(`rename${id}`, 10, { ok: true }),
  }),
  defineTool({
    name: 'fail',
    description: 'Always fails.',
    input: z.object({}),
    execute: () => {
      throw new Error('the upstream said no');
    },
  }),
  defineTool({
    name: 'secret',
    description: 'Denied by policy.',
    input: z.object({}),
    execute: () => 'never',
  }),
];

let rt: Runtime;
const run = async (code: string, signal?: AbortSignal): Promise<ToolResult> =>
  rt.execute({ name: 'run_code', args: { code, description: 'test' } }, { signal });
const value = (r: ToolResult): RunCodeValue => {
  if (!r.ok) throw new Error(`run failed: ${r.error.message}`);
  return r.value as unknown as RunCodeValue;
};
const failure = (r: ToolResult) => {
  if (r.ok) throw new Error('expected a failure');
  return r.error as {
    code: string;
    message: string;
    details?: { kind?: string; logs?: unknown[]; line?: number };
  };
};
const parents: (string | undefined)[] = [];

beforeAll(async () => {
  rt = await createRuntime({
    tools,
    scopes: { default: { mode: 'code' } },
    hooks: {
      preExecute: (ctx) => {
        if (ctx.call.name === 'secret') return { action: 'deny', reason: 'secrets are off limits' };
        if (ctx.call.name === 'users.rename') {
          parents.push(ctx.call.parentId);
          return { action: 'ask', message: 'rename?' };
        }
        return undefined;
      },
    },
    approver: (req) => (req.parentId ? 'allowed-once' : 'rejected'),
  });
});
afterAll(() => rt.close());

describe('run_code through the runtime', () => {
  it('a program calling three tools with Promise.all gets their values', async () => {
    const r = await run(`
const users = await Promise.all([1, 2, 3].map((id) => tools.users.get({ id })));
console.log('got', users.length);
return users.map((u) => u.name);`);
    const v = value(r);
    expect(v.result).toEqual(['user-1', 'user-2', 'user-3']);
    expect(v.logs).toEqual([{ level: 'log', text: 'got 3' }]);
    expect(v.calls.map((c) => c.name)).toEqual(['users.get', 'users.get', 'users.get']);
    expect(r.content[0]?.type === 'text' && r.content[0].text).toContain('got 3');
  });

  it('concurrency-safe calls overlap; exclusive ones serialise', async () => {
    peak = 0;
    log.length = 0;
    await run(
      `await Promise.all([tools.users.get({ id: 1 }), tools.users.get({ id: 2 }), tools.users.get({ id: 3 })]); return 1;`,
    );
    expect(peak).toBe(3);
    peak = 0;
    log.length = 0;
    await run(
      `await Promise.all([tools.users.rename({ id: 1, name: 'a' }), tools.users.rename({ id: 2, name: 'b' })]); return 1;`,
    );
    expect(peak).toBe(1);
    expect(log).toEqual(['start:rename1', 'end:rename1', 'start:rename2', 'end:rename2']);
  });

  it('a tool error becomes a catchable ToolCallError with its code and tool name', async () => {
    const v = value(
      await run(`
try {
  await tools.fail({});
  return 'unreachable';
} catch (e) {
  if (e instanceof ToolCallError) return { name: e.name, code: e.code, tool: e.toolName, message: e.message };
  return 'not a ToolCallError';
}`),
    );
    expect(v.result).toEqual({
      name: 'ToolCallError',
      code: 'TOOL_ERROR',
      tool: 'fail',
      message: 'the upstream said no',
    });
  });

  it('a denied nested call rejects in the program with DENIED', async () => {
    const v = value(
      await run(
        `try { await tools.secret({}); return 'ran'; } catch (e) { return (e as ToolCallError).code + ': ' + (e as Error).message; }`,
      ),
    );
    expect(v.result).toBe('DENIED: secrets are off limits');
  });

  it('hooks and approvals see nested calls with the parent id', async () => {
    parents.length = 0;
    const r = await run(`return (await tools.users.rename({ id: 7, name: 'x' })).ok;`);
    expect(value(r).result).toBe(true);
    expect(parents).toEqual([r.meta.callId]);
  });

  it('a model-direct native call is UNKNOWN_TOOL while the program reaches the same tool', async () => {
    const direct = await rt.execute({ name: 'users.get', args: { id: 1 } });
    expect(failure(direct).code).toBe('UNKNOWN_TOOL');
    expect(value(await run('return (await tools.users.get({ id: 1 })).name;')).result).toBe(
      'user-1',
    );
  });

  it('type errors come back as CODE_RUN_FAILED kind typecheck in program coordinates, and the program does not run', async () => {
    log.length = 0;
    const e = failure(
      await run(
        `await tools.users.get({ id: 1 });\nconst u = await tools.users.get({ id: 'two' });\nreturn u.nme;`,
      ),
    );
    expect(e.code).toBe('CODE_RUN_FAILED');
    expect(e.details?.kind).toBe('typecheck');
    expect(e.message).toContain('line 2');
    expect(e.message).toContain('line 3');
    expect(e.message).toContain("'nme'");
    expect(log).toEqual([]);
  });

  it('syntax errors are kind syntax; exceptions are kind exception with the program line and prior logs', async () => {
    expect(failure(await run('const = 1;')).details?.kind).toBe('syntax');
    const e = failure(
      await run(`console.log('step 1');\nconst n: number = 2;\nthrow new Error('bad ' + n);`),
    );
    expect(e.details?.kind).toBe('exception');
    expect(e.details?.line).toBe(3);
    expect(e.message).toContain('bad 2');
    expect(e.details?.logs).toEqual([{ level: 'log', text: 'step 1' }]);
  });

  it('the program cannot name a tool the SDK does not declare, nor reach Node', async () => {
    expect(failure(await run('return await tools.nope({});')).details?.kind).toBe('typecheck');
    expect(failure(await run('return process.env;')).details?.kind).toBe('typecheck');
  });

  it('aborting run_code mid-run aborts its nested calls and nothing runs afterwards', async () => {
    const started = deferred();
    let aborted = false;
    let after = 0;
    const local = await createRuntime({
      tools: [
        defineTool({
          name: 'wait',
          description: '',
          input: z.object({}),
          execute: (_a: object, ctx) =>
            new Promise((res) => {
              started.resolve();
              ctx.signal.addEventListener('abort', () => {
                aborted = true;
                res(0);
              });
            }),
        }),
        defineTool({ name: 'after', description: '', input: z.object({}), execute: () => ++after }),
      ],
      scopes: { default: { mode: 'code' } },
      codeMode: { typecheck: 'off' },
    });
    const ac = new AbortController();
    const pending = local.execute(
      {
        name: 'run_code',
        args: {
          code: 'await tools.wait({}); await tools.after({}); return 1;',
          description: 'abort me',
        },
      },
      { signal: ac.signal },
    );
    await started.promise;
    ac.abort();
    const r = await pending;
    expect(r.ok).toBe(false);
    expect(aborted).toBe(true);
    await new Promise((res) => setTimeout(res, 20));
    expect(after).toBe(0);
    const again = await local.execute({
      name: 'run_code',
      args: { code: 'return 2;', description: 'next' },
    });
    expect(again.ok && again.value).toMatchObject({ result: 2 });
    await local.close();
  });

  it('typecheck "warn" runs the program and logs diagnostics; "off" skips the check', async () => {
    for (const mode of ['warn', 'off'] as const) {
      const local = await createRuntime({
        tools,
        scopes: { default: { mode: 'code' } },
        codeMode: { typecheck: mode },
      });
      const r = await local.execute({
        name: 'run_code',
        args: {
          code: 'const x: number = "1" as unknown as number; return (x as any).length ?? "ran";',
          description: 'warn',
        },
      });
      expect(r.ok).toBe(true);
      await local.close();
    }
  });
});

describe('limits per scope', () => {
  it('a scope with a smaller CPU budget times out where the default scope does not', async () => {
    const local = await createRuntime({
      scopes: { default: { mode: 'code' }, tight: { mode: 'code' } },
      codeMode: {
        typecheck: 'off',
        limits: { cpuMs: 5_000 },
        scopeLimits: { tight: { cpuMs: 50 } },
      },
    });
    const spin = 'const end = Date.now() + 300; while (Date.now() < end) {} return "done";';
    const wide = await local.execute({
      name: 'run_code',
      args: { code: spin, description: 'spin' },
    });
    expect(wide.ok && wide.value).toMatchObject({ result: 'done' });
    const tight = await local.execute(
      { name: 'run_code', args: { code: spin, description: 'spin' } },
      { scope: 'tight' },
    );
    expect(failure(tight).details?.kind).toBe('timeout');
    await local.close();
  });
});
