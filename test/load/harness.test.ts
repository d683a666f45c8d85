/**
 * The load harness itself: a short benign run holds every invariant; the CI form exits non-zero when
 * one fails; the audit and answer checks catch what they are meant to catch.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { auditComplete, checkAudit, type AuditRecord } from '../../benchmarks/load/audit.js';
import { classify } from '../../benchmarks/load/classify.js';
import { runLoad } from '../../benchmarks/load/load.js';
import { buildReport, type LoadReport } from '../../benchmarks/load/report.js';
import { ROOT } from '../../benchmarks/load/server.js';

describe('the load test', () => {
  it('a short benign run from both tenants holds every invariant and measures the figures', async () => {
    const result = await runLoad({
      durationSec: 3,
      mix: 'benign',
      build: 'source',
      rssBudgetMb: 2048,
    });
    const report = buildReport(result);
    expect(report.invariants.filter((i) => !i.ok)).toEqual([]);
    expect(report.benign.ok).toBeGreaterThan(0);
    expect(report.benign.p50Ms).toBeGreaterThan(0);
    expect(report.server.peakRssMb).toBeGreaterThan(0);
    expect(result.audit.runs).toBeGreaterThanOrEqual(report.benign.answers);
  });

  it('the CI form exits 1 and names the invariant when one fails (an RSS budget of 1 MiB)', () => {
    const out = mkdtempSync(join(tmpdir(), 'isocode-load-out-'));
    try {
      const run = spawnSync(
        process.execPath,
        [
          '--import',
          'tsx',
          join(ROOT, 'benchmarks/load/run.ts'),
          '--short',
          '--duration',
          '2',
          '--mix',
          'benign',
          '--build',
          'source',
          '--rss-budget-mb',
          '1',
          '--out',
          out,
        ],
        { cwd: ROOT, encoding: 'utf8', timeout: 120_000 },
      );
      expect(run.status).toBe(1);
      const report = JSON.parse(readFileSync(join(out, 'load-quick.json'), 'utf8')) as LoadReport;
      expect(report.ok).toBe(false);
      expect(report.invariants.filter((i) => !i.ok).map((i) => i.name)).toEqual([
        'RSS within budget',
      ]);
      expect(readFileSync(join(out, 'load-quick.md'), 'utf8')).toContain('INVARIANTS FAILED');
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });
});

describe('the audit check', () => {
  const call = (callId: string, parentId?: string, name = 'run_code'): AuditRecord => ({
    type: 'tool/call',
    callId,
    name,
    ...(parentId === undefined ? {} : { parentId }),
  });
  const result = (callId: string, parentId?: string, name = 'run_code'): AuditRecord => ({
    ...call(callId, parentId, name),
    type: 'tool/result',
  });

  it('a complete log passes', () => {
    const records = [
      call('r1'),
      call('n1', 'r1', 'kv.get'),
      result('n1', 'r1', 'kv.get'),
      result('r1'),
    ];
    const check = checkAudit(records, ['r1']);
    expect(check).toMatchObject({ runs: 1, terminal: 1 });
    expect(auditComplete(check)).toBe(true);
  });

  it('catches lost, duplicated, orphaned and unrecorded runs, lost nested calls and torn lines', () => {
    const cases: [AuditRecord[], string[], number, Partial<Record<string, unknown>>][] = [
      [[call('r1')], [], 0, { lost: ['r1'] }],
      [[call('r1'), result('r1'), result('r1')], [], 0, { duplicated: ['r1'] }],
      [[result('r9')], [], 0, { orphaned: ['r9'] }],
      [[call('r1'), result('r1')], ['r2'], 0, { answeredMissing: ['r2'] }],
      [[call('r1'), call('n1', 'r1', 'kv.get'), result('r1')], [], 0, { lostNested: ['n1'] }],
      [[call('r1'), result('r1')], [], 1, { malformedLines: 1 }],
    ];
    for (const [records, answered, malformed, expected] of cases) {
      const check = checkAudit(records, answered, malformed);
      expect(check).toMatchObject(expected);
      expect(auditComplete(check)).toBe(false);
    }
  });
});

describe('answer classification', () => {
  const toolResult = (ok: boolean) =>
    JSON.stringify({
      ok,
      ...(ok ? {} : { error: { code: 'CODE_RUN_FAILED', details: { kind: 'timeout' } } }),
      meta: { callId: 'c1' },
    });

  it('429 is a refusal only with Retry-After; 5xx and non-ToolResult 200s are failures', () => {
    expect(classify(200, toolResult(true), false)).toEqual({
      outcome: 'ok',
      status: 200,
      callId: 'c1',
    });
    expect(classify(200, toolResult(false), false)).toMatchObject({
      outcome: 'run-failed',
      code: 'CODE_RUN_FAILED',
      kind: 'timeout',
    });
    const overloaded = JSON.stringify({ error: { code: 'OVERLOADED' } });
    expect(classify(429, overloaded, true)).toMatchObject({
      outcome: 'refused',
      code: 'OVERLOADED',
    });
    expect(classify(429, overloaded, false).outcome).toBe('refused-without-retry-after');
    expect(classify(503, '', false).outcome).toBe('server-error');
    expect(classify(200, 'not json', false).outcome).toBe('bad-body');
    expect(classify(401, '{}', false).outcome).toBe('client-error');
  });
});
