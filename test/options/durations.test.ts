/**
 * Every time limit and interval a library user sets is a whole number of milliseconds Node's timers
 * can keep (at most 2^31 − 1, 24.8 days). Before, a longer one passed and Node fired it after 1 ms:
 * a tool with a 30-day limit timed out at once, an approval timed out before anyone saw it; NaN
 * for `maxParallelSubCalls` hung every program with concurrent calls.
 */
import { describe, expect, it } from 'vitest';
import { createRuntime, defineTool } from '../../src/index.js';
import { createDurableRuntime } from '../../src/durable/index.js';
import { MAX_TIMER_MS } from '../../src/options.js';

const DAYS_30 = 30 * 86_400_000;
const tool = (timeoutMs?: number) =>
  defineTool({
    name: 'wait',
    description: 'Waits a little.',
    input: {},
    ...(timeoutMs === undefined ? {} : { timeoutMs }),
    execute: () => new Promise((resolve) => setTimeout(() => resolve('done'), 20)),
  });

describe('durations', () => {
  it.each([
    ['defaultTimeoutMs', { defaultTimeoutMs: DAYS_30 }],
    ['approvalTimeoutMs', { approvalTimeoutMs: DAYS_30 }],
    ['abortGraceMs', { abortGraceMs: Number.NaN }],
    ['defaultTimeoutMs', { defaultTimeoutMs: -1 }],
    ['maxParallelSubCalls', { maxParallelSubCalls: Number.NaN }],
    ['sandbox limit wallMs', { codeMode: { limits: { wallMs: DAYS_30 } } }],
    ['codeMode.timeoutMs', { codeMode: { timeoutMs: DAYS_30 } }],
  ])('%s out of range is INVALID_CONFIG at createRuntime', async (name, options) => {
    await expect(createRuntime({ tools: [tool()], ...options })).rejects.toMatchObject({
      code: 'INVALID_CONFIG',
      message: expect.stringContaining(name) as unknown,
    });
  });

  it("a tool's limit past Node's longest timer is INVALID_TOOL_DEFINITION; the longest one works", async () => {
    await expect(createRuntime({ tools: [tool(DAYS_30)] })).rejects.toMatchObject({
      code: 'INVALID_TOOL_DEFINITION',
      message: expect.stringContaining('timeoutMs') as unknown,
    });
    const rt = await createRuntime({ tools: [tool(MAX_TIMER_MS)], defaultTimeoutMs: MAX_TIMER_MS });
    const res = await rt.execute({ name: 'wait', args: {} });
    expect(res.ok && res.value).toBe('done');
    await rt.close();
  });

  it('the durable options are checked the same way', async () => {
    const base = {
      tools: [tool()],
      scopes: { default: { mode: 'code' as const } },
      codeMode: { typecheck: 'off' as const, sandbox: 'in-process' as const },
    };
    for (const options of [
      { recovery: { leaseMs: Number.NaN } },
      { recovery: { scanMs: DAYS_30 } },
      { runs: { parkAfterMs: DAYS_30 } },
      { runs: { maxQueuedRunsPerScope: -1 } },
      { humanApprovalTimeoutMs: DAYS_30 },
    ])
      await expect(createDurableRuntime({ ...base, ...options })).rejects.toMatchObject({
        code: 'INVALID_CONFIG',
      });
  });
});
