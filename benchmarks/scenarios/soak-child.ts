/**
 * The child process of the soak scenario: `node --no-node-snapshot --expose-gc --import tsx
 * benchmarks/scenarios/soak-child.ts <engine> <runs>`. One engine per process, so RSS growth
 * belongs to that engine alone. Prints `tick <n>` lines on stderr and one JSON line on stdout.
 */
import { findEngine } from '../engines/registry.js';
import type { Engine } from '../engines/types.js';
import { descendantUsage } from '../lib/processes.js';
import { forceGc, mib } from '../lib/resources.js';
import { buildCatalog } from './catalog.js';
import { isolatesLeftBehind } from './common.js';
import { REALISTIC_PROGRAM } from './programs.js';
import { SOAK_CHECKPOINTS, SOAK_CONCURRENCY } from './soak.js';

/** What the child prints. */
export interface SoakResult {
  engine: string;
  runs: number;
  errors: number;
  firstError: string | undefined;
  seconds: number;
  /** Whether a forced GC preceded every RSS reading. */
  gc: boolean;
  /** This process's RSS after GC at each checkpoint. */
  rssMiB: number[];
  /** RSS of child processes (isocode: the type-checker and sandbox workers) at each checkpoint. */
  childMiB: number[];
  /** The sandbox workers' part of `childMiB` at each checkpoint. */
  workerMiB: number[];
  /** Sandbox worker processes alive at each checkpoint. */
  workerCount: number[];
  /** Isolates alive beyond the warm pool once every run settled. */
  isolatesAlive: number | undefined;
}

async function soak(name: string, engine: Engine, runs: number): Promise<SoakResult> {
  const result: SoakResult = {
    engine: name,
    runs: 0,
    errors: 0,
    firstError: undefined,
    seconds: 0,
    gc: true,
    rssMiB: [],
    childMiB: [],
    workerMiB: [],
    workerCount: [],
    isolatesAlive: undefined,
  };
  const checkpoint = (): void => {
    result.gc = forceGc() && result.gc;
    result.rssMiB.push(mib(process.memoryUsage.rss()));
    const children = descendantUsage();
    if (children !== undefined) {
      result.childMiB.push(mib(children.rssBytes));
      result.workerMiB.push(mib(children.workerRssBytes));
      result.workerCount.push(children.workers);
    }
  };
  checkpoint();
  const start = process.hrtime.bigint();
  const slice = Math.ceil(runs / SOAK_CHECKPOINTS);
  for (let done = 0; done < runs; done += slice) {
    const count = Math.min(slice, runs - done);
    let next = 0;
    let ticks = 0;
    const lane = async (): Promise<void> => {
      while (next < count) {
        next += 1;
        const outcome = await engine.runProgram(REALISTIC_PROGRAM).catch((error: unknown) => ({
          ok: false,
          error: String(error),
        }));
        if (outcome.ok) result.runs += 1;
        else {
          result.errors += 1;
          result.firstError ??= 'error' in outcome ? outcome.error : 'run failed';
        }
        if (++ticks % 50 === 0) process.stderr.write('tick 50\n');
      }
    };
    await Promise.all(Array.from({ length: SOAK_CONCURRENCY }, lane));
    process.stderr.write(`tick ${ticks % 50}\n`);
    checkpoint();
  }
  result.seconds = Number(process.hrtime.bigint() - start) / 1e9;
  result.isolatesAlive = isolatesLeftBehind(engine.stats?.());
  return result;
}

async function main(): Promise<SoakResult> {
  const name = process.argv[2] ?? '';
  const runs = Number(process.argv[3] ?? '10000');
  const factory = findEngine(name);
  if (factory === undefined) throw new Error(`unknown engine ${name}`);
  const engine = await factory.create();
  await engine.setup(buildCatalog(50));
  try {
    return await soak(name, engine, runs);
  } finally {
    await engine.close();
  }
}

main().then(
  (result) => process.stdout.write(`${JSON.stringify(result)}\n`, () => process.exit(0)),
  (error: unknown) => {
    const message = error instanceof Error ? error.message : String(error);
    process.stderr.write(`${message}\n`, () => process.exit(1));
  },
);
