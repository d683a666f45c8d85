/**
 * The V8 startup snapshot against the bootstrap script, per warm run (decision 039): two in-process
 * pools, one isolate each, interleaved round by round, running a program that touches what a real
 * one does (tools, console, JSON, a result). Prints the median per round of this process's CPU per
 * run (isolated-vm's threads included) and the isolate's own CPU per run.
 *
 *   node --no-node-snapshot --import tsx benchmarks/snapshot-ab.ts [--rounds 8] [--runs 300]
 *
 * On V8 before 12 (Node 20) both pools run the script: the snapshot is not used there.
 */
import { parseArgs } from 'node:util';
import { SandboxPool, type SandboxBinding } from '../src/sandbox/index.js';
import type { Dispatch } from '../src/sandbox/types.js';
import { selfCpuMs } from './lib/processes.js';
import { summarize } from './lib/stats.js';
import { SNAPSHOT_SUPPORTED, type BootstrapMode } from '../src/sandbox/isolate-snapshot.js';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '8' },
    runs: { type: 'string', default: '300' },
  },
});
const ROUNDS = Number(values.rounds);
const RUNS = Number(values.runs);

const bindings: SandboxBinding[] = ['kv.get', 'kv.set', 'users.get'].map((tool) => ({
  path: tool.split('.'),
  tool,
}));
/** A transpiled program as the pool runs it: the body of an async function expression. */
const program = (body: string): string => `(async function () {\n'use strict';\n${body}\n})`;
const CODE = program(`
  const user = await tools.users.get({ id: 7 });
  const [a, b] = await Promise.all([tools.kv.get({ key: 'a' }), tools.kv.get({ key: 'b' })]);
  console.log('user', user.name);
  const rows = [a, b].map((v, i) => ({ i, v, at: new Date(0).toISOString() }));
  return { name: user.name, rows, total: rows.length };
`);
const dispatch: Dispatch = (tool) =>
  Promise.resolve({ ok: true, value: tool === 'users.get' ? { name: 'Ada' } : 42 });

async function block(pool: SandboxPool): Promise<{ cpu: number; isolate: number }> {
  const start = selfCpuMs();
  let isolate = 0;
  for (let i = 0; i < RUNS; i++) {
    const out = await pool.run({ js: CODE, bindings, dispatch });
    if (!out.ok) throw new Error(`run failed: ${JSON.stringify(out).slice(0, 300)}`);
    isolate += out.stats.cpuMs;
  }
  return { cpu: (selfCpuMs() - start) / RUNS, isolate: isolate / RUNS };
}

const modes: BootstrapMode[] = ['script', 'snapshot'];
const pools = new Map(modes.map((m) => [m, new SandboxPool({ size: 1, bootstrap: m })]));
const seen = new Map<BootstrapMode, { cpu: number[]; isolate: number[] }>(
  modes.map((m) => [m, { cpu: [], isolate: [] }]),
);
for (const pool of pools.values()) await block(pool); // warm-up
for (let round = 0; round < ROUNDS; round++) {
  for (const mode of round % 2 === 0 ? modes : [...modes].reverse()) {
    const r = await block(pools.get(mode) as SandboxPool);
    seen.get(mode)?.cpu.push(r.cpu);
    seen.get(mode)?.isolate.push(r.isolate);
  }
}
for (const pool of pools.values()) await pool.close();
const line = (m: BootstrapMode): string => {
  const s = seen.get(m) ?? { cpu: [], isolate: [] };
  return `${m}: ${summarize(s.cpu).median.toFixed(3)} ms CPU per run (isolate ${summarize(s.isolate).median.toFixed(3)} ms)`;
};
const ratio =
  summarize(seen.get('snapshot')?.cpu ?? []).median /
  summarize(seen.get('script')?.cpu ?? []).median;
console.log(
  `Node ${process.version}, V8 ${process.versions.v8} (snapshot ${SNAPSHOT_SUPPORTED ? 'used' : 'not supported: both run the script'}); ${ROUNDS} rounds × ${RUNS} runs\n` +
    `${line('script')}\n${line('snapshot')}\nsnapshot ÷ script ${ratio.toFixed(3)}`,
);
