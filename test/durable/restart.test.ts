/**
 * One process, the embedded store on disk: the process is killed (SIGKILL) while its run waits for
 * an approval; a new process over the same data directory resumes the run, which completes once the
 * approval is given. Each side effect runs once.
 */
import { fork } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { createDurableRuntime, type DurableRuntime } from '../../src/durable/index.js';
import { replicaTools } from './fixtures/tools.js';
import { childMessage } from '../support/child-message.js';

const FIXTURE = fileURLToPath(new URL('./fixtures/durable-replica.ts', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'isocode-restart-'));
const effects = join(dir, 'effects');
const storePath = join(dir, 'runs');
let second: DurableRuntime | undefined;
afterAll(async () => {
  await second?.close();
  rmSync(dir, { recursive: true, force: true });
});
const lines = (): string[] => readFileSync(effects, 'utf8').split('\n').filter(Boolean);
async function until<T>(probe: () => Promise<T | undefined>, ms = 120_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('restart of a single process with the embedded store', () => {
  it('resumes a run parked on an approval after the process was killed', async () => {
    const child = fork(FIXTURE, [], {
      execArgv: ['--no-node-snapshot', '--import', 'tsx'],
      env: {
        ...process.env,
        STORE_PATH: storePath,
        EFFECTS: effects,
        LEASE_MS: '1000',
        PROGRAM:
          'await tools.append({ v: "a" }); const g = await tools.guarded({ v: "1" }); await tools.append({ v: "b" }); return g;',
      },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    const runId = await childMessage(child);
    await until(() => {
      try {
        return Promise.resolve(lines().includes('a') ? true : undefined);
      } catch {
        return Promise.resolve(undefined);
      }
    });
    // The approval is parked right after; killed before that, the next life asks anew (either way
    // the test waits for the pending approval below).
    await new Promise((r) => setTimeout(r, 500));
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGKILL');
    await exited;

    second = await createDurableRuntime({
      store: { path: storePath },
      recovery: { leaseMs: 1000, scanMs: 100 },
      tools: replicaTools(effects, true),
      scopes: { default: { mode: 'code' } },
      hooks: {
        preExecute: (ctx) => (ctx.call.name === 'guarded' ? { action: 'ask' } : undefined),
      },
      codeMode: { typecheck: 'off' },
    });
    const store = second.store;
    const [approval] = await until(async () => {
      const list = await store.listApprovals({ runId, status: ['pending'] });
      return list.length > 0 ? list : undefined;
    });
    await store.decideApproval(approval!.id, 'allowed-once', 'a human');
    const run = await until(async () => {
      const r = await store.getRun(runId);
      return r !== undefined && ['succeeded', 'failed', 'interrupted'].includes(r.status)
        ? r
        : undefined;
    });
    expect(run.status).toBe('succeeded');
    expect(lines()).toEqual(['a', 'guarded:1', 'b']);
  }, 240_000);

  it('a graceful restart re-attaches the pending approval: one ask, never cancelled and asked anew', async () => {
    await second?.close();
    second = undefined;
    const path = join(dir, 'graceful');
    const fx = join(dir, 'effects-graceful');
    const open = () =>
      createDurableRuntime({
        store: { path },
        recovery: { leaseMs: 1000, scanMs: 100 },
        // Not parked: the life is still running when the process stops.
        runs: { parkAfterMs: false },
        tools: replicaTools(fx, true),
        scopes: { default: { mode: 'code' } },
        hooks: {
          preExecute: (ctx) => (ctx.call.name === 'guarded' ? { action: 'ask' } : undefined),
        },
        codeMode: { typecheck: 'off' },
      });
    const first = await open();
    const handle = await first.start({
      code: 'await tools.append({ v: "a" }); const g = await tools.guarded({ v: "1" }); await tools.append({ v: "b" }); return g;',
    });
    const [asked] = await until(async () => {
      const list = await first.store.listApprovals({ runId: handle.id, status: ['pending'] });
      return list.length > 0 ? list : undefined;
    });
    await first.close();
    second = await open();
    const store = second.store;
    // The same approval, still pending, and the run free for the new process to claim.
    expect(await store.getApproval(asked!.id)).toMatchObject({ status: 'pending' });
    await until(async () =>
      (await store.getRun(handle.id))?.owner !== undefined ? true : undefined,
    );
    await store.decideApproval(asked!.id, 'allowed-once', 'a human');
    const run = await until(async () => {
      const r = await store.getRun(handle.id);
      return r?.finishedAt === undefined ? undefined : r;
    });
    expect(run.status).toBe('succeeded');
    expect((await store.listApprovals({ runId: handle.id })).map((a) => a.status)).toEqual([
      'allowed-once',
    ]);
    expect(readFileSync(fx, 'utf8').split('\n').filter(Boolean)).toEqual(['a', 'guarded:1', 'b']);
  }, 240_000);
});
