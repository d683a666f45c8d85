/**
 * `ExecuteOptions.approver`: a per-call approver overrides the runtime's for that call, and the
 * parent token carries it to every nested call of a run_code program. A concurrent call without
 * one keeps the runtime's approver.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  createRuntime,
  defineTool,
  type ApprovalOutcome,
  type ApprovalRequest,
  type Runtime,
  type RunCodeValue,
  type ToolResult,
} from '../../src/index.js';
import { codeRuntime, deferred, run } from '../executor/fixtures.js';

const ran: string[] = [];
const runtimeAsked: ApprovalRequest[] = [];
let rt: Runtime;

beforeAll(async () => {
  rt = await createRuntime({
    tools: [
      defineTool({
        name: 'danger',
        description: 'Needs approval.',
        input: z.object({ who: z.string() }),
        execute: ({ who }: { who: string }) => {
          ran.push(who);
          return `done ${who}`;
        },
      }),
    ],
    scopes: { default: { mode: 'code' } },
    hooks: {
      preExecute: (ctx) =>
        ctx.call.name === 'danger' ? { action: 'ask', message: 'danger?' } : undefined,
    },
    approver: (request) => {
      runtimeAsked.push(request);
      return 'rejected';
    },
  });
});
afterAll(() => rt.close());

const program = (who: string): string =>
  `try { return await tools.danger({ who: ${JSON.stringify(who)} }); } catch (e) { return (e as ToolCallError).code; }`;
const result = (r: ToolResult): unknown => {
  if (!r.ok) throw new Error(`run failed: ${r.error.message}`);
  return (r.value as unknown as RunCodeValue).result;
};

describe('a per-call approver', () => {
  it('answers the asks of the nested calls of its run; a concurrent run without one uses the runtime approver', async () => {
    ran.length = 0;
    runtimeAsked.length = 0;
    const perCallAsked: ApprovalRequest[] = [];
    // The per-call approver answers only once the other run's ask reached the runtime approver:
    // both runs are in flight at the same time.
    const other = deferred();
    const [withOwn, without] = await Promise.all([
      rt.execute(
        { name: 'run_code', args: { code: program('own'), description: 'own approver' } },
        {
          approver: async (request): Promise<ApprovalOutcome> => {
            perCallAsked.push(request);
            await other.promise;
            return 'allowed-once';
          },
        },
      ),
      rt
        .execute({ name: 'run_code', args: { code: program('runtime'), description: 'runtime' } })
        .finally(() => other.resolve()),
    ]);
    expect(result(withOwn)).toBe('done own');
    expect(result(without)).toBe('DENIED');
    expect(ran).toEqual(['own']);
    expect(perCallAsked.map((r) => r.args)).toEqual([{ who: 'own' }]);
    expect(perCallAsked[0]?.parentId).toBe(withOwn.meta.callId);
    expect(runtimeAsked.map((r) => r.args)).toEqual([{ who: 'runtime' }]);
    expect(runtimeAsked[0]?.parentId).toBe(without.meta.callId);
  });

  it('every nested call of the program uses it (Promise.all of two asks)', async () => {
    ran.length = 0;
    runtimeAsked.length = 0;
    const seen: string[] = [];
    const r = await rt.execute(
      {
        name: 'run_code',
        args: {
          code: `return await Promise.all([tools.danger({ who: 'a' }), tools.danger({ who: 'b' })]);`,
          description: 'two asks',
        },
      },
      {
        approver: (request) => {
          seen.push((request.args as { who: string }).who);
          return 'allowed-once';
        },
      },
    );
    expect(result(r)).toEqual(['done a', 'done b']);
    expect(seen.sort()).toEqual(['a', 'b']);
    expect(runtimeAsked).toEqual([]);
  });

  it('a direct (non-code) call uses it too', async () => {
    const native = await createRuntime({
      tools: [
        defineTool({
          name: 'danger',
          description: 'Needs approval.',
          input: z.object({}),
          execute: () => 'ran',
        }),
      ],
      hooks: { preExecute: () => ({ action: 'ask' }) },
      approver: () => 'rejected',
    });
    try {
      const r = await native.execute(
        { name: 'danger', args: {} },
        { approver: () => 'allowed-once' },
      );
      expect(r.ok).toBe(true);
      const plain = await native.execute({ name: 'danger', args: {} });
      expect(plain.ok || plain.error.reason).toBe('approval-rejected');
    } finally {
      await native.close();
    }
  });

  it("a nested call cannot swap it: its own approver option is ignored for the token's", async () => {
    const t = defineTool({ name: 't', description: '', input: {}, execute: () => 1 });
    const holder: { rt?: Runtime } = {};
    const nested = await codeRuntime(
      async (api) => {
        const own = await holder.rt?.execute(
          { name: 't', args: {} },
          { scope: api.scope, parent: api.parentToken, approver: () => 'allowed-once' },
        );
        return own?.ok || own?.error.reason;
      },
      [t],
      {
        hooks: { preExecute: (ctx) => (ctx.call.name === 't' ? { action: 'ask' } : undefined) },
        approver: () => 'rejected',
      },
    );
    holder.rt = nested;
    try {
      // No per-call approver on the run: the token carries none, so the runtime's answers.
      const plain = await nested.execute(run());
      expect(plain.ok && plain.value).toMatchObject({ result: 'approval-rejected' });
      // The run's own approver is the one its nested calls get.
      const own = await nested.execute(run(), { approver: () => 'cancelled' });
      expect(own.ok && own.value).toMatchObject({ result: 'approval-cancelled' });
    } finally {
      await nested.close();
    }
  });
});
