/** Helpers shared by the scenarios: opening engines on a catalog, subjects, reference engines. */
import type { Subject } from '../lib/harness.js';
import type { Summary } from '../lib/stats.js';
import type { Cell } from '../lib/types.js';
import type { BenchCatalog, Engine, EngineFactory, StageTimings } from '../engines/types.js';

/** An engine set up on a catalog. */
export interface OpenEngine {
  factory: EngineFactory;
  engine: Engine;
  /** RSS growth while the engine set itself up (process-wide, so approximate). */
  setupRssBytes: number;
  setupMs: number;
}

/**
 * Creates and sets up every factory on `catalog`, runs `body`, and closes them all even if
 * it throws. An engine that fails to set up is reported in `failures` and left out.
 */
export async function withEngines<T>(
  factories: readonly EngineFactory[],
  catalog: () => BenchCatalog,
  failures: string[],
  body: (engines: OpenEngine[]) => Promise<T>,
): Promise<T> {
  const open: OpenEngine[] = [];
  try {
    for (const factory of factories) {
      const rss = process.memoryUsage.rss();
      const start = process.hrtime.bigint();
      try {
        const engine = await factory.create();
        await engine.setup(catalog());
        open.push({
          factory,
          engine,
          setupMs: Number(process.hrtime.bigint() - start) / 1e6,
          setupRssBytes: process.memoryUsage.rss() - rss,
        });
      } catch (error) {
        failures.push(
          `${factory.name}: setup failed: ${error instanceof Error ? error.message : String(error)}`,
        );
      }
    }
    return await body(open);
  } finally {
    for (const { engine } of open) {
      await engine.close().catch(() => undefined);
    }
  }
}

/** Stage timings of one run plus its end-to-end time. */
export type TimedStages = StageTimings & { endToEndMs: number };

/**
 * A subject running `program` on `engine`; it throws when the run fails or, if `expect` is
 * given, when the result differs. Stage timings, when reported, are pushed to `timings`
 * together with the run's end-to-end time as seen from here.
 */
export function programSubject(
  id: string,
  engine: Engine,
  program: string | (() => string),
  expect?: (result: unknown) => boolean,
  timings?: TimedStages[],
): Subject {
  const next = typeof program === 'string' ? () => program : program;
  return {
    id,
    run: async () => {
      const text = next();
      const start = process.hrtime.bigint();
      const outcome = await engine.runProgram(text);
      const endToEndMs = Number(process.hrtime.bigint() - start) / 1e6;
      if (!outcome.ok) throw new Error(outcome.error ?? 'run failed');
      if (expect !== undefined && !expect(outcome.result)) {
        throw new Error(`unexpected result ${JSON.stringify(outcome.result)?.slice(0, 200)}`);
      }
      if (timings !== undefined && outcome.timings !== undefined) {
        timings.push({ ...outcome.timings, endToEndMs });
      }
    },
  };
}

/** The engine with the type-check on, whose checker caches results: measured twice. */
export const CACHED_ENGINE = 'isocode';
/** The same engine running a program made new for every run (its check is never a cache hit). */
export const UNCACHED_LANE = 'isocode-uncached';

/**
 * `program` with a trailing comment new on every call: the same program to run, a new text to
 * check, so isocode's check cache never answers (its key holds the program's text).
 */
export function uniqueProgram(program: string): () => string {
  let n = 0;
  return () => `${program}// run ${++n}\n`;
}

/** One measured lane: an engine and the program it runs (the same text, or new each run). */
export interface Lane {
  id: string;
  open: OpenEngine;
  program: string | (() => string);
}

/**
 * A lane per engine running `program`; the type-checking isocode engine gets a second lane,
 * {@link UNCACHED_LANE}, whose program is new on every run: the first measures a repeated
 * program (the check cache answers), the second a model that never sends the same text twice.
 */
export function cacheLanes(engines: readonly OpenEngine[], program: string): Lane[] {
  return engines.flatMap((open) =>
    open.factory.name === CACHED_ENGINE
      ? [
          { id: open.factory.name, open, program },
          { id: UNCACHED_LANE, open, program: uniqueProgram(program) },
        ]
      : [{ id: open.factory.name, open, program }],
  );
}

/** The standard summary columns. */
export const SUMMARY_COLUMNS = [
  'median ms',
  'p90 ms',
  'p99 ms',
  'mean ms',
  'min ms',
  'max ms',
  'runs/s',
];

/** A summary as table cells matching {@link SUMMARY_COLUMNS}. */
export function summaryCells(s: Summary): Cell[] {
  return [s.median, s.p90, s.p99, s.mean, s.min, s.max, s.throughput];
}

/** Collects failure messages of measured subjects. */
export function noteErrors(
  failures: string[],
  id: string,
  samples: { errors: number; firstError: string | undefined } | undefined,
): void {
  if (samples !== undefined && samples.errors > 0) {
    failures.push(
      `${id}: ${samples.errors} run(s) failed; first: ${samples.firstError ?? 'unknown'}`,
    );
  }
}

/** The first of `keys` present in `stats`. */
export function pickStat(
  stats: Record<string, number> | undefined,
  keys: readonly string[],
): number | undefined {
  if (stats === undefined) return undefined;
  for (const key of keys) if (Object.hasOwn(stats, key)) return stats[key];
  return undefined;
}

/** Stats keys read as "isolates alive" (a runtime may expose any of them). */
export const ISOLATES_ALIVE_KEYS = [
  'runner.sandbox.workers.busy',
  'runner.sandbox.isolates.alive',
  'runner.isolates.alive',
  'isolatesAlive',
  'isolates.alive',
];

/**
 * Isolates alive beyond the warm pool (`alive − warm`, isocode's pool counters), i.e. ones
 * a finished run left behind; `alive` alone when the runtime does not say how many are warm.
 */
export function isolatesLeftBehind(stats: Record<string, number> | undefined): number | undefined {
  const alive = pickStat(stats, ISOLATES_ALIVE_KEYS);
  const warm = pickStat(stats, [
    'runner.sandbox.isolates.warm',
    'runner.isolates.warm',
    'isolates.warm',
  ]);
  if (alive === undefined) return undefined;
  return warm === undefined ? alive : alive - warm;
}
