/**
 * The load report: the invariants the CI short form enforces, the figures, and their rendering as
 * JSON and Markdown (`benchmarks/results/load-latest.{md,json}`).
 */
import { auditComplete } from './audit.js';
import { FAILURE_OUTCOMES } from './classify.js';
import type { GroupTally } from './drive.js';
import type { LoadResult } from './load.js';
import { describeEnvironment } from '../lib/environment.js';
import { formatCell } from '../lib/report.js';
import { mib } from '../lib/resources.js';
import { summarize } from '../lib/stats.js';
import type { Environment } from '../lib/types.js';

/** One invariant and whether it held. */
export interface Invariant {
  name: string;
  ok: boolean;
  detail: string;
}

/** The report: environment, figures, invariants. */
export interface LoadReport {
  date: string;
  environment: Environment;
  options: LoadResult['options'];
  benign: {
    answers: number;
    ok: number;
    runFailed: number;
    refused: number;
    failures: number;
    connectionErrors: number;
    /** ok / (answers - refused + connection errors): a refusal with Retry-After is not a failure. */
    successRate: number;
    p50Ms: number;
    p99Ms: number;
  };
  hostile: { byProgram: GroupTally['byProgram']; connectionErrors: number } | undefined;
  server: {
    crashed: LoadResult['crashed'];
    stopped: LoadResult['stopped'];
    peakRssMb: number;
    rssBudgetMb: number;
    workerRestarts: number | null;
    stderrTail: string | undefined;
  };
  audit: LoadResult['audit'];
  invariants: Invariant[];
  ok: boolean;
}

const failures = (t: GroupTally | undefined): number =>
  t === undefined
    ? 0
    : Object.entries(t.byOutcome)
        .filter(([outcome]) => FAILURE_OUTCOMES.has(outcome as never))
        .reduce((a, [, n]) => a + n, 0);

const fiveXx = (t: GroupTally | undefined): number => t?.byOutcome['server-error'] ?? 0;

/** Builds the report from a load result, evaluating the invariants. */
export function buildReport(result: LoadResult): LoadReport {
  const b = result.benign;
  const refused = b.byOutcome.refused ?? 0;
  const ok = b.byOutcome.ok ?? 0;
  const attempted = b.answers - refused + b.errors;
  const latency = summarize(b.latenciesMs);
  const peakRssMb = mib(result.peakRssBytes);
  const errors = b.errors + (result.hostile?.errors ?? 0);
  const serverErrors = fiveXx(b) + fiveXx(result.hostile);
  const invariants: Invariant[] = [
    {
      name: 'server survived',
      ok: result.crashed === undefined,
      detail: result.crashed
        ? `exited during the run (code ${result.crashed.code}, signal ${result.crashed.signal})`
        : 'no exit until SIGTERM',
    },
    {
      name: 'zero 5xx',
      ok: serverErrors === 0,
      detail: `${serverErrors} answers with status ≥ 500`,
    },
    {
      name: 'zero resets',
      ok: errors === 0,
      detail: `${errors} connection errors or request timeouts`,
    },
    {
      name: 'every answer well-formed',
      ok: failures(b) + failures(result.hostile) === serverErrors,
      detail: '429 always with Retry-After, every 200 a ToolResult',
    },
    {
      name: 'zero lost audit records',
      ok: auditComplete(result.audit),
      detail: `${result.audit.runs} runs, ${result.audit.terminal} terminal records, ${result.audit.lost.length} lost, ${result.audit.answeredMissing.length} answered without a record, ${result.audit.duplicated.length} duplicated`,
    },
    {
      name: 'RSS within budget',
      ok: peakRssMb <= result.options.rssBudgetMb,
      detail: `peak ${peakRssMb.toFixed(0)} MiB of ${result.options.rssBudgetMb} MiB (server + children)`,
    },
    {
      name: 'clean shutdown',
      ok: result.stopped !== undefined && result.stopped.code === 0 && !result.stopped.killed,
      detail: result.stopped
        ? `SIGTERM → exit code ${result.stopped.code}${result.stopped.killed ? ' after SIGKILL' : ''}`
        : 'not reached (crashed)',
    },
  ];
  return {
    date: new Date().toISOString(),
    environment: describeEnvironment(),
    options: result.options,
    benign: {
      answers: b.answers,
      ok,
      runFailed: b.byOutcome['run-failed'] ?? 0,
      refused,
      failures: failures(b),
      connectionErrors: b.errors,
      successRate: attempted === 0 ? 0 : ok / attempted,
      p50Ms: latency.median,
      p99Ms: latency.p99,
    },
    hostile: result.hostile && {
      byProgram: result.hostile.byProgram,
      connectionErrors: result.hostile.errors,
    },
    server: {
      crashed: result.crashed,
      stopped: result.stopped,
      peakRssMb,
      rssBudgetMb: result.options.rssBudgetMb,
      workerRestarts: result.workerRestarts ?? null,
      stderrTail: result.stderrTail,
    },
    audit: result.audit,
    invariants,
    ok: invariants.every((i) => i.ok),
  };
}

const row = (cells: readonly (string | number)[]): string =>
  `| ${cells.map((c) => (typeof c === 'number' ? formatCell(c) : c)).join(' | ')} |`;

/** Renders the report as Markdown. */
export function renderLoadMarkdown(r: LoadReport): string {
  const o = r.options;
  const lines = [
    '# Load test: `isocode serve` under a benign and hostile mix from two tenants',
    '',
    `${r.date}, commit \`${r.environment.gitCommit ?? 'unknown'}\`, Node ${r.environment.node}, ` +
      `${r.environment.cores} cores (load average ${r.environment.loadAverage.start.toFixed(1)}). ` +
      `Mix \`${o.mix}\`, ${o.durationSec} s, ${o.benignConnections} benign + ` +
      `${o.mix === 'benign' ? 0 : o.hostileConnections} hostile connections (autocannon, in the ` +
      `harness process), server built from \`${o.build}\`. Produced by \`npm run load\`.`,
    '',
    `**Verdict: ${r.ok ? 'all invariants hold' : 'INVARIANTS FAILED'}.**`,
    '',
    '| invariant | held | detail |',
    '| --- | --- | --- |',
    ...r.invariants.map((i) => row([i.name, i.ok ? 'yes' : '**no**', i.detail])),
    '',
    '## Benign traffic (both tenants)',
    '',
    '| answers | ok | run failed | 429 + Retry-After | failures | connection errors | success rate | p50 ms | p99 ms |',
    '| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    row([
      r.benign.answers,
      r.benign.ok,
      r.benign.runFailed,
      r.benign.refused,
      r.benign.failures,
      r.benign.connectionErrors,
      `${(r.benign.successRate * 100).toFixed(2)} %`,
      r.benign.p50Ms,
      r.benign.p99Ms,
    ]),
    '',
    'Success rate = ok / (answers − refusals with Retry-After + connection errors); latencies over',
    'answers with status 200.',
    '',
    '## Hostile traffic (both tenants)',
    '',
  ];
  if (r.hostile === undefined) lines.push('None (mix `benign`).');
  else {
    lines.push('| program | answers by outcome[:kind] |', '| --- | --- |');
    for (const [name, outcomes] of Object.entries(r.hostile.byProgram))
      lines.push(
        row([
          name,
          Object.entries(outcomes)
            .map(([k, n]) => `${k} ${n}`)
            .join(', '),
        ]),
      );
    lines.push('', `Connection errors on hostile connections: ${r.hostile.connectionErrors}.`);
  }
  lines.push(
    '',
    '## Server',
    '',
    `- Peak RSS (server + child processes, from /proc): ${r.server.peakRssMb.toFixed(0)} MiB; budget ${r.server.rssBudgetMb} MiB.`,
    `- Worker restarts (from /metrics): ${r.server.workerRestarts ?? 'no such series'}.`,
    `- Audit: ${r.audit.runs} runs recorded, ${r.audit.terminal} terminal records, ${r.audit.lost.length} lost, ` +
      `${r.audit.duplicated.length} duplicated, ${r.audit.orphaned.length} orphaned, ` +
      `${r.audit.answeredMissing.length} answered runs without a record, ` +
      `${r.audit.lostNested.length} nested calls without a result, ${r.audit.malformedLines} torn lines.`,
  );
  if (r.server.stderrTail)
    lines.push('', 'Server stderr before it died:', '', '```', r.server.stderrTail.trim(), '```');
  return `${lines.join('\n')}\n`;
}
