/**
 * The acceptance test of replicas, with real processes: two `isocode serve` processes (the built
 * bin) on one PostgreSQL schema, each with its own port, replica id, audit file and a short lease.
 * A run started on A is SIGKILLed with A (sandbox workers included) while it waits for approvals;
 * B picks it up, the approvals are decided through B, and every side-effecting tool call ran
 * exactly once (counted in a file both processes append to). A program that takes another path on
 * B (B lacks a tool A has) fails with REPLAY_DIVERGED and runs nothing new.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openPgClient } from '../../src/durable/pg-client.js';
import { ROOT } from '../cli/helpers.js';
import { storeKinds } from './stores.js';
import { listeningUrl } from '../support/listening.js';

const pg = storeKinds()[1]!;
const BIN = join(ROOT, 'bin/isocode.js');
const KEY = `key-${randomBytes(8).toString('hex')}`;
const SCHEMA = `serve_replicas_${randomBytes(4).toString('hex')}`;
const LEASE_MS = 1000;
const dir = mkdtempSync(join(tmpdir(), 'isocode-serve-replicas-'));
const FX_LOG = join(dir, 'effects.log');

interface Serve {
  name: 'A' | 'B';
  child: ChildProcess;
  url: string;
  audit: string;
  stderr: () => string;
}
const children = new Set<ChildProcess>();

/** Starts `isocode serve` as replica `name` (its own process group, so a kill takes its workers). */
async function serve(name: 'A' | 'B', life: string, extraTool = false): Promise<Serve> {
  const audit = join(dir, `audit-${name}-${life}.jsonl`);
  const config = join(dir, `config-${name}-${life}.json`);
  writeFileSync(
    config,
    JSON.stringify({
      sources: [{ module: join(ROOT, 'test/durable/fixtures/serve-tools.mjs') }],
      scopes: { default: { mode: 'code', ask: ['fx.guarded'] } },
      typecheck: 'off',
      workers: { maxWorkers: 2 },
      // Runs waiting for a human hold their slot; a loaded machine starts workers slowly.
      admission: { maxQueueWaitMs: 60_000 },
      audit: { path: audit },
      store: { url: pg.url, schema: SCHEMA, replicaId: name, leaseMs: LEASE_MS },
      server: { apiKeys: [{ key: KEY, scope: 'default' }] },
    }),
  );
  const child = spawn(process.execPath, [BIN, 'serve', '--config', config, '--port', '0'], {
    cwd: dir,
    detached: true,
    stdio: ['ignore', 'ignore', 'pipe'],
    env: {
      ...process.env,
      FX_LOG,
      FX_REPLICA: name,
      ...(extraTool ? { FX_EXTRA: '1' } : {}),
    },
  });
  children.add(child);
  child.once('exit', () => children.delete(child));
  const { url, stderr } = await listeningUrl(child, { label: name, timeoutMs: 30_000 });
  return { name, child, url, audit, stderr };
}

/** SIGKILLs a serve process and its sandbox workers; resolves once it is gone. */
async function kill(s: Serve): Promise<void> {
  if (s.child.exitCode !== null || s.child.signalCode !== null) return;
  const gone = new Promise((resolve) => s.child.once('exit', resolve));
  try {
    process.kill(-s.child.pid!, 'SIGKILL');
  } catch {
    s.child.kill('SIGKILL');
  }
  await gone;
}

const api = async (s: Serve, path: string, body?: unknown): Promise<Response> =>
  fetch(`${s.url}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
const json = async <T = Record<string, unknown>>(s: Serve, path: string, body?: unknown) =>
  (await (await api(s, path, body)).json()) as T;

async function until<T>(
  probe: () => Promise<T | undefined>,
  what: string,
  ms = 30_000,
): Promise<T> {
  for (const end = Date.now() + ms; ;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * Every run's view once all have settled. Fails only when none settles for `stallMs` (a wedged queue
 * or lease), never for slowness while runs keep finishing.
 */
async function untilAllSettled(
  s: Serve,
  ids: readonly string[],
  stallMs: number,
): Promise<RunView[]> {
  const settled = new Map<string, RunView>();
  let progressAt = Date.now();
  while (settled.size < ids.length) {
    const open = ids.filter((id) => !settled.has(id));
    for (let i = 0; i < open.length; i += 50) {
      const chunk = open.slice(i, i + 50);
      const seen = await Promise.all(chunk.map((id) => runOn(s, id)));
      seen.forEach((v, j) => {
        if (v.finishedAt === undefined) return;
        settled.set(chunk[j]!, v);
        progressAt = Date.now();
      });
    }
    if (settled.size === ids.length) break;
    if (Date.now() - progressAt > stallMs)
      throw new Error(
        `no run settled for ${stallMs} ms: ${ids.length - settled.size} of ${ids.length} unsettled`,
      );
    await new Promise((r) => setTimeout(r, 250));
  }
  return ids.map((id) => settled.get(id)!);
}

interface RunView {
  status: string;
  calls?: { name: string; replayed: boolean }[];
  error?: { code?: string };
  result?: { value?: { result?: unknown } };
  finishedAt?: number;
}
interface Approval {
  id: string;
  runId: string;
  status: string;
  decidedBy?: string;
  args: { v: string };
}
const runOn = (s: Serve, id: string): Promise<RunView> => json<RunView>(s, `/v1/runs/${id}`);
const settledOn = (s: Serve, id: string): Promise<RunView> =>
  until(async () => {
    const v = await runOn(s, id);
    return v.finishedAt === undefined ? undefined : v;
  }, `run ${id} to settle on ${s.name}`);
const pendingOn = (s: Serve, runId: string, n: number): Promise<Approval[]> =>
  until(async () => {
    const { approvals } = await json<{ approvals: Approval[] }>(s, '/v1/approvals');
    const mine = approvals.filter((a) => a.runId === runId);
    return mine.length === n ? mine : undefined;
  }, `${n} pending approvals of ${runId} on ${s.name}`);
const effects = (): string[] =>
  existsSync(FX_LOG) ? readFileSync(FX_LOG, 'utf8').split('\n').filter(Boolean) : [];
/** The executions of `tool:v`, whichever replica ran them. */
const ranOf = (tool: string, v: string): string[] =>
  effects().filter((l) => l.startsWith(`${tool}:${v}:`));

/** The run's events (SSE, read to the end: the run is settled). */
async function eventsOf(s: Serve, id: string): Promise<{ event: string; data: unknown }[]> {
  const text = await (await api(s, `/v1/runs/${id}/events`)).text();
  return text
    .split('\n\n')
    .map((block) => {
      const event = /^event: (.*)$/m.exec(block)?.[1];
      const data = /^data: (.*)$/m.exec(block)?.[1];
      return event === undefined || data === undefined
        ? undefined
        : { event, data: JSON.parse(data) as unknown };
    })
    .filter((e): e is { event: string; data: unknown } => e !== undefined);
}

/** The audit records of one run's calls (the run_code call and its nested calls). */
interface AuditRecord {
  type: string;
  name: string;
  outcome?: string;
  decidedBy?: string;
}
function auditOf(s: Serve, runId: string): AuditRecord[] {
  if (!existsSync(s.audit)) return [];
  const callId = `http-run-${runId}`;
  return readFileSync(s.audit, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as AuditRecord & { callId: string; parentId?: string })
    .filter((r) => r.callId === callId || r.parentId === callId);
}
const kinds = (records: AuditRecord[]): string[] =>
  records.map((r) => `${r.type} ${r.name}${r.outcome === undefined ? '' : ` ${r.outcome}`}`);

describe.skipIf(pg.skip !== undefined)(
  'two real `isocode serve` replicas on one PostgreSQL',
  () => {
    let b: Serve;
    let a: Serve | undefined;

    beforeAll(async () => {
      if (!existsSync(join(ROOT, 'dist/cli.js')))
        throw new Error('dist/ is missing: run `npx tsup` (the test spawns the built bin)');
      b = await serve('B', '1');
    }, 60_000);
    afterEach(async () => {
      if (a) await kill(a);
      a = undefined;
    });
    afterAll(async () => {
      for (const child of children) {
        try {
          process.kill(-child.pid!, 'SIGKILL');
        } catch {
          child.kill('SIGKILL');
        }
      }
      const client = openPgClient({ url: pg.url! });
      await client.query(`DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE`).catch(() => undefined);
      await client.close();
      rmSync(dir, { recursive: true, force: true });
    });

    it('600 background runs started on A and B with a 1 s lease and no crash: every side effect ran exactly once', async () => {
      a = await serve('A', 'e');
      const N = 600;
      const ids: string[] = [];
      // Started in bursts on both replicas: most are queued in the store and claimed by whichever
      // replica has a slot; leases are renewed while the runs wait.
      for (let i = 0; i < N; i += 50) {
        const batch = await Promise.all(
          Array.from({ length: 50 }, async (_, j) => {
            const target = (i + j) % 2 === 0 ? a! : b;
            const r = await api(target, '/v1/runs', {
              code: `return (await tools.fx.effect({ v: 'x${i + j}' })).done;`,
            });
            expect(r.status).toBe(202);
            return ((await r.json()) as { id: string }).id;
          }),
        );
        ids.push(...batch);
      }
      // Load-proof wait: no deadline for the whole batch (two replicas on a loaded 2-core machine
      // settle 600 runs in 1 to 5 minutes), only for progress — it fails when no run has settled
      // for 60 s. Only unsettled runs are read again, 50 at a time, so the probe does not load B.
      const views = await untilAllSettled(b, ids, 60_000);
      expect(views.filter((v) => v.status !== 'succeeded')).toEqual([]);
      const ran = effects().filter((l) => l.startsWith('effect:x'));
      const counts = new Map<string, number>();
      for (const line of ran) {
        const v = line.split(':')[1]!;
        counts.set(v, (counts.get(v) ?? 0) + 1);
      }
      expect(counts.size).toBe(N);
      expect([...counts.entries()].filter(([, n]) => n !== 1)).toEqual([]);
      // Both replicas ran some: the queue is shared.
      expect(ran.some((l) => l.endsWith(':A'))).toBe(true);
      expect(ran.some((l) => l.endsWith(':B'))).toBe(true);
      // The test's own timeout only guards against a hang; progress is what the wait above checks.
    }, 1_200_000);

    it('a run waiting for an approval on A survives A: decided through B, finished by B, each effect once', async () => {
      a = await serve('A', 'a');
      const start = await api(a, '/v1/runs', {
        code: `const first = await tools.fx.effect({ v: 'a1' });
        const second = await tools.fx.guarded({ v: 'a2' });
        return [first.done, second.done];`,
      });
      expect(start.status).toBe(202);
      const { id } = (await start.json()) as { id: string };
      await until(
        async () => ((await runOn(a!, id)).status === 'waiting-approval' ? true : undefined),
        'waiting-approval on A',
      );
      const [approval] = await pendingOn(b, id, 1);
      expect(ranOf('effect', 'a1')).toEqual(['effect:a1:A']);
      await kill(a);

      const decided = await api(b, `/v1/approvals/${approval!.id}`, { decision: 'allowed-once' });
      expect(decided.status).toBe(200);
      expect(await decided.json()).toMatchObject({ applied: true });
      const done = await settledOn(b, id);
      expect(done).toMatchObject({
        status: 'succeeded',
        result: { value: { result: ['a1', 'a2'] } },
      });
      expect(ranOf('effect', 'a1')).toEqual(['effect:a1:A']);
      expect(ranOf('guarded', 'a2')).toEqual(['guarded:a2:B']);

      // The run's story: started on A, the call, the ask, picked up by B, the decision, the result.
      const events = await eventsOf(b, id);
      const story = events.map((e) => {
        const d = e.data as { status?: string; replica?: string };
        return e.event === 'status' ? `status ${d.status} ${d.replica ?? '-'}` : e.event;
      });
      expect(story).toContain('status running A');
      expect(story).toContain('status waiting-approval -');
      expect(story).toContain('status running B');
      expect(events).toContainEqual({
        event: 'status',
        data: { status: 'running', replica: 'B', replay: true },
      });
      const decision = events.find(
        (e) => e.event === 'approval' && (e.data as Approval).status === 'allowed-once',
      );
      expect(decision?.data).toMatchObject({ id: approval!.id, status: 'allowed-once' });
      expect((decision?.data as Approval).decidedBy).toMatch(/^http:default:/);
      expect(events.at(-1)).toMatchObject({ event: 'result', data: { status: 'succeeded' } });
      // Calls answered from the journal on B say so: A's effect once live, once replayed.
      const ends = events
        .filter((e) => e.event === 'call-end')
        .map((e) => e.data as { name: string; replayed?: boolean });
      expect(ends.map((e) => [e.name, e.replayed ?? false])).toEqual([
        ['fx.effect', false],
        ['fx.effect', true],
        ['fx.guarded', false],
      ]);
      // The view lists each call once: A's effect (replayed by B's life) and B's guarded call.
      expect((await runOn(b, id)).calls?.map((c) => [c.name, c.replayed])).toEqual([
        ['fx.effect', true],
        ['fx.guarded', false],
      ]);

      // A's audit: the run, the effect, the ask (then nothing: it died). B's: the replay re-asks, the
      // decision, the guarded call's result and the run's.
      expect(kinds(auditOf(a, id))).toEqual(
        expect.arrayContaining([
          'tool/call run_code',
          'tool/call fx.effect',
          'tool/result fx.effect',
          'tool/call fx.guarded',
          'approval/asked fx.guarded',
        ]),
      );
      expect(kinds(auditOf(a, id))).not.toContain('tool/result run_code');
      // The audit says who decided: the key's scope and the deciding request.
      const decidedB = auditOf(b, id).find((r) => r.type === 'approval/decided');
      expect(decidedB?.decidedBy).toBe((decision?.data as Approval).decidedBy);
      expect(kinds(auditOf(b, id))).toEqual(
        expect.arrayContaining([
          'tool/call run_code',
          'approval/decided fx.guarded allowed-once',
          'tool/result fx.guarded',
          'tool/result run_code',
        ]),
      );
    }, 60_000);

    it('three asks of a Promise.all pending on A are decided in one batch through B, each once', async () => {
      a = await serve('A', 'b');
      const { id } = await json<{ id: string }>(a, '/v1/runs', {
        code: `await tools.fx.effect({ v: 'b0' });
        const out = await Promise.all(['b1', 'b2', 'b3'].map((v) => tools.fx.guarded({ v })));
        return out.map((o) => o.done);`,
      });
      const pending = await pendingOn(b, id, 3);
      expect(pending.map((p) => p.args.v).sort()).toEqual(['b1', 'b2', 'b3']);
      await kill(a);

      const batch = await json<{ results: { id: string; applied: boolean }[] }>(
        b,
        '/v1/approvals',
        {
          decisions: pending.map((p) => ({ id: p.id, decision: 'allowed-once' })),
        },
      );
      expect(batch.results.map((r) => r.applied)).toEqual([true, true, true]);
      const done = await settledOn(b, id);
      expect(done).toMatchObject({
        status: 'succeeded',
        result: { value: { result: ['b1', 'b2', 'b3'] } },
      });
      expect(ranOf('effect', 'b0')).toEqual(['effect:b0:A']);
      for (const v of ['b1', 'b2', 'b3']) expect(ranOf('guarded', v)).toEqual([`guarded:${v}:B`]);
      const { approvals } = await json<{ approvals: Approval[] }>(b, `/v1/runs/${id}/approvals`);
      expect(approvals.map((x) => x.status)).toEqual([
        'allowed-once',
        'allowed-once',
        'allowed-once',
      ]);
      const decided = auditOf(b, id).filter((r) => r.type === 'approval/decided');
      expect(decided.map((r) => r.outcome)).toEqual([
        'allowed-once',
        'allowed-once',
        'allowed-once',
      ]);
      for (const r of decided) expect(r.decidedBy).toMatch(/^http:default:/);
      const events = await eventsOf(b, id);
      expect(events).toContainEqual({
        event: 'status',
        data: { status: 'running', replica: 'B', replay: true },
      });
    }, 60_000);

    it('a program that takes another path on B fails with REPLAY_DIVERGED and runs nothing new', async () => {
      // A has `fx.extra`, B does not: the program branches on it (a replica of another version).
      a = await serve('A', 'c', true);
      const { id } = await json<{ id: string }>(a, '/v1/runs', {
        code: `await tools.fx.effect({ v: 'c1' });
        if (tools.fx.extra) await tools.fx.extra({ v: 'c2' });
        else await tools.fx.effect({ v: 'c2-fallback' });
        await tools.fx.guarded({ v: 'c3' });
        return 'done';`,
      });
      await pendingOn(b, id, 1);
      expect(effects().filter((l) => l.includes(':c'))).toEqual(['effect:c1:A', 'extra:c2:A']);
      await kill(a);

      const done = await settledOn(b, id);
      expect(done.status).toBe('failed');
      expect(done.error).toMatchObject({ code: 'REPLAY_DIVERGED' });
      // Nothing new ran on B: not the fallback, not the guarded call; the ask is not left pending.
      expect(effects().filter((l) => l.includes(':c'))).toEqual(['effect:c1:A', 'extra:c2:A']);
      const { approvals } = await json<{ approvals: Approval[] }>(b, `/v1/runs/${id}/approvals`);
      expect(approvals).toMatchObject([{ status: 'cancelled', decidedBy: 'isocode' }]);
      const events = await eventsOf(b, id);
      expect(events.at(-1)).toMatchObject({
        event: 'result',
        data: { status: 'failed', error: { code: 'REPLAY_DIVERGED' } },
      });
    }, 60_000);

    it('a run cancelled through B while A is dead is settled by B once the lease lapses; its ask too', async () => {
      a = await serve('A', 'd');
      const { id } = await json<{ id: string }>(a, '/v1/runs', {
        code: `await tools.fx.effect({ v: 'd1' });
          return (await tools.fx.guarded({ v: 'd2' })).done;`,
      });
      const [approval] = await pendingOn(b, id, 1);
      await kill(a);
      // Within A's lease: B only marks the run; once the lease lapses, B's recovery scan settles it.
      const cancelled = await json<RunView>(b, `/v1/runs/${id}/cancel`, {});
      expect(cancelled.status).toBe('cancelled');
      const done = await settledOn(b, id);
      expect(done.status).toBe('cancelled');
      const { approvals } = await json<{ approvals: Approval[] }>(b, `/v1/runs/${id}/approvals`);
      expect(approvals).toMatchObject([
        { id: approval!.id, status: 'cancelled', decidedBy: 'isocode' },
      ]);
      expect(effects().filter((l) => l.includes(':d'))).toEqual(['effect:d1:A']);
      const events = await eventsOf(b, id);
      expect(events.at(-1)).toMatchObject({ event: 'result', data: { status: 'cancelled' } });
    }, 60_000);
  },
);
