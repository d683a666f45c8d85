/**
 * The embedded store's start-up and memory, side by side in one run: SQLite (in memory, on a file)
 * against PGlite (the embedded engine before, where it is installed) and a process that opens no
 * store, each sampled in fresh processes, rounds interleaved so load drifts evenly; medians.
 * Usage: `node --no-node-snapshot --import tsx benchmarks/embedded-store.ts [rounds]`.
 */
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const CHILD = fileURLToPath(new URL('./embedded-store-child.ts', import.meta.url));
const rounds = Number(process.argv[2] ?? 5);
let pglite = true;
try {
  createRequire(import.meta.url).resolve('@electric-sql/pglite');
} catch {
  pglite = false;
}
const engines = [
  'none',
  'sqlite-memory',
  'sqlite-file',
  ...(pglite ? ['pglite-memory', 'pglite-file'] : []),
];
const samples = new Map<string, { startMs: number; rssAddedMb: number }[]>(
  engines.map((e) => [e, []]),
);
for (let r = 0; r < rounds; r++)
  for (const engine of engines) {
    const out = execFileSync(
      process.execPath,
      ['--no-node-snapshot', '--import', 'tsx', CHILD, engine],
      {
        encoding: 'utf8',
        timeout: 300_000,
      },
    );
    samples
      .get(engine)
      ?.push(
        JSON.parse(out.trim().split('\n').pop() ?? '{}') as { startMs: number; rssAddedMb: number },
      );
  }
const median = (xs: number[]): number =>
  [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
console.log(`embedded store, median of ${rounds} fresh processes (Node ${process.versions.node}):`);
console.log('engine          start (ms)  RSS added (MiB)');
for (const engine of engines) {
  const s = samples.get(engine) ?? [];
  console.log(
    `${engine.padEnd(16)}${median(s.map((x) => x.startMs))
      .toFixed(1)
      .padStart(10)}  ${median(s.map((x) => x.rssAddedMb))
      .toFixed(1)
      .padStart(15)}`,
  );
}
if (!pglite)
  console.log(
    '(PGlite is not installed: `npm i --no-save @electric-sql/pglite` to compare it side by side)',
  );
