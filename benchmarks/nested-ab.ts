/**
 * The nested-call path of two checkouts of isocode, interleaved in one process:
 *
 *   node --no-node-snapshot --import tsx benchmarks/nested-ab.ts <checkout-A> <checkout-B> \
 *     [--rounds 40] [--sandbox in-process|process]
 *
 * (e.g. `git worktree add --detach /tmp/before <commit>` with `node_modules` linked). Both runtimes
 * run programs of N sequential `kv.get` calls, N calls in `Promise.all` batches of 10, and none,
 * round by round in alternating order, with type-checking off, so that the figure is the executor
 * and bridge path and the machine's load hits both alike. `--sandbox process` (the default mode of
 * isocode) runs the programs in sandbox worker processes, started from each checkout's sources
 * through tsx, one worker per runtime: the figure then includes the IPC hop. Prints the marginal
 * µs per call ((N calls − 0 calls) / N, medians over rounds), the marginal CPU per call of this
 * process and its children together (`/proc`, Linux only; less sensitive to the machine's load
 * than wall time), and the ratios B ÷ A.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { importCheckout, type CheckoutRuntime } from './lib/checkout.js';

type Runtime = CheckoutRuntime;

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    rounds: { type: 'string', default: '40' },
    sandbox: { type: 'string', default: 'in-process' },
  },
});
const SANDBOX = values.sandbox === 'process' ? 'process' : 'in-process';
const [rootA, rootB] = positionals;
if (rootA === undefined || rootB === undefined) {
  console.error('usage: nested-ab.ts <checkout-A> <checkout-B> [--rounds N]');
  process.exit(2);
}
const ROUNDS = Number(values.rounds);
const N = 200;
const PROGRAMS = {
  empty: 'return 0;',
  seq: `let n = 0; for (let i = 0; i < ${N}; i++) { await tools.kv.get({ key: 'k' + (i % 8) }); n++; } return n;`,
  batch: `let n = 0; for (let i = 0; i < ${N}; i += 10) { const r = await Promise.all(Array.from({ length: 10 }, (_, j) => tools.kv.get({ key: 'k' + j }))); n += r.length; } return n;`,
} as const;
type Kind = keyof typeof PROGRAMS;

async function open(root: string): Promise<Runtime> {
  const mod = await importCheckout(root);
  const tool = mod.defineTool({
    name: 'kv.get',
    description: 'Gets.',
    input: {
      type: 'object',
      properties: { key: { type: 'string' } },
      required: ['key'],
      additionalProperties: false,
    },
    isConcurrencySafe: true,
    execute: (args: { key: string }) => ({ value: args.key }),
  });
  return mod.createRuntime({
    tools: [tool],
    scopes: { c: { mode: 'code' } },
    codeMode: {
      typecheck: 'off',
      sandbox: SANDBOX,
      // One worker per runtime, so that every run of a runtime lands on the same (warm) process.
      ...(SANDBOX === 'process' ? { workers: { maxWorkers: 1, spareWorkers: 1 } } : {}),
    },
  });
}

/** CPU ms of this process and its live children (user + system, from /proc; 0 elsewhere). */
function treeCpuMs(): number {
  const tick = 10; // USER_HZ is 100 on Linux
  const read = (pid: string): number => {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      return (Number(fields[11]) + Number(fields[12])) * tick;
    } catch {
      return 0;
    }
  };
  let total = 0;
  try {
    for (const tid of readdirSync('/proc/self/task')) {
      const children = readFileSync(`/proc/self/task/${tid}/children`, 'utf8').trim();
      for (const pid of children === '' ? [] : children.split(' ')) total += read(pid);
    }
  } catch {
    return 0;
  }
  const self = process.cpuUsage();
  return total + (self.user + self.system) / 1000;
}

async function once(rt: Runtime, kind: Kind): Promise<{ ms: number; cpuMs: number }> {
  const cpu = treeCpuMs();
  const started = performance.now();
  const r = await rt.execute(
    { name: 'run_code', args: { code: PROGRAMS[kind], description: 'nested-ab' } },
    { scope: 'c' },
  );
  const ms = performance.now() - started;
  if (!r.ok) throw new Error(`run failed: ${JSON.stringify(r.error)}`);
  return { ms, cpuMs: treeCpuMs() - cpu };
}

const median = (xs: readonly number[]): number =>
  [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

const runtimes = [await open(rootA), await open(rootB)];
const kinds: Kind[] = ['empty', 'seq', 'batch'];
for (let i = 0; i < 10; i++) for (const rt of runtimes) for (const k of kinds) await once(rt, k);
const samples = runtimes.map(() => ({
  empty: [] as number[],
  seq: [] as number[],
  batch: [] as number[],
}));
const cpu = runtimes.map(() => ({
  empty: [] as number[],
  seq: [] as number[],
  batch: [] as number[],
}));
for (let round = 0; round < ROUNDS; round++) {
  const order = round % 2 === 0 ? [0, 1] : [1, 0];
  for (const kind of kinds) {
    for (const i of order) {
      const rt = runtimes[i];
      const s = samples[i];
      const c = cpu[i];
      if (rt !== undefined && s !== undefined && c !== undefined) {
        const { ms, cpuMs } = await once(rt, kind);
        s[kind].push(ms);
        c[kind].push(cpuMs);
      }
    }
  }
}
// CPU is read in 10 ms ticks: its marginal figure is the mean over rounds, not the median.
const mean = (xs: readonly number[]): number => xs.reduce((x, y) => x + y, 0) / xs.length;
const perCall = samples.map((s, i) => {
  const c = cpu[i] ?? s;
  return {
    seqUs: ((median(s.seq) - median(s.empty)) / N) * 1000,
    batchUs: ((median(s.batch) - median(s.empty)) / N) * 1000,
    seqCpuUs: ((mean(c.seq) - mean(c.empty)) / N) * 1000,
    batchCpuUs: ((mean(c.batch) - mean(c.empty)) / N) * 1000,
  };
});
const [a, b] = perCall;
if (a !== undefined && b !== undefined) {
  const row = (name: string, p: typeof a): string =>
    `| ${name} | ${p.seqUs.toFixed(1)} | ${p.batchUs.toFixed(1)} | ${p.seqCpuUs.toFixed(1)} | ${p.batchCpuUs.toFixed(1)} |`;
  const ratio = (x: number, y: number): string => (y / x).toFixed(3);
  console.log(`sandbox: ${SANDBOX}, ${ROUNDS} rounds, ${N} calls per program`);
  console.log(
    `| checkout | sequential µs/call | Promise.all µs/call | sequential CPU µs/call | Promise.all CPU µs/call |`,
  );
  console.log(`| --- | --- | --- | --- | --- |`);
  console.log(row(`A ${rootA}`, a));
  console.log(row(`B ${rootB}`, b));
  console.log(
    `| B ÷ A | ${ratio(a.seqUs, b.seqUs)} | ${ratio(a.batchUs, b.batchUs)} | ${ratio(a.seqCpuUs, b.seqCpuUs)} | ${ratio(a.batchCpuUs, b.batchCpuUs)} |`,
  );
}
for (const rt of runtimes) await rt.close();
