/**
 * Scenario 2, cold start: the first run in a fresh process, measured in a child process per
 * sample (engine module loading, setup — for isocode the checker and isolate pool starting —
 * and the first run), reported separately from warm latency.
 */
import { fileURLToPath } from 'node:url';
import { summarize } from '../lib/stats.js';
import type { Scenario, ScenarioOutput, Table } from '../lib/types.js';
import { spawnBenchChild } from './child.js';
import type { ColdSample } from './cold-child.js';

const CHILD = fileURLToPath(new URL('./cold-child.ts', import.meta.url));
const SDK_SIZE = 50;

interface Spawned {
  sample: ColdSample | undefined;
  wallMs: number;
  error: string | undefined;
}

async function spawnChild(engine: string): Promise<Spawned> {
  const { value, wallMs, error } = await spawnBenchChild<ColdSample>(CHILD, [
    engine,
    String(SDK_SIZE),
  ]);
  if (value === undefined) return { sample: undefined, wallMs, error };
  return { sample: value, wallMs, error: value.ok ? undefined : (value.error ?? 'run failed') };
}

export const coldScenario: Scenario = {
  id: 'cold',
  title: '2b. Cold start (first run in a fresh process)',
  async run(ctx): Promise<ScenarioOutput> {
    const out: ScenarioOutput = { tables: [], metrics: {}, notes: [], failures: [] };
    // Quick mode: isocode with typecheck off starts the same way minus the checker; skip it.
    const engines = ctx.quick
      ? ctx.engines.filter((f) => f.name !== 'isocode-nocheck')
      : ctx.engines;
    const samples = new Map<string, Spawned[]>(engines.map((f) => [f.name, []]));
    const rounds = ctx.budget.coldSamples;
    ctx.progress.start('cold start', rounds * engines.length);
    // Round-robin over engines so machine load drifts evenly over all of them.
    for (let round = 0; round < rounds; round++) {
      for (const factory of engines) {
        const result = await spawnChild(factory.name);
        samples.get(factory.name)?.push(result);
        ctx.progress.tick();
      }
    }
    ctx.progress.done();
    const table: Table = {
      title: `Cold start, ${SDK_SIZE}-tool SDK (median of ${rounds} fresh processes, ms)`,
      columns: [
        'engine',
        'import',
        'setup',
        'first run',
        'setup + first run',
        'import + setup + first',
        'second run',
        'process uptime at first result',
        'spawn to exit',
      ],
      rows: [],
    };
    for (const factory of engines) {
      const results = samples.get(factory.name) ?? [];
      const failed = results.filter((r) => r.error !== undefined);
      if (failed.length > 0)
        out.failures.push(
          `${factory.name}: ${failed.length} cold sample(s) failed; first: ${failed[0]?.error ?? ''}`,
        );
      const good = results.flatMap((r) =>
        r.sample !== undefined && r.error === undefined ? [r.sample] : [],
      );
      const med = (pick: (s: ColdSample) => number): number => summarize(good.map(pick)).median;
      const wall = summarize(
        results.filter((r) => r.error === undefined).map((r) => r.wallMs),
      ).median;
      const total = med((s) => s.totalMs);
      const setupAndFirst = med((s) => s.setupMs + s.firstRunMs);
      out.metrics[`cold.${factory.name}.firstRunMs`] = setupAndFirst;
      out.metrics[`cold.${factory.name}.withImportMs`] = total;
      out.metrics[`cold.${factory.name}.processMs`] = wall;
      out.metrics[`cold.${factory.name}.setupMs`] = med((s) => s.setupMs);
      out.metrics[`cold.${factory.name}.firstProgramMs`] = med((s) => s.firstRunMs);
      table.rows.push([
        factory.name,
        med((s) => s.importMs),
        med((s) => s.setupMs),
        med((s) => s.firstRunMs),
        setupAndFirst,
        total,
        med((s) => s.secondRunMs),
        med((s) => s.uptimeMs),
        wall,
      ]);
    }
    out.tables.push(table);
    out.notes.push(
      'Each sample is a new `node --no-node-snapshot --import tsx` process. "setup + first run" (the target figure) is creating the runtime — for isocode the checker process and isolate pool starting — and its first run; "import" is loading the engine\'s modules, which under tsx includes compiling isocode\'s TypeScript sources on the fly (a built package loads faster); "process uptime" and "spawn to exit" also include Node and tsx start-up.',
    );
    return out;
  },
};
