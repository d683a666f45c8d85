/**
 * Runs that survive their replica: a replica process runs a durable run against PostgreSQL and is
 * killed with SIGKILL in the middle of a call; another replica (a durable runtime in this process)
 * finds the lapsed lease, claims the run and replays it. Needs ISOCODE_TEST_PG_URL (skipped
 * without it, failed under CI).
 */
import { fork, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDurableRuntime } from '../../src/durable/index.js';
import { openRunStore } from '../../src/durable/open-store.js';
import { openPgClient } from '../../src/durable/pg-client.js';
import type { RunRecord, RunStore } from '../../src/durable/store.js';
import { replicaTools } from './fixtures/tools.js';
import { schemaName } from './stores.js';
import { childMessage } from '../support/child-message.js';
import { until } from '../support/until.js';

const PG_URL = process.env.ISOCODE_TEST_PG_URL;
if (PG_URL === undefined && process.env.CI)
  throw new Error('CI is set but ISOCODE_TEST_PG_URL is not: replica recovery must be tested');
const FIXTURE = fileURLToPath(new URL('./fixtures/replica.ts', import.meta.url));
const LEASE_MS = 1_000;

let dir: string;
let schema: string;
let store: RunStore;
let effects: string;

const lines = (): string[] => readFileSync(effects, 'utf8').split('\n').filter(Boolean);

/** Starts replica A on `program`; resolves with the run's id once it is inside its gate call. */
async function replicaA(
  program: string,
  audit: boolean,
): Promise<{ child: ChildProcess; runId: string }> {
  const child = fork(FIXTURE, [], {
    execArgv: ['--no-node-snapshot', '--import', 'tsx'],
    env: {
      ...process.env,
      PG_URL,
      SCHEMA: schema,
      EFFECTS: effects,
      PROGRAM: program,
      LEASE_MS: String(LEASE_MS),
      ...(audit ? { AUDIT: '1' } : {}),
    },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const runId = await childMessage(child);
  await until(() => {
    try {
      return lines().includes('gate') ? true : undefined;
    } catch {
      return undefined;
    }
  });
  return { child, runId };
}

async function kill(child: ChildProcess): Promise<void> {
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGKILL');
  await exited;
}

/** Replica B (a durable runtime in this process) picks up whatever is claimable, until `runId` settles. */
async function recoverOn(runId: string): Promise<RunRecord> {
  const b = await createDurableRuntime({
    store: { url: PG_URL, schema },
    replicaId: 'replica-b',
    recovery: { leaseMs: LEASE_MS, scanMs: 100 },
    tools: replicaTools(effects, true),
    scopes: { default: { mode: 'code' } },
    codeMode: { typecheck: 'off' },
  });
  try {
    return await until(async () => {
      const run = await store.getRun(runId);
      return run !== undefined && !['queued', 'running', 'waiting-approval'].includes(run.status)
        ? run
        : undefined;
    });
  } finally {
    await b.close();
  }
}

describe.skipIf(PG_URL === undefined)('recovery across replicas (PostgreSQL)', () => {
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'isocode-replicas-'));
    schema = schemaName();
    store = await openRunStore({ url: PG_URL, schema });
  });
  afterAll(async () => {
    await store?.close();
    if (PG_URL !== undefined) {
      const client = openPgClient({ url: PG_URL });
      await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await client.close();
    }
    rmSync(dir, { recursive: true, force: true });
  });

  it('completes a run on another replica after its replica is SIGKILLed mid-call; each side effect runs once', async () => {
    effects = join(dir, 'effects-1');
    const program =
      'const t = Date.now(); await tools.append({ v: "a" }); const g = await tools.gate({}); await tools.append({ v: "b" }); return [g, t];';
    const a = await replicaA(program, false);
    await kill(a.child);
    const r1 = a.runId;
    const run = await recoverOn(r1);
    expect(run.status).toBe('succeeded');
    expect(run.owner).toBeUndefined();
    const value = (run.result as { value: { result: [string, number] } }).value.result;
    expect(value[0]).toBe('open');
    const clock = (await store.listValues(r1)).filter((v) => v.kind === 'date');
    expect(value[1]).toBe(clock[0]?.value); // the clock A read, replayed on B
    // a and b once each; the gate (idempotent) was in flight on A and ran again on B
    expect(lines()).toEqual(['a', 'gate', 'gate', 'b']);
    const events = (await store.listEvents(r1)).filter(
      (e) => e.type === 'status' || e.type === 'result',
    );
    expect(
      events.map((e) => [
        e.type,
        (e.data as { status: string; replica?: string }).status,
        (e.data as { replica?: string }).replica,
      ]),
    ).toEqual([
      ['status', 'running', 'replica-a'],
      ['status', 'running', 'replica-b'],
      ['result', 'succeeded', undefined],
    ]);
    expect((events[1]?.data as { replay?: boolean }).replay).toBe(true);
    const calls = await store.listCalls(r1);
    expect(calls.map((c) => [c.name, c.status])).toEqual([
      ['append', 'ok'],
      ['gate', 'ok'],
      ['append', 'ok'],
    ]);
  }, 120_000);

  it('fails a run that diverges on replay (the replicas run different tool catalogs) with REPLAY_DIVERGED and runs nothing new', async () => {
    effects = join(dir, 'effects-2');
    // Replica A has an `audit` tool (another version of the service); replica B does not.
    const program =
      'const t = tools as any; if (t.audit) await t.audit({ v: "x" }); else await tools.append({ v: "x" }); await tools.gate({}); await tools.append({ v: "after" }); return 1;';
    const a = await replicaA(program, true);
    await kill(a.child);
    const run = await recoverOn(a.runId);
    expect(run.status).toBe('failed');
    const error = run.error as { code: string; message: string };
    expect(error.code).toBe('REPLAY_DIVERGED');
    expect(error.message).toMatch(/append\(\{"v":"x"\}\)/);
    expect(lines()).toEqual(['audit:x', 'gate']);
  }, 120_000);
});
