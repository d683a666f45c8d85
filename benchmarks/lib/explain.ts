/**
 * The "why" of a missed target, computed from the same run's figures (stage breakdown, CPU
 * per run, the direct-call floor), for the closing note of the report.
 */
import { TARGETS } from './targets.js';
import type { Environment, TargetResult } from './types.js';

type Metrics = Readonly<Record<string, number>>;

const f = (value: number | undefined, digits = 2): string =>
  value === undefined || !Number.isFinite(value) ? '–' : value.toFixed(digits);

function dispatch(metrics: Metrics, kind: 'seq' | 'batch'): string {
  const direct = metrics['dispatch.isocode-nocheck.directUs'];
  const marginal = metrics[`dispatch.isocode-nocheck.${kind}MarginalUs`];
  const floor =
    direct !== undefined && marginal !== undefined
      ? ` The direct executor call costs ${f(direct, 1)} µs, so ${f(marginal - direct, 1)} µs per call is the process boundary, the worker's bridge, the isolate and the nested pipeline's own stages.`
      : '';
  return `Marginal ${f(marginal, 1)} µs per nested call.${floor}`;
}

function catalog(metrics: Metrics, engine: string): string {
  const small = metrics[`catalog.${engine}.sdk-10.p50Ms`];
  const large = metrics[`catalog.${engine}.sdk-1000.p50Ms`];
  return `Medians ${f(small)} ms against 10 tools, ${f(large)} ms against 1,000.`;
}

function latency(metrics: Metrics, engine: string): string {
  const key = `latency.sdk-50.${engine}`;
  const stages: Array<[string, number | undefined]> = [
    ['typecheck', metrics[`${key}.typecheckMs`]],
    ['transpile', metrics[`${key}.transpileMs`]],
    ['isolate/context', metrics[`${key}.isolateMs`]],
    ['run', metrics[`${key}.runMs`]],
    ['executor + settle', metrics[`${key}.settleMs`]],
  ];
  const known = stages.filter((s): s is [string, number] => s[1] !== undefined);
  if (known.length === 0) return 'The runtime reported no stage timings.';
  const [largest] = [...known].sort((a, b) => b[1] - a[1]);
  const cpu = metrics[`${key}.cpuMs`];
  const run = metrics[`${key}.runMs`];
  const waiting =
    cpu !== undefined && run !== undefined && run > cpu
      ? ` The run stage spends ${f(run - cpu)} ms of its ${f(run)} ms off the isolate's CPU (waiting: bridge round trips, isolate scheduling, the event loop).`
      : '';
  return `Stage medians: ${known.map(([name, ms]) => `${name} ${f(ms)} ms`).join(', ')}; largest: ${largest?.[0] ?? '–'}.${waiting}`;
}

function throughput(metrics: Metrics, engine: string, cores: number): string {
  // The pass alone, where the scenario ran one (what the targets read), else the interleaved one.
  const key =
    metrics[`throughput.c8.${engine}.alone.cpuMsPerRun`] === undefined ? engine : `${engine}.alone`;
  const cpu = metrics[`throughput.c8.${key}.cpuMsPerRun`];
  const child = metrics[`throughput.c8.${key}.childCpuMsPerRun`] ?? 0;
  if (cpu === undefined) return '';
  const ceiling = (cores * 1000) / (cpu + child);
  return `CPU per run ${f(cpu)} ms in this process + ${f(child)} ms in child processes (sandbox workers and the checker): on ${cores} cores that caps throughput near ${f(ceiling, 0)} runs/s, so the cost is CPU per run, not concurrency.`;
}

/** A target's limit, from its one owner (`TARGETS`). */
function limitOf(id: string): number {
  return TARGETS.find((t) => t.id === id)?.limit ?? Number.NaN;
}

/** `baseline ÷ isocode ≥ limit` (a baseline slower than isocode), or `isocode ÷ baseline ≤ limit` (`floor`). */
function ratio(
  metrics: Metrics,
  id: string,
  engine: string,
  baseline: string,
  floor = false,
): string {
  const isocode = metrics[`baselines.${engine}.p50Ms`];
  const base = metrics[`baselines.${baseline}.p50Ms`];
  if (isocode === undefined || base === undefined) return '';
  const label = engine === 'isocode' ? 'typecheck on' : 'typecheck off';
  const needed = floor ? base * limitOf(id) : base / limitOf(id);
  return `isocode (${label}) median ${f(isocode)} ms vs ${baseline} ${f(base)} ms; the ratio needs isocode at or under ${f(needed)} ms — the same fixed cost per run as the latency targets.`;
}

function cold(metrics: Metrics): string {
  const setup = metrics['cold.isocode.setupMs'];
  const first = metrics['cold.isocode.firstProgramMs'];
  const floor = metrics['cold.floorMs'];
  const needed =
    floor === undefined
      ? ''
      : ` The target needs setup + first run at or under ${f(floor * limitOf('cold-start'), 0)} ms (node -e 0 took ${f(floor, 0)} ms in the same rounds).`;
  return `createRuntime ${f(setup, 0)} ms (checker process and isolate pool starting) + first run ${f(first, 0)} ms.${needed}`;
}

/**
 * What would close each target when it is missed: the profile behind it and the levers left, as
 * measured in the decision records (static: a run cannot measure the levers it does not have).
 */
const CLOSE: Readonly<Record<string, string>> = {
  'dispatch-seq':
    "Where the time goes (decisions 025, 034): per sequential call two pipe writes, each waking the other process (on 2 busy cores the writer is descheduled in the write), the worker's isolated-vm slice (applySync with its time limit, allocation-heavy) and bridge, and the host's nested stages around the executor; what would close it is a channel that needs no kernel wake-up per message (shared memory with a spin-then-wait, not available to Node without a native addon).",
  'dispatch-batch':
    "Decisions 025, 034: a batch already pays one frame each way and one isolate entry for its replies; what is left per call is the worker's bridge and isolate work and the host's nested stages (hooks' argument view, the run's record and events, the reply), each a few µs.",
  'catalog-nocheck':
    'Decision 034: what remains per tool is the tool index copied into each fresh context and searched for the names a program touches.',
  'catalog-check':
    'Decision 034: the checker re-checks only the program against the unchanged SDK file; what remains is the run without the check.',
  'catalog-inprocess': 'Decision 034: as without the check, in the host process.',
  'latency-check':
    'Decision 026: the native checker spends ~3 ms per check inside the compiler and its JSON-RPC client ~1.3 ms on the host; a checker that reuses the merged globals across snapshots would close most of it (a repeated program already answers from the check cache).',
  'vs-node-vm':
    "Decisions 026, 034 §6–7, 039: the CPU per run across host and worker (this run's figure: the CPU-per-run target) goes to a fresh context per run, the bootstrap and program scripts, calls into the isolate, GC and IPC; built: maxRunsPerWorker 2000, one message for transpile-and-run, the refusal parse answered from the AST's text, the startup snapshot of the bootstrap (Node ≥ 22 only: not in a Node 20 run, ~0.2 ms CPU less per run); what remains is V8's price of a fresh context per run and the calls into the isolate.",
  'cold-start':
    "Decision 034 §8: the savings ledger's tokenizer (~270 ms of setup, ~500 ms of the host's CPU: V8 compiling gpt-tokenizer's 2.4 MB rank module and building its maps), the sandbox worker's start behind the wall (~300 ms; the other spares now start after the first) and the checker (~80 ms); what would close it is less CPU (the tokenizer in a worker thread was measured: it only moves the wait to the first run).",
  'throughput-check': 'Decision 026: the same CPU per run as the warm run with the check.',
  'throughput-nocheck': 'Decision 026: the same CPU per run as the warm run without the check.',
  'throughput-cpu':
    "Decisions 026, 034 §6–7, 039: a fresh context per run, the bootstrap and program scripts, the calls into the isolate and GC in the worker; the host's executor stages and the IPC both ways (built: maxRunsPerWorker 2000, one message for transpile-and-run, the refusal parse answered from the AST's text, the startup snapshot on Node ≥ 22); what remains is V8's price of a fresh context per run.",
  'vs-worker': 'Decision 026: the warm-run levers (the fixed cost per run).',
  'vs-run': 'Decision 026: the warm-run levers (the fixed cost per run).',
  'vs-workerd': 'Decision 026: the warm-run levers (the fixed cost per run).',
};

/** One explanation per missed target, plus a line on machine load when it was high. */
export function explainMisses(
  targets: readonly TargetResult[],
  metrics: Metrics,
  environment: Environment,
): string[] {
  const why: Record<string, () => string> = {
    'dispatch-seq': () => dispatch(metrics, 'seq'),
    'dispatch-batch': () => dispatch(metrics, 'batch'),
    'catalog-nocheck': () => catalog(metrics, 'isocode-nocheck'),
    'catalog-check': () => catalog(metrics, 'isocode-uncached'),
    'catalog-inprocess': () => catalog(metrics, 'isocode-inprocess'),
    'latency-check': () => latency(metrics, 'isocode-uncached'),
    'cold-start': () => cold(metrics),
    'throughput-check': () => throughput(metrics, 'isocode-uncached', environment.cores),
    'throughput-nocheck': () => throughput(metrics, 'isocode-nocheck', environment.cores),
    'throughput-cpu': () => throughput(metrics, 'isocode-nocheck', environment.cores),
    'vs-node-vm': () => ratio(metrics, 'vs-node-vm', 'isocode-nocheck', 'node-vm', true),
    'vs-worker': () => ratio(metrics, 'vs-worker', 'isocode-nocheck', 'worker-thread'),
    'vs-run': () => ratio(metrics, 'vs-run', 'isocode-nocheck', 'run'),
    'vs-workerd': () => ratio(metrics, 'vs-workerd', 'isocode-nocheck', 'workerd'),
    'vs-worker-check': () => ratio(metrics, 'vs-worker-check', 'isocode', 'worker-thread'),
    'vs-run-check': () => ratio(metrics, 'vs-run-check', 'isocode', 'run'),
  };
  const lines = targets
    .filter((t) => t.status === 'missed')
    .map((t) =>
      `${t.description}: ${t.margin}. ${why[t.id]?.() ?? ''} ${CLOSE[t.id] ?? ''}`.trim(),
    );
  const load = Math.max(environment.loadAverage.start, environment.loadAverage.end);
  if (lines.length > 0 && load > environment.cores) {
    lines.push(
      `The machine's load average was ${f(load, 1)} on ${environment.cores} cores during this run: other work shared the CPUs, which inflates every latency and deflates every throughput figure here (ratios, measured interleaved, are affected less).`,
    );
  }
  return lines;
}
