import { describe, expect, it } from 'vitest';
import {
  createRuntime,
  type ApprovalOutcome,
  type Approver,
  type ExecutorEvent,
} from '../../src/index.js';
import { codeRuntime, deferred, echo, recorder, run } from './fixtures.js';

const ask = { preExecute: () => ({ action: 'ask' as const, message: 'may I?' }) };

async function withApprover(
  approver: Approver | undefined,
  extra: { approvalTimeoutMs?: number } = {},
) {
  const events: ExecutorEvent[] = [];
  let ran = 0;
  const tool = { ...echo, execute: (a: { text: string }) => (ran++, a) };
  const rt = await createRuntime({
    tools: [tool],
    hooks: ask,
    approver,
    onEvent: (e) => void events.push(e),
    ...extra,
  });
  return { rt, events, ran: () => ran };
}

describe('the approval seam', () => {
  it('allowed-once proceeds to the body', async () => {
    const { rt, ran, events } = await withApprover(() => 'allowed-once');
    const res = await rt.execute({ name: 'echo', args: { text: 'a' } });
    expect(res.ok).toBe(true);
    expect(ran()).toBe(1);
    expect(res.meta.stages).toContain('approval');
    const types = events.map((e) => e.type);
    expect(types).toEqual(['tool/call', 'approval/asked', 'approval/decided', 'tool/result']);
    const asked = events.find((e) => e.type === 'approval/asked');
    expect(asked && asked.type === 'approval/asked' && asked.message).toBe('may I?');
  });

  it.each([
    ['rejected', 'approval-rejected'],
    ['cancelled', 'approval-cancelled'],
    ['unavailable', 'approval-unavailable'],
  ] as const)('%s denies with reason %s and the body never runs', async (outcome, reason) => {
    const { rt, ran, events } = await withApprover(() => outcome);
    const res = await rt.execute({ name: 'echo', args: { text: 'a' } });
    expect(!res.ok && res.error).toMatchObject({ code: 'DENIED', reason });
    expect(ran()).toBe(0);
    const decided = events.find((e) => e.type === 'approval/decided');
    expect(decided && decided.type === 'approval/decided' && decided.outcome).toBe(outcome);
  });

  it('fails closed without an approver', async () => {
    const { rt, ran } = await withApprover(undefined);
    const res = await rt.execute({ name: 'echo', args: { text: 'a' } });
    expect(!res.ok && res.error).toMatchObject({ code: 'DENIED', reason: 'approval-unavailable' });
    expect(ran()).toBe(0);
  });

  it('contains a throwing approver, a rejecting one and a nonsense answer as unavailable', async () => {
    for (const approver of [
      () => {
        throw new Error('boom');
      },
      () => Promise.reject(new Error('nope')),
      () => 'yes please' as ApprovalOutcome,
    ]) {
      const { rt, ran } = await withApprover(approver);
      const res = await rt.execute({ name: 'echo', args: { text: 'a' } });
      expect(!res.ok && res.error).toMatchObject({
        code: 'DENIED',
        reason: 'approval-unavailable',
      });
      expect(ran()).toBe(0);
    }
  });

  it('an answer saying who decided reaches the approval/decided event; a malformed one is unavailable', async () => {
    const { rt, ran, events } = await withApprover(() => ({
      outcome: 'allowed-once' as const,
      decidedBy: 'http:alpha:req-1',
    }));
    expect((await rt.execute({ name: 'echo', args: { text: 'a' } })).ok).toBe(true);
    expect(ran()).toBe(1);
    expect(events.find((e) => e.type === 'approval/decided')).toMatchObject({
      outcome: 'allowed-once',
      decidedBy: 'http:alpha:req-1',
    });
    const plain = await withApprover(() => 'rejected');
    await plain.rt.execute({ name: 'echo', args: { text: 'a' } });
    expect(plain.events.find((e) => e.type === 'approval/decided')).not.toHaveProperty('decidedBy');
    const bad = await withApprover(() => ({ outcome: 'sure' }) as unknown as ApprovalOutcome);
    const res = await bad.rt.execute({ name: 'echo', args: { text: 'a' } });
    expect(!res.ok && res.error).toMatchObject({ reason: 'approval-unavailable' });
    expect(bad.ran()).toBe(0);
  });

  it('a never-answering approver settles unavailable after approvalTimeoutMs', async () => {
    const { rt, ran } = await withApprover(() => new Promise<ApprovalOutcome>(() => {}), {
      approvalTimeoutMs: 30,
    });
    const res = await rt.execute({ name: 'echo', args: { text: 'a' } });
    expect(!res.ok && res.error).toMatchObject({ code: 'DENIED', reason: 'approval-unavailable' });
    expect(ran()).toBe(0);
  });

  it('abort while asking settles cancelled, the call is ABORTED_BEFORE_DISPATCH and a late answer is discarded', async () => {
    const answer = deferred<ApprovalOutcome>();
    let approverSignal: AbortSignal | undefined;
    const { rt, ran, events } = await withApprover((_req, signal) => {
      approverSignal = signal;
      return answer.promise;
    });
    const ac = new AbortController();
    const pending = rt.execute({ name: 'echo', args: { text: 'a' } }, { signal: ac.signal });
    await new Promise((r) => setTimeout(r, 5));
    ac.abort();
    const res = await pending;
    answer.resolve('allowed-once');
    await new Promise((r) => setTimeout(r, 5));
    expect(!res.ok && res.error).toMatchObject({
      code: 'ABORTED_BEFORE_DISPATCH',
      reason: 'approval-cancelled',
    });
    expect(ran()).toBe(0);
    expect(approverSignal?.aborted).toBe(true);
    const decided = events.filter((e) => e.type === 'approval/decided');
    expect(decided).toHaveLength(1);
    expect(decided[0]?.type === 'approval/decided' && decided[0].outcome).toBe('cancelled');
  });

  it("an approver's signal stays quiet once it answered (any answer); the time-out aborts it", async () => {
    for (const outcome of ['rejected', 'allowed-once', 'unavailable'] as const) {
      let seen: AbortSignal | undefined;
      const { rt } = await withApprover((_req, signal) => {
        seen = signal;
        return outcome;
      });
      await rt.execute({ name: 'echo', args: { text: 'a' } });
      expect(seen?.aborted, outcome).toBe(false);
    }
    let slow: AbortSignal | undefined;
    const { rt } = await withApprover(
      (_req, signal) => {
        slow = signal;
        return new Promise<ApprovalOutcome>(() => {});
      },
      { approvalTimeoutMs: 30 },
    );
    await rt.execute({ name: 'echo', args: { text: 'a' } });
    expect(slow?.aborted).toBe(true);
  });

  it('the approver sees the call and a deny from a later pre-hook wins over an earlier ask', async () => {
    const r = recorder();
    const rt = await createRuntime({
      tools: [echo],
      hooks: {
        preExecute: [
          () => ({ action: 'ask' }),
          () => ({ action: 'deny', reason: 'no echo today' }),
        ],
      },
      approver: () => (r.mark('approver'), 'allowed-once'),
    });
    const res = await rt.execute({ name: 'echo', args: { text: 'a' } });
    expect(!res.ok && res.error).toMatchObject({
      code: 'DENIED',
      reason: 'policy',
      message: 'no echo today',
    });
    expect(r.seen).toEqual([]);
  });

  it('a guard denies before approval: the approver is never asked, and nothing turns the denial back into an allow', async () => {
    const asked: string[] = [];
    const events: ExecutorEvent[] = [];
    const rt = await createRuntime({
      tools: [echo],
      hooks: {
        preExecute: () => ({ action: 'ask', message: 'write?' }),
        guards: [() => ({ action: 'deny', reason: 'guarded' }), () => ({ action: 'allow' })],
        postExecute: () => ({ action: 'replace', value: { text: 'sneaky' } }),
      },
      approver: (req) => (asked.push(req.name), 'allowed-once'),
      onEvent: (e) => void events.push(e),
    });
    const res = await rt.execute({ name: 'echo', args: { text: 'a' } });
    expect(!res.ok && res.error).toMatchObject({
      code: 'DENIED',
      reason: 'guard',
      message: 'guarded',
    });
    expect(asked).toEqual([]);
    expect(events.map((e) => e.type)).toEqual(['tool/call', 'tool/result']);
    expect(res.meta.stages).toEqual([
      'create',
      'validate',
      'pre-execute',
      'guards',
      'post-execute',
      'finalize',
    ]);
  });

  it('a call the guards allow still asks the approver, after them', async () => {
    const order: string[] = [];
    const rt = await createRuntime({
      tools: [echo],
      hooks: {
        preExecute: () => (order.push('pre'), { action: 'ask' }),
        guards: () => void order.push('guard'),
      },
      approver: () => (order.push('approver'), 'rejected'),
    });
    const res = await rt.execute({ name: 'echo', args: { text: 'a' } });
    expect(!res.ok && res.error).toMatchObject({ code: 'DENIED', reason: 'approval-rejected' });
    expect(order).toEqual(['pre', 'guard', 'approver']);
    expect(res.meta.stages).toEqual([
      'create',
      'validate',
      'pre-execute',
      'guards',
      'approval',
      'post-execute',
      'finalize',
    ]);
  });

  it('a guard refuses a nested call before its approval too', async () => {
    let asked = 0;
    const rt = await codeRuntime(
      async (api) => {
        const r = await api.call('fs.write', { path: '/etc/passwd' });
        return r.ok ? 'wrote' : (r.error.reason ?? null);
      },
      undefined,
      {
        hooks: {
          preExecute: (ctx) => (ctx.call.name === 'fs.write' ? { action: 'ask' } : undefined),
          guards: (ctx) =>
            ctx.call.name === 'fs.write' ? { action: 'deny', reason: 'read-only' } : undefined,
        },
        approver: () => (asked++, 'allowed-once'),
      },
    );
    const res = await rt.execute(run());
    expect(res.ok && res.value).toMatchObject({ result: 'guard' });
    expect(asked).toBe(0);
    await rt.close();
  });
});

describe("a scope's ask patterns", () => {
  const tools = ['kv.get', 'kv.delete', 'fs.write_file'].map((name) => ({
    name,
    description: `The ${name} tool.`,
    input: { type: 'object' as const, properties: {} },
    execute: () => name,
  }));

  it('ask the approver for the matching tools of the scope and its children, not others', async () => {
    const asked: { name: string; scope: string; messages: readonly string[] }[] = [];
    const rt = await createRuntime({
      tools,
      scopes: {
        default: { mode: 'native', ask: ['kv.delete'] },
        team: { parent: 'default', ask: ['fs.*'] },
        other: { parent: 'default' },
      },
      approver: (req) => {
        asked.push({ name: req.name, scope: req.scope, messages: req.messages });
        return req.name === 'kv.delete' ? 'rejected' : 'allowed-once';
      },
    });
    try {
      expect((await rt.execute({ name: 'kv.get', args: {} }, { scope: 'team' })).ok).toBe(true);
      const del = await rt.execute({ name: 'kv.delete', args: {} }, { scope: 'team' });
      expect(!del.ok && del.error).toMatchObject({ code: 'DENIED', reason: 'approval-rejected' });
      expect((await rt.execute({ name: 'fs.write_file', args: {} }, { scope: 'team' })).ok).toBe(
        true,
      );
      expect((await rt.execute({ name: 'fs.write_file', args: {} }, { scope: 'other' })).ok).toBe(
        true,
      );
      expect(asked).toEqual([
        {
          name: 'kv.delete',
          scope: 'team',
          messages: ['scope "default" asks a human before kv.delete runs'],
        },
        {
          name: 'fs.write_file',
          scope: 'team',
          messages: ['scope "team" asks a human before fs.write_file runs'],
        },
      ]);
    } finally {
      await rt.close();
    }
  });

  it('fail closed without an approver; run_code itself is never asked about', async () => {
    const rt = await createRuntime({
      tools,
      scopes: { default: { mode: 'code', ask: ['*'] } },
      codeMode: { warmup: false },
    });
    try {
      const res = await rt.execute({
        name: 'run_code',
        args: { code: 'return await tools.kv.get({});', description: 'reads' },
      });
      expect(res.meta.stages).not.toContain('approval');
      expect(JSON.stringify(res)).toContain('no approval could be obtained');
    } finally {
      await rt.close();
    }
  });

  it('refuse run_code and non-arrays as patterns with INVALID_SCOPE', async () => {
    for (const ask of [['run_code'], 'kv.*', ['']] as unknown as string[][])
      await expect(createRuntime({ tools, scopes: { default: { ask } } })).rejects.toMatchObject({
        code: 'INVALID_SCOPE',
      });
  });
});
