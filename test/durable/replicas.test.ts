/**
 * Two durable runtimes sharing one PostgreSQL: replica A (a process) starts a background run that
 * makes a side-effecting call and then parks on approvals; A is killed with SIGKILL; the approvals
 * are decided through replica B (this process), which picks the run up and completes it. Every
 * side-effecting call runs exactly once. Needs ISOCODE_TEST_PG_URL.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDurableRuntime, type DurableRuntime } from '../../src/durable/index.js';
import { openPgClient } from '../../src/durable/pg-client.js';
import type { RunRecord } from '../../src/durable/store.js';
import { replicaTools } from './fixtures/tools.js';
import { schemaName } from './stores.js';
import { childMessage } from '../support/child-message.js';
import { until } from '../support/until.js';

const PG_URL = process.env.ISOCODE_TEST_PG_URL;
if (PG_URL === undefined && process.env.CI)
  throw new Error('CI is set but ISOCODE_TEST_PG_URL is not: replica recovery must be tested');
const FIXTURE = fileURLToPath(new URL('./fixtures/durable-replica.ts', import.meta.url));
const LEASE_MS = 1_000;

let dir: string;
let schema: string;
let effects: string;
let b: DurableRuntime;
const lines = (): string[] => {
  try {
    return readFileSync(effects, 'utf8').split('\n').filter(Boolean);
  } catch {
    return [];
  }
};

async function replicaA(program: string): Promise<{ child: ChildProcess; runId: string }> {
  const child = fork(FIXTURE, [], {
    execArgv: ['--no-node-snapshot', '--import', 'tsx'],
    env: {
      ...process.env,
      PG_URL,
      SCHEMA: schema,
      EFFECTS: effects,
      PROGRAM: program,
      LEASE_MS: String(LEASE_MS),
    },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const runId = await childMessage(child);
  return { child, runId };
}
async function kill(child: ChildProcess): Promise<void> {
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGKILL');
  await exited;
}

describe.skipIf(PG_URL === undefined)('two durable replicas on one PostgreSQL', () => {
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'isocode-replicas-'));
    schema = schemaName();
    effects = join(dir, 'effects');
    b = await createDurableRuntime({
      store: { url: PG_URL, schema },
      replicaId: 'replica-b',
      recovery: { leaseMs: LEASE_MS, scanMs: 100 },
      tools: replicaTools(effects, true),
      scopes: { default: { mode: 'code' } },
      hooks: { preExecute: (ctx) => (ctx.call.name === 'guarded' ? { action: 'ask' } : undefined) },
      codeMode: { typecheck: 'off' },
    });
  });
  afterAll(async () => {
    await b?.close();
    if (PG_URL !== undefined) {
      const client = openPgClient({ url: PG_URL });
      await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await client.close();
    }
    rmSync(dir, { recursive: true, force: true });
  });

  it('Promise.all of three approvals: A dies while they wait, B takes the batch decision and completes the run; each call once', async () => {
    const program =
      'await tools.append({ v: "a" }); const r = await Promise.all([tools.guarded({ v: "1" }), tools.guarded({ v: "2" }), tools.guarded({ v: "3" })]); return r.join("");';
    const { child, runId } = await replicaA(program);
    const pending = await until(async () => {
      const list = await b.store.listApprovals({ runId, status: ['pending'] });
      return list.length === 3 ? list : undefined;
    });
    await kill(child);
    for (const a of pending) await b.store.decideApproval(a.id, 'allowed-once', 'a human');
    const run = await until(async () => {
      const r: RunRecord | undefined = await b.store.getRun(runId);
      return r !== undefined && ['succeeded', 'failed', 'interrupted'].includes(r.status)
        ? r
        : undefined;
    });
    expect(run.status).toBe('succeeded');
    expect((run.result as { value: { result: string } }).value.result).toBe('123');
    expect(lines().sort()).toEqual(['a', 'guarded:1', 'guarded:2', 'guarded:3']);
    // No new approval was made: the replay re-parked on the three A had asked.
    expect(await b.store.listApprovals({ runId })).toHaveLength(3);
    const statuses = (await b.store.listEvents(runId))
      .filter((e) => e.type === 'status')
      .map((e) => e.data);
    expect(statuses).toContainEqual({ status: 'running', replica: 'replica-a' });
    expect(statuses).toContainEqual({ status: 'running', replica: 'replica-b', replay: true });
  }, 120_000);
});
