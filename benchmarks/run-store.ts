/**
 * The run store's cost: per-operation medians of the embedded store (SQLite) and PostgreSQL side
 * by side, and how fast a decision posted through another store object reaches a waiter on
 * PostgreSQL (NOTIFY vs polling). Start-up and memory: benchmarks/embedded-store.ts.
 * Usage: `ISOCODE_TEST_PG_URL=postgres://… node --import tsx benchmarks/run-store.ts`.
 */
import { performance } from 'node:perf_hooks';
import { openPgClient } from '../src/durable/pg-client.js';
import { openSqliteStore } from '../src/durable/sqlite-store.js';
import type { SqlClient } from '../src/durable/sql-client.js';
import { createSqlStore } from '../src/durable/sql-store.js';
import type { RunStore } from '../src/durable/store.js';

const N = Number(process.env.N ?? 200);
const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? NaN;
};
const fmt = (ms: number): string => `${ms.toFixed(3)} ms`;

async function timeEach(n: number, fn: (i: number) => Promise<unknown>): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await fn(i);
    times.push(performance.now() - t);
  }
  return median(times);
}

async function ops(store: RunStore): Promise<Record<string, number>> {
  const fence = { owner: 'bench', epoch: 1 };
  await store.createRun({
    id: 'warm',
    scope: 's',
    program: 'p',
    lease: { owner: fence.owner, expiresAt: Date.now() + 3_600_000 },
  });
  const out: Record<string, number> = {};
  out.createRun = await timeEach(N, (i) =>
    store.createRun({ id: `r${i}`, scope: 's', program: 'return 1' }),
  );
  out.getRun = await timeEach(N, (i) => store.getRun(`r${i}`, 's'));
  out.updateRun = await timeEach(N, (i) =>
    store.updateRun(`r${i}`, { status: 'running' }, { status: ['queued'] }),
  );
  out.appendEvent = await timeEach(N, (i) =>
    store.appendEvent('warm', 'log', { i, text: 'hello' }),
  );
  out.listEvents50 = await timeEach(N, () => store.listEvents('warm', 0, 50));
  out.recordArrival = await timeEach(N, (i) =>
    store.recordArrival({ runId: 'warm', key: `k${i}`, name: 't', args: { i } }, fence),
  );
  out.markCallStarted = await timeEach(N, (i) => store.markCallStarted('warm', `k${i}`, fence));
  out.finishCall = await timeEach(N, (i) =>
    store.finishCall('warm', `k${i}`, 'ok', { ok: true, value: i }),
  );
  out.createApproval = await timeEach(N, (i) =>
    store.createApproval({
      id: `a${i}`,
      runId: 'warm',
      callKey: `k${i}`,
      tool: 't',
      args: null,
      scope: 's',
      reason: '',
    }),
  );
  out.decideApproval = await timeEach(N, (i) =>
    store.decideApproval(`a${i}`, 'allowed-once', 'bench'),
  );
  out.settleRun = await timeEach(N, (i) =>
    store.settleRun(`r${i}`, null, {
      status: 'succeeded',
      result: { ok: true, value: i },
      cancelPendingApprovalsAs: 'bench',
    }),
  );
  return out;
}

/** Time from decideApproval on `there` to the waiter on `here` waking. */
async function wakeLatency(here: RunStore, there: RunStore, n: number): Promise<number> {
  await here.createRun({ id: 'lat', scope: 's', program: 'p' });
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    await here.createApproval({
      id: `l${i}`,
      runId: 'lat',
      callKey: 'k',
      tool: 't',
      args: null,
      scope: 's',
      reason: '',
    });
    const waiting = here.waitForDecision(`l${i}`);
    await new Promise((r) => setTimeout(r, 20));
    const t = performance.now();
    await there.decideApproval(`l${i}`, 'rejected', 'bench');
    await waiting;
    times.push(performance.now() - t);
  }
  return median(times);
}

const shared = (c: SqlClient): SqlClient => ({ ...c, close: () => Promise.resolve() });

async function main(): Promise<void> {
  const rows: Record<string, Record<string, number>> = {};
  rows.sqlite = await ops(openSqliteStore());
  const url = process.env.ISOCODE_TEST_PG_URL;
  const pg = url ? openPgClient({ url }) : undefined;
  if (pg)
    rows.postgres = await ops(await createSqlStore(shared(pg), { schema: `b_${Date.now()}` }));
  console.log(`per-operation medians (N=${N}):`);
  for (const op of Object.keys(rows.sqlite ?? {}))
    console.log(
      `  ${op.padEnd(16)} sqlite ${fmt(rows.sqlite[op]!)}${rows.postgres ? `   postgres ${fmt(rows.postgres[op]!)}` : ''}`,
    );
  // Wake-up latency of a decision made through another replica's connection (PostgreSQL).
  if (url && pg) {
    const schema = `w_${Date.now()}`;
    for (const [label, pollMs] of [
      ['NOTIFY (poll 60 s)', 60_000],
      ['poll 250 ms', 250],
    ] as const) {
      const s = `${schema}_${pollMs}`;
      // Polling only: a client that never subscribes.
      const mute = (c: SqlClient): SqlClient =>
        pollMs === 60_000 ? c : { ...c, listen: () => Promise.resolve(() => Promise.resolve()) };
      const other = openPgClient({ url });
      const a = await createSqlStore(mute(shared(pg)), { schema: s, pollMs });
      const b = await createSqlStore(other, { schema: s, pollMs });
      console.log(`  wake ${label.padEnd(20)} postgres ${fmt(await wakeLatency(a, b, 20))}`);
      await b.close();
    }
  }
  await pg?.close();
}

await main();
