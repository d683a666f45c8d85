/**
 * Scenario 2d: what the catalog's size costs a run. The realistic program against a 10-tool and a
 * 1,000-tool SDK, both runtimes open at once and their runs interleaved block by block in the same
 * rounds, for each isocode engine (through the sandbox worker with the type-check off and on — on,
 * the program is new on every run, so no check is a cache hit — and in-process). The figure is the
 * ratio of the two medians, measured side by side, so the machine's speed and load cancel out;
 * each block of runs gives one ratio and the target reads their median (issue 28: within 1.2×).
 */
import { measureInterleaved } from '../lib/harness.js';
import { quantile, summarize } from '../lib/stats.js';
import type { Scenario, ScenarioOutput, Table } from '../lib/types.js';
import { buildCatalog } from './catalog.js';
import {
  CACHED_ENGINE,
  UNCACHED_LANE,
  noteErrors,
  programSubject,
  uniqueProgram,
  withEngines,
} from './common.js';
import type { OpenEngine } from './common.js';
import { REALISTIC_PROGRAM } from './programs.js';

/** The two catalog sizes compared. */
export const CATALOG_SIZES = [10, 1000] as const;
/** Runs per size per block; each block gives one ratio, and the target reads their median. */
const BLOCK = 5;

const median = (values: readonly number[]): number => summarize([...values]).median;

export const catalogSizeScenario: Scenario = {
  id: 'catalog',
  title: '2d. Catalog size: 10 vs 1,000 tools side by side',
  async run(ctx): Promise<ScenarioOutput> {
    const out: ScenarioOutput = { tables: [], metrics: {}, notes: [], failures: [] };
    const factories = ctx.engines.filter((f) => f.kind === 'isocode');
    const [small, large] = CATALOG_SIZES;
    const table: Table = {
      title: `Warm latency, realistic program (3 tool calls), ${small} vs ${large} tools (median ms)`,
      columns: [
        'engine',
        `${small} tools`,
        `${large} tools`,
        `ratio ${large} ÷ ${small}`,
        'ratio p10–p90 over blocks',
      ],
      rows: [],
    };
    const blocks = Math.max(1, Math.ceil(ctx.budget.iterations / BLOCK));
    ctx.progress.start('catalog', factories.length * 2 * (ctx.budget.warmup + blocks * BLOCK));
    await withEngines(
      factories,
      () => buildCatalog(small),
      out.failures,
      (smallEngines) =>
        withEngines(
          factories,
          () => buildCatalog(large),
          out.failures,
          async (largeEngines) => {
            const lanes = smallEngines.flatMap((s): { id: string; pair: OpenEngine[] }[] => {
              const l = largeEngines.find((e) => e.factory.name === s.factory.name);
              if (l === undefined) return [];
              // The type-checking engine runs a program new on every run: no check-cache hit.
              const id = s.factory.name === CACHED_ENGINE ? UNCACHED_LANE : s.factory.name;
              return [{ id, pair: [s, l] }];
            });
            const subjects = lanes.map(({ id, pair }) =>
              pair.map((open, i) =>
                programSubject(
                  `${id}@${CATALOG_SIZES[i] ?? ''}`,
                  open.engine,
                  id === UNCACHED_LANE ? uniqueProgram(REALISTIC_PROGRAM) : REALISTIC_PROGRAM,
                ),
              ),
            );
            const pooled = new Map<string, number[]>(subjects.flat().map((s) => [s.id, []]));
            const ratios = new Map<string, number[]>(lanes.map((l) => [l.id, []]));
            const all = subjects.flat();
            await measureInterleaved(all, { warmup: ctx.budget.warmup, iterations: 0 });
            ctx.progress.tick(all.length * ctx.budget.warmup);
            // Block by block: each lane runs BLOCK runs at one size then BLOCK at the other (the
            // order alternates), so the two sizes of a pair are measured within milliseconds of
            // each other; the block's ratio of medians is one sample of the ratio.
            for (let block = 0; block < blocks; block++) {
              for (let k = 0; k < subjects.length; k++) {
                const lane = lanes[(block + k) % lanes.length];
                const pair = subjects[(block + k) % subjects.length];
                if (lane === undefined || pair === undefined) continue;
                const order = block % 2 === 0 ? pair : [...pair].reverse();
                const got = new Map<string, number[]>();
                for (const subject of order) {
                  const samples = await measureInterleaved([subject], {
                    warmup: 0,
                    iterations: BLOCK,
                    blockSize: BLOCK,
                  });
                  const s = samples.get(subject.id);
                  noteErrors(out.failures, `catalog ${subject.id}`, s);
                  got.set(subject.id, s?.samples ?? []);
                  pooled.get(subject.id)?.push(...(s?.samples ?? []));
                  ctx.progress.tick(BLOCK);
                }
                const a = median(got.get(`${lane.id}@${small}`) ?? []);
                const b = median(got.get(`${lane.id}@${large}`) ?? []);
                if (Number.isFinite(a) && Number.isFinite(b) && a > 0)
                  ratios.get(lane.id)?.push(b / a);
              }
            }
            for (const { id } of lanes) {
              const a = median(pooled.get(`${id}@${small}`) ?? []);
              const b = median(pooled.get(`${id}@${large}`) ?? []);
              const perBlock = [...(ratios.get(id) ?? [])].sort((x, y) => x - y);
              const ratio = quantile(perBlock, 0.5);
              out.metrics[`catalog.${id}.sdk-${small}.p50Ms`] = a;
              out.metrics[`catalog.${id}.sdk-${large}.p50Ms`] = b;
              if (Number.isFinite(ratio)) out.metrics[`catalog.${id}.ratio`] = ratio;
              const spread = `${quantile(perBlock, 0.1).toFixed(2)}–${quantile(perBlock, 0.9).toFixed(2)}`;
              table.rows.push([id, a, b, ratio, spread]);
            }
          },
        ),
    );
    ctx.progress.done();
    out.tables.push(table);
    out.notes.push(
      `Both runtimes of an engine are open at once; in each of ${blocks} blocks an engine runs ${BLOCK} runs against one catalog and then ${BLOCK} against the other (the order alternates, engines rotate), and the block's ratio of medians is one sample: "ratio" is the median over blocks (target ≤ 1.2). ${UNCACHED_LANE} runs a program new on every run (every check real). What a run does per tool is done once per catalog: the sandbox's tool index is built when the SDK is, and \`tools\` is materialised in the isolate only for the names a program touches (docs/decisions/034-speed-round-3.md).`,
    );
    return out;
  },
};
