/**
 * Scenario 2, cold start: the first run in a fresh process, measured in a child process per
 * sample (engine module loading, setup — for isocode the checker and isolate pool starting —
 * and the first run), reported separately from warm latency.
 */
import { fileURLToPath } from 'node:url';
import { ratio, summarize } from '../lib/stats.js';
import type { Scenario, ScenarioOutput, Table } from '../lib/types.js';
import { NODE_FLOOR_ARGS, spawnBenchChild, timeSpawnToExit } from './child.js';
import type { ColdSample } from './cold-child.js';

const CHILD = fileURLToPath(new URL('./cold-child.ts', import.meta.url));
const SDK_SIZE = 50;

interface Spawned {
  sample: ColdSample | undefined;
  wallMs: number;
  error: string | undefined;
}

/**
 * Preloaded to make gpt-tokenizer look uninstalled: isocode as a user's default install has it (an
 * optional peer, decision 037), the dev tree always does. The same file the tests preload.
 */
const NO_TOKENIZER = fileURLToPath(
  new URL('../../test/fixtures/preload/no-tokenizer.cjs', import.meta.url),
);

/** One row: an engine, and for isocode's process engines also without the optional tokenizer. */
interface Variant {
  label: string;
  engine: string;
  nodeFlags: string[];
}

function variantsOf(engines: readonly string[]): Variant[] {
  return engines.flatMap((engine) => [
    { label: engine, engine, nodeFlags: [] },
    ...(engine === 'isocode' || engine === 'isocode-nocheck'
      ? [{ label: `${engine}, no tokenizer`, engine, nodeFlags: ['--require', NO_TOKENIZER] }]
      : []),
  ]);
}

async function spawnChild(variant: Variant): Promise<Spawned> {
  const { value, wallMs, error } = await spawnBenchChild<ColdSample>(
    CHILD,
    [variant.engine, String(SDK_SIZE)],
    { nodeFlags: variant.nodeFlags },
  );
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
    const variants = variantsOf(engines.map((f) => f.name));
    const samples = new Map<string, Spawned[]>(variants.map((v) => [v.label, []]));
    const rounds = ctx.budget.coldSamples;
    const floor: number[] = [];
    ctx.progress.start('cold start', rounds * (variants.length + 1));
    // Round-robin over engines so machine load drifts evenly over all of them; `node -e 0` in each
    // round is the floor the first-run target is a ratio to.
    for (let round = 0; round < rounds; round++) {
      try {
        floor.push(await timeSpawnToExit(NODE_FLOOR_ARGS));
      } catch (error) {
        out.failures.push(`node -e 0: ${(error as Error).message}`);
      }
      ctx.progress.tick();
      for (const variant of variants) {
        const result = await spawnChild(variant);
        samples.get(variant.label)?.push(result);
        ctx.progress.tick();
      }
    }
    ctx.progress.done();
    const floorMs = summarize(floor).median;
    if (Number.isFinite(floorMs)) out.metrics['cold.floorMs'] = floorMs;
    const table: Table = {
      title: `Cold start, ${SDK_SIZE}-tool SDK (median of ${rounds} fresh processes, ms${Number.isFinite(floorMs) ? `; node -e 0 ${floorMs.toFixed(1)} ms in the same rounds` : ''})`,
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
        'setup + first run ÷ node -e 0',
      ],
      rows: [],
    };
    for (const variant of variants) {
      const results = samples.get(variant.label) ?? [];
      const failed = results.filter((r) => r.error !== undefined);
      if (failed.length > 0)
        out.failures.push(
          `${variant.label}: ${failed.length} cold sample(s) failed; first: ${failed[0]?.error ?? ''}`,
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
      const key = variant.nodeFlags.length === 0 ? variant.engine : `${variant.engine}.noTokenizer`;
      out.metrics[`cold.${key}.firstRunMs`] = setupAndFirst;
      const vsFloor = ratio(setupAndFirst, floorMs);
      if (Number.isFinite(vsFloor)) out.metrics[`cold.${key}.firstRunVsFloor`] = vsFloor;
      out.metrics[`cold.${key}.withImportMs`] = total;
      out.metrics[`cold.${key}.processMs`] = wall;
      out.metrics[`cold.${key}.setupMs`] = med((s) => s.setupMs);
      out.metrics[`cold.${key}.firstProgramMs`] = med((s) => s.firstRunMs);
      table.rows.push([
        variant.label,
        med((s) => s.importMs),
        med((s) => s.setupMs),
        med((s) => s.firstRunMs),
        setupAndFirst,
        total,
        med((s) => s.secondRunMs),
        med((s) => s.uptimeMs),
        wall,
        vsFloor,
      ]);
    }
    out.tables.push(table);
    out.notes.push(
      'Each sample is a new `node --no-node-snapshot --import tsx` process. Rows marked "no tokenizer" preload a module that makes gpt-tokenizer look uninstalled, as in a user\'s default install (an optional peer: the savings ledger then estimates the catalog\'s tokens); the target reads the row with it installed. "setup + first run" (the target figure) is creating the runtime — for isocode the checker process and isolate pool starting — and its first run; "import" is loading the engine\'s modules, which under tsx includes compiling isocode\'s TypeScript sources on the fly (a built package loads faster); "process uptime" and "spawn to exit" also include Node and tsx start-up.',
    );
    return out;
  },
};
