import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { renderMarkdown } from '../../benchmarks/lib/report.js';
import { loadScenario, mergeScenarios, saveScenario } from '../../benchmarks/lib/store.js';
import type { ScenarioResult } from '../../benchmarks/lib/types.js';

const result = (id: ScenarioResult['id'], value: number): ScenarioResult => ({
  id,
  title: id,
  status: 'ok',
  durationMs: 1,
  tables: [],
  metrics: { [`${id}.x`]: value },
  notes: [],
  failures: [],
});

let dir: string | undefined;
afterEach(async () => {
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

describe('benchmark results that survive a stopped run', () => {
  it('keeps an earlier run’s scenario, marked stale, beside this run’s own', async () => {
    dir = await mkdtemp(join(tmpdir(), 'bench-store-'));
    const earlier = { startedAt: '2026-01-01T00:00:00Z', commit: 'aaa', mode: 'full' as const };
    await saveScenario(dir, 'latest', earlier, result('dispatch', 1));
    await saveScenario(dir, 'latest', earlier, result('latency', 2));
    const now = { startedAt: '2026-01-02T00:00:00Z', commit: 'bbb' };
    const merged = await mergeScenarios(dir, 'latest', [result('latency', 3)], now);
    expect(merged.map((s) => [s.id, s.metrics, s.stale?.commit])).toEqual([
      ['dispatch', { 'dispatch.x': 1 }, 'aaa'],
      ['latency', { 'latency.x': 3 }, undefined],
    ]);
    expect(merged[0]?.stale?.sameCommit).toBe(false);
  });

  it('a scenario written by this run is not stale, and a corrupt file is ignored', async () => {
    dir = await mkdtemp(join(tmpdir(), 'bench-store-'));
    const run = { startedAt: '2026-01-03T00:00:00Z', commit: 'ccc', mode: 'quick' as const };
    const file = await saveScenario(dir, 'quick', run, result('soak', 4));
    expect((await loadScenario(dir, 'quick', 'soak'))?.scenario.metrics).toEqual({ 'soak.x': 4 });
    const merged = await mergeScenarios(dir, 'quick', [result('soak', 4)], run);
    expect(merged[0]?.stale).toBeUndefined();
    const { writeFile } = await import('node:fs/promises');
    await writeFile(file, '{not json');
    expect(await loadScenario(dir, 'quick', 'soak')).toBeUndefined();
  });

  it('the Markdown report says which scenarios are stale', () => {
    const stale = {
      ...result('cold', 5),
      stale: { runStartedAt: '2026-01-01T00:00:00Z', commit: 'aaa', sameCommit: false },
    };
    const md = renderMarkdown({
      schema: 'isocode-bench/1',
      mode: 'full',
      startedAt: '2026-01-02T00:00:00Z',
      durationMs: 1,
      environment: {
        cpuModel: 'cpu',
        cores: 2,
        availableParallelism: 2,
        totalMemoryBytes: 1,
        os: 'os',
        node: 'v20',
        v8: 'v8',
        packages: {},
        gitCommit: 'bbb',
        ci: false,
        loadAverage: { start: 0, end: 0 },
      },
      engines: [],
      scenarios: [stale, result('latency', 1)],
      targets: [],
      ok: true,
      files: [],
    });
    expect(md).toContain('STALE: run of 2026-01-01T00:00:00Z, commit aaa');
    expect(md).toContain('carried over from the run started 2026-01-01T00:00:00Z at commit aaa');
  });
});
