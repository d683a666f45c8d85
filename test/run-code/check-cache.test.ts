/**
 * The checker's result cache seen through run_code: a repeated program that does not type-check fails
 * the same way from the cache (same error, same diagnostics, same event); a repeated good program
 * runs; a scope never gets an answer another scope's run put in the cache; a changed catalog (a new
 * SDK text) is checked again.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  createRuntime,
  defineTool,
  type RunProgressEvent,
  type Runtime,
  type ToolResult,
} from '../../src/index.js';

const tools = [
  defineTool({
    name: 'users.get',
    description: 'Gets a user by id.',
    input: z.object({ id: z.number().int() }),
    output: z.object({ id: z.number(), name: z.string() }),
    isConcurrencySafe: true,
    execute: ({ id }: { id: number }) => ({ id, name: `user-${id}` }),
  }),
];

let rt: Runtime;
const events: RunProgressEvent[] = [];

beforeAll(async () => {
  rt = await createRuntime({
    tools,
    scopes: { a: { mode: 'code' }, b: { mode: 'code' } },
  });
  rt.onProgress((_id, event) => {
    if (event.type === 'typecheck') events.push(event);
  });
});
afterAll(() => rt.close());

const run = (code: string, scope: string): Promise<ToolResult> =>
  rt.execute({ name: 'run_code', args: { code, description: 'cache' } }, { scope });
const cache = () => rt.stats().runner?.checker?.cache;

const WRONG = 'const u = await tools.users.get({ id: 1 });\nreturn u.nmae;';
const RIGHT = 'const u = await tools.users.get({ id: 1 });\nreturn u.name;';

describe('run_code with the check cache', () => {
  it('fails a repeated ill-typed program the same way from the cache', async () => {
    const before = cache();
    const first = await run(WRONG, 'a');
    const again = await run(WRONG, 'a');
    expect(first.ok).toBe(false);
    expect(again.ok).toBe(false);
    if (first.ok || again.ok) return;
    expect(again.error).toEqual(first.error);
    expect(first.error.code).toBe('CODE_RUN_FAILED');
    expect(first.error.message).toContain("Property 'nmae' does not exist");
    expect(cache()?.hits).toBe((before?.hits ?? 0) + 1);
    const [e1, e2] = events.slice(-2);
    expect(e1).toMatchObject({ type: 'typecheck', ok: false, diagnostics: 1 });
    expect(e2).toMatchObject({ type: 'typecheck', ok: false, diagnostics: 1 });
  });

  it('runs a repeated good program, and never answers one scope from another scope’s entry', async () => {
    const before = cache() ?? { hits: 0, misses: 0 };
    const r1 = await run(RIGHT, 'a');
    const r2 = await run(RIGHT, 'a');
    expect(r1.ok && r2.ok).toBe(true);
    expect(cache()).toMatchObject({ hits: before.hits + 1, misses: before.misses + 1 });
    // Same program, same SDK text, another scope: checked, not answered from scope a's entry.
    const r3 = await run(RIGHT, 'b');
    expect(r3.ok).toBe(true);
    expect(cache()).toMatchObject({ hits: before.hits + 1, misses: before.misses + 2 });
  });

  it('runtime.check is partitioned by its scope too', async () => {
    const program = 'const u = await tools.users.get({ id: 3 });\nreturn u.nmae;';
    const before = cache() ?? { hits: 0, misses: 0 };
    const [a1, b1, a2] = [
      await rt.check(program, 'a'),
      await rt.check(program, 'b'),
      await rt.check(program, 'a'),
    ];
    expect(a1).toHaveLength(1);
    expect(a1[0]?.message).toContain('nmae');
    expect(b1).toEqual(a1);
    expect(a2).toEqual(a1);
    expect(cache()).toMatchObject({ hits: before.hits + 1, misses: before.misses + 2 });
  });

  it('checks again after the catalog changed the SDK', async () => {
    const program = 'const e = await tools.users.email({ id: 2 });\nreturn e.email;';
    const before = await run(program, 'a');
    expect(before.ok).toBe(false);
    rt.register([
      defineTool({
        name: 'users.email',
        description: 'Gets the email of a user.',
        input: z.object({ id: z.number().int() }),
        output: z.object({ email: z.string() }),
        isConcurrencySafe: true,
        execute: ({ id }: { id: number }) => ({ email: `${id}@x` }),
      }),
    ]);
    const after = await run(program, 'a');
    expect(after.ok).toBe(true);
    if (after.ok) expect((after.value as { result: unknown }).result).toBe('2@x');
  });
});
