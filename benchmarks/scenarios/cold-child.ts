/**
 * The child process of the cold-start scenario: `node --no-node-snapshot --import tsx
 * benchmarks/scenarios/cold-child.ts <engine> <sdk-size>`. It loads ONLY the named engine,
 * sets it up, runs the realistic program once (cold) and once more (warm), and prints one
 * JSON line on stdout.
 */
import { findEngine } from '../engines/registry.js';
import { buildCatalog } from './catalog.js';
import { REALISTIC_PROGRAM } from './programs.js';

/** What the child prints. All times in milliseconds from the child's own clock. */
export interface ColdSample {
  engine: string;
  ok: boolean;
  error?: string;
  /** Loading the engine's modules and creating it. */
  importMs: number;
  setupMs: number;
  firstRunMs: number;
  /** import + setup + first run: "first run_code in a fresh process". */
  totalMs: number;
  secondRunMs: number;
  /** Process uptime when the first run finished (includes Node and tsx start-up). */
  uptimeMs: number;
  rssBytes: number;
}

const since = (start: bigint): number => Number(process.hrtime.bigint() - start) / 1e6;

async function main(): Promise<ColdSample> {
  const name = process.argv[2] ?? '';
  const size = Number(process.argv[3] ?? '50');
  const factory = findEngine(name);
  if (factory === undefined) throw new Error(`unknown engine ${name}`);
  const catalog = buildCatalog(size);
  const t0 = process.hrtime.bigint();
  const engine = await factory.create();
  const importMs = since(t0);
  const t1 = process.hrtime.bigint();
  await engine.setup(catalog);
  const setupMs = since(t1);
  const t2 = process.hrtime.bigint();
  const first = await engine.runProgram(REALISTIC_PROGRAM);
  const firstRunMs = since(t2);
  const totalMs = since(t0);
  const uptimeMs = process.uptime() * 1000;
  const t3 = process.hrtime.bigint();
  const second = await engine.runProgram(REALISTIC_PROGRAM);
  const secondRunMs = since(t3);
  await engine.close();
  const ok = first.ok && second.ok;
  const sample: ColdSample = {
    engine: name,
    ok,
    importMs,
    setupMs,
    firstRunMs,
    totalMs,
    secondRunMs,
    uptimeMs,
    rssBytes: process.memoryUsage.rss(),
  };
  if (!ok) sample.error = first.error ?? second.error ?? 'run failed';
  return sample;
}

main().then(
  (sample) => process.stdout.write(`${JSON.stringify(sample)}\n`, () => process.exit(0)),
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`, () =>
      process.exit(1),
    );
  },
);
