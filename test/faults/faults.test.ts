/**
 * Fault injection through the HTTP service (issue 10 item 6): a checker killed mid-check, an upstream
 * MCP server that dies mid-call, a sandbox worker killed mid-run, SIGTERM under load. Nothing hangs,
 * every request gets an answer or a clean close, the server exits cleanly, and the audit log holds a
 * terminal record for every call.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditComplete, checkAudit, readAudit } from '../../benchmarks/load/audit.js';
import { checkProgram, runProgram, type RunReply } from '../../benchmarks/load/client.js';
import { scrapeMetrics, sumSeries } from '../../benchmarks/load/metrics.js';
import { commandLine, cpuTicks, descendants, isAlive } from '../../benchmarks/load/proc.js';
import { ROOT } from '../../benchmarks/load/server.js';
import { BENIGN, resultOf, startTenantFace, type TenantFace } from '../load/face.js';
import { until } from '../sources/helpers.js';

const CRASHY = join(ROOT, 'test/faults/fixtures/crashy-mcp.mjs');

/** A type-level bomb: the checker works on it for many seconds (its own time limit is 15 s). */
const CHECKER_BOMB = `type D = '0' | '1' | '2' | '3' | '4' | '5' | '6' | '7' | '8' | '9';
type X = \`\${D}\${D}\${D}\`;
type P = { [K in X]: { [J in X]: [K, J] }[X] }[X];
const v = ['0', '1'] as unknown as P;
return v;`;

/** Not bubblewrap, whose command line names the command it runs behind the second wall. */
const notWall = (pid: number): boolean => {
  try {
    return readFileSync(`/proc/${pid}/comm`, 'latin1').trim() !== 'bwrap';
  } catch {
    return false;
  }
};

/** The checker: a descendant of the server running the native TypeScript compiler. */
const findChecker = (serverPid: number): number | undefined =>
  descendants(serverPid).find((pid) => /typescript|\btsc\b/.test(commandLine(pid)) && notWall(pid));

/** The sandbox worker processes: descendants of the server running the worker entry. */
const findWorkers = (serverPid: number): number[] =>
  descendants(serverPid).filter(
    (pid) => /sandbox-worker\.js|sandbox\/worker\/main\.ts/.test(commandLine(pid)) && notWall(pid),
  );

const answered = (replies: readonly RunReply[]): string[] =>
  replies.flatMap((r) => ('callId' in r && r.callId !== undefined ? [r.callId] : []));

describe('faults: checker and upstream MCP server', () => {
  let face: TenantFace;
  const replies: RunReply[] = [];
  beforeAll(async () => {
    face = await startTenantFace({
      sources: [{ name: 'up', mcp: { command: process.execPath, args: [CRASHY] } }],
    });
  });
  afterAll(() => face?.close());

  it('a checker killed mid-check answers that check; the other tenant checks and runs right after', async () => {
    const { url } = face.server;
    const [a, b] = face.setup.tenants;
    const warm = await checkProgram(url, a.key, 'return 1;');
    expect(warm).toMatchObject({ status: 200 });
    const checker = findChecker(face.server.pid);
    expect(checker, 'the checker process among the server descendants').toBeDefined();
    const before = cpuTicks(checker!);
    const pending = checkProgram(url, a.key, CHECKER_BOMB, 60_000);
    // Mid-check: the checker has burnt 0.3 s of CPU on the bomb.
    await until(() => cpuTicks(checker!) > before + 30, 'the checker to work on the bomb');
    process.kill(checker!, 'SIGKILL');
    const killed = await pending;
    expect(killed, 'an answer, not a dropped connection').not.toHaveProperty('outcome');
    expect(face.server.exit()).toBeUndefined();
    await until(() => !isAlive(checker!), 'the killed checker to be reaped');

    const next = await checkProgram(url, b.key, BENIGN);
    expect(next).toMatchObject({ status: 200 });
    expect(JSON.parse((next as { body: string }).body)).toMatchObject({ ok: true });
    const run = await runProgram(url, b.key, BENIGN);
    replies.push(run);
    expect(run.outcome).toBe('ok');
    expect(findChecker(face.server.pid)).not.toBe(checker);
  });

  it('an upstream MCP server that dies mid-call fails that call cleanly; the next call reconnects', async () => {
    const { url } = face.server;
    const [a, b] = face.setup.tenants;
    for (const tool of ['crash', 'crash_later']) {
      const crashed = await runProgram(
        url,
        a.key,
        `try { await tools.up.${tool}({}); return 'answered'; } catch (e) { return (e as ToolCallError).code; }`,
      );
      replies.push(crashed);
      expect(crashed.outcome).toBe('ok');
      expect(resultOf(crashed)).toMatch(/^UPSTREAM_(UNAVAILABLE|ERROR)$/);
      const back = await runProgram(url, b.key, `return await tools.up.echo({ text: 'back' });`);
      replies.push(back);
      expect(back.outcome).toBe('ok');
      expect(JSON.stringify(resultOf(back))).toContain('back');
    }
    expect(face.server.exit()).toBeUndefined();
  });

  it('a sandbox worker killed mid-run fails that run as crashed; the other tenant runs right after', async () => {
    const { url } = face.server;
    const [a, b] = face.setup.tenants;
    const workers = findWorkers(face.server.pid);
    expect(workers.length, 'sandbox workers among the server descendants').toBeGreaterThan(0);
    const before = new Map(workers.map((pid) => [pid, cpuTicks(pid)]));
    const pending = runProgram(url, a.key, 'let n = 0; while (true) n++;', 60_000);
    // The worker running the spin is the one whose CPU climbs.
    let busy: number | undefined;
    await until(() => {
      busy = findWorkers(face.server.pid).find(
        (pid) => cpuTicks(pid) > (before.get(pid) ?? 0) + 20,
      );
      return busy !== undefined;
    }, 'a worker to run the spin');
    process.kill(busy!, 'SIGKILL');
    const killed = await pending;
    replies.push(killed);
    expect(killed).toMatchObject({
      outcome: 'run-failed',
      code: 'CODE_RUN_FAILED',
      kind: 'crashed',
    });
    expect(face.server.exit()).toBeUndefined();
    const next = await runProgram(url, b.key, BENIGN);
    replies.push(next);
    expect(next.outcome).toBe('ok');
    await until(() => !isAlive(busy!), 'the killed worker to be reaped');
    expect(findWorkers(face.server.pid)).not.toContain(busy);
  });

  it('after all that, SIGTERM exits 0 and the audit holds exactly one terminal record per call', async () => {
    const exit = await face.server.stop(30_000);
    expect(exit).toMatchObject({ code: 0, killed: false });
    const { records, malformedLines } = readAudit(face.setup.auditPath);
    const check = checkAudit(records, answered(replies), malformedLines);
    expect(check.runs).toBeGreaterThanOrEqual(replies.length);
    expect(auditComplete(check), JSON.stringify(check)).toBe(true);
  });
});

describe('faults: SIGTERM under load', () => {
  let face: TenantFace;
  beforeAll(async () => {
    face = await startTenantFace();
  });
  afterAll(() => face?.close());

  it('runs in flight finish or end cleanly, late requests are refused, the exit is clean, nothing is lost', async () => {
    const { url } = face.server;
    const busy = `let x = 0;
for (let i = 0; i < 2e7; i++) x = (x + i) % 1000003;
await tools.kv.set({ key: 'busy', value: x });
return x;`;
    const inflight = Array.from({ length: 12 }, (_, i) =>
      runProgram(url, face.setup.tenants[i % 2]!.key, i % 3 === 0 ? BENIGN : busy, 60_000),
    );
    // Under load: wait until the service reports runs in flight (bounded), then SIGTERM.
    let running = 0;
    for (let i = 0; i < 400 && running === 0; i++) {
      running = sumSeries((await scrapeMetrics(url)) ?? [], /^isocode_runs_in_flight$/) ?? 0;
      if (running === 0) await new Promise((r) => setTimeout(r, 25));
    }
    expect(running).toBeGreaterThan(0);
    const stopping = face.server.stop(30_000);
    const late = await runProgram(url, face.setup.tenants[1].key, BENIGN, 30_000);
    const [exit, replies] = await Promise.all([stopping, Promise.all(inflight)]);

    expect(exit).toMatchObject({ code: 0, killed: false });
    for (const reply of [...replies, late]) {
      if (reply.outcome === 'connection-error') expect(reply.timedOut).toBe(false);
      else if (reply.outcome === 'server-error')
        expect(reply).toMatchObject({ status: 503, code: 'SHUTTING_DOWN' });
      else expect(['ok', 'run-failed']).toContain(reply.outcome);
    }
    expect(replies.some((r) => r.outcome === 'ok')).toBe(true);
    const { records, malformedLines } = readAudit(face.setup.auditPath);
    expect(auditComplete(checkAudit(records, answered(replies), malformedLines))).toBe(true);
  });
});
