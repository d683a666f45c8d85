/**
 * Frames across the process boundary: a worker's batch of calls is read as the calls it holds, each
 * dispatched, answered and failed on its own (their replies leave together, in one frame), and a
 * malformed frame costs the worker its life exactly as a malformed message does. The worker here
 * is a scripted stand-in speaking the protocol over real Node IPC.
 */
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import type { JsonValue } from '../../src/json.js';
import type { DispatchResult, RunOutcome } from '../../src/sandbox/index.js';
import { WorkerHandle } from '../../src/sandbox/worker/handle.js';
import { DEFAULT_LIMITS } from '../../src/sandbox/index.js';

const fixture = fileURLToPath(new URL('./fixtures/scripted-worker.mjs', import.meta.url));
const handles: WorkerHandle[] = [];

afterEach(async () => {
  for (const handle of handles.splice(0)) {
    handle.kill('closed');
    await handle.exited;
  }
});

async function runScenario(
  scenario: string,
): Promise<{ outcome: RunOutcome; handle: WorkerHandle; dispatched: JsonValue[] }> {
  const child = fork(fixture, [scenario], {
    serialization: 'json',
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
  });
  const handle = new WorkerHandle(child, 256 * 1024 * 1024);
  handles.push(handle);
  expect(await handle.ready).toBe(true);
  const transpiled = await handle.transpile('return 1;');
  if (transpiled === undefined) throw new Error('the scripted worker died');
  const dispatched: JsonValue[] = [];
  const outcome = await handle.run(transpiled.program, {
    bindings: [{ path: ['kv', 'get'], tool: 'kv.get' }],
    limits: { ...DEFAULT_LIMITS, wallMs: 5_000 },
    partition: 'p',
    dispatch: (tool, args): Promise<DispatchResult> => {
      dispatched.push(args);
      const key = (args as { key: string }).key;
      return Promise.resolve(
        key === 'fail'
          ? { ok: false, code: 'TOOL_ERROR', message: `no ${key}` }
          : { ok: true, value: `${tool}:${key}` },
      );
    },
  });
  return { outcome, handle, dispatched };
}

describe('frames from a worker', () => {
  it('dispatches every call of a batch on its own and answers them in one frame', async () => {
    const { outcome, dispatched } = await runScenario('batch');
    expect(outcome.ok, JSON.stringify(outcome)).toBe(true);
    expect(dispatched).toEqual([{ key: 'a' }, { key: 'fail' }, { key: 'c' }]);
    expect(outcome.ok && outcome.result).toEqual({
      replies: [
        { call: 1, result: { ok: true, json: '"kv.get:a"' } },
        { call: 2, result: { ok: false, code: 'TOOL_ERROR', message: 'no fail' } },
        { call: 3, result: { ok: true, json: '"kv.get:c"' } },
      ],
      replyFrames: 1,
    });
  });

  it('kills a worker for a malformed batch exactly as for a malformed message', async () => {
    const single = await runScenario('single-malformed');
    expect(single.handle.killedFor).toBe('retired');
    expect(single.outcome.ok).toBe(false);
    const expected = !single.outcome.ok && { kind: single.outcome.kind };
    expect(expected).toEqual({ kind: 'crashed' });
    for (const scenario of [
      'not-a-list',
      'empty',
      'oversized',
      'nested',
      'malformed-entry',
      'malformed-then-call', // the call behind the malformed entry is never dispatched
    ]) {
      const { outcome, handle, dispatched } = await runScenario(scenario);
      expect(handle.killedFor, scenario).toBe('retired');
      expect(dispatched, scenario).toEqual([]);
      expect(!outcome.ok && { kind: outcome.kind }, scenario).toEqual(expected);
      expect(!outcome.ok && outcome.message, scenario).toBe(
        !single.outcome.ok && single.outcome.message,
      );
    }
  });

  it('reads the report a worker wrote just before it ended itself', async () => {
    for (let i = 0; i < 5; i++) {
      const { outcome, handle } = await runScenario('fatal-then-die');
      expect(handle.killedFor).toBe('memory');
      expect(!outcome.ok && outcome.kind).toBe('memory');
    }
  });
});
