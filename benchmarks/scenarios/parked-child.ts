/**
 * The parked-run scenario's child (one fresh process): a durable runtime over the embedded store
 * starts N background runs that each ask for an approval, waits until every one is parked, reads
 * what they hold (sandbox workers busy, local lives, RSS), then decides them — a few one at a time
 * (decision → settled latency with nothing else going on) and the rest in one burst — and checks
 * each succeeded. Prints one JSON line. Usage: parked-child.ts <runs> <parkAfterMs> [waitMs]
 * (waitMs: how long the parked runs wait for their humans; their CPU limit is 1 s).
 */
import { z } from 'zod';
import { createDurableRuntime } from '../../src/durable/index.js';
import { defineTool } from '../../src/index.js';

const runs = Number(process.argv[2] ?? 100);
const parkAfterMs = Number(process.argv[3] ?? 100);
const waitMs = Number(process.argv[4] ?? 0);
const rssMb = (): number => process.memoryUsage().rss / 2 ** 20;
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

const t0 = performance.now();
const rt = await createDurableRuntime({
  store: {},
  runs: { parkAfterMs, maxQueuedRunsPerScope: runs + 10 },
  scopes: { default: { mode: 'code' } },
  codeMode: { typecheck: 'off', limits: { cpuMs: 1000 } },
  tools: [
    defineTool({
      name: 'write',
      description: 'A write a human approves.',
      input: z.object({ v: z.number() }),
      execute: ({ v }: { v: number }) => v,
    }),
  ],
  hooks: { preExecute: (ctx) => (ctx.call.name === 'write' ? { action: 'ask' } : undefined) },
});
const startMs = performance.now() - t0;
// Warm the pool and the store: one run that needs no human.
await (await rt.start({ code: 'return 1;' })).wait();
const rssBefore = rssMb();

const settledAt = new Map<string, number>();
rt.runs.onEvent((e) => {
  if (e.type === 'result') settledAt.set(e.runId, performance.now());
});
const parkedIds = new Set<string>();
rt.runs.onEvent((e) => {
  if (e.type === 'status' && (e.data as { parked?: boolean }).parked === true)
    parkedIds.add(e.runId);
});
const tp = performance.now();
const ids: string[] = [];
for (let i = 0; i < runs; i++)
  ids.push((await rt.start({ code: `return await tools.write({ v: ${i} });` })).id);
while (parkedIds.size < runs) {
  await sleep(50);
  process.stderr.write(`tick 0\n`);
}
const parkAllMs = performance.now() - tp;
await sleep(200 + waitMs);
const stats = rt.stats().runner?.sandbox.workers;
const held = {
  busyWorkers: stats?.busy ?? -1,
  workers: stats?.workers ?? -1,
  lives: rt.runs.stats().local,
};
const rssParked = rssMb();

const approvals = await rt.store.listApprovals({ status: ['pending'], limit: 1000 });
const byRun = new Map(approvals.map((a) => [a.runId, a.id]));
const latencies: number[] = [];
const one = Math.min(10, ids.length);
for (const id of ids.slice(0, one)) {
  const t = performance.now();
  await rt.store.decideApproval(byRun.get(id) ?? '', 'allowed-once', 'bench');
  while (!settledAt.has(id)) await sleep(2);
  latencies.push((settledAt.get(id) ?? t) - t);
}
const tb = performance.now();
await Promise.all(
  ids.slice(one).map((id) => rt.store.decideApproval(byRun.get(id) ?? '', 'allowed-once', 'bench')),
);
while (ids.some((id) => !settledAt.has(id))) await sleep(20);
const burst = ids
  .slice(one)
  .map((id) => (settledAt.get(id) ?? tb) - tb)
  .sort((a, b) => a - b);
const views = await Promise.all(ids.map((id) => rt.runs.get(id)));
const failed = views.filter((v) => v?.status !== 'succeeded').length;
await rt.close();
latencies.sort((a, b) => a - b);
const q = (xs: number[], p: number): number =>
  xs[Math.min(xs.length - 1, Math.floor(p * xs.length))] ?? 0;
process.stdout.write(
  `${JSON.stringify({
    runs,
    waitedMs: waitMs,
    startMs,
    parkAllMs,
    ...held,
    rssBeforeMb: rssBefore,
    rssParkedMb: rssParked,
    resumeOneP50Ms: q(latencies, 0.5),
    resumeOneMaxMs: q(latencies, 1),
    resumeBurstP50Ms: q(burst, 0.5),
    resumeBurstP95Ms: q(burst, 0.95),
    resumeBurstMaxMs: q(burst, 1),
    failed,
  })}\n`,
);
