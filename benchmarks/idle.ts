/**
 * What an idle runtime costs: CPU per second of the host process and of every process it started
 * (sandbox workers behind the wall, the checker), once runs have stopped.
 *
 *   npm run build && node --no-node-snapshot --import tsx benchmarks/idle.ts [--seconds 10] [--after 3]
 *
 * One runtime of the built package (type-check on, so the checker process exists too; the default
 * worker pool), 50 runs of the realistic program, then `--after` seconds of rest, then `--seconds` of
 * idle measured: CPU ms per second of the host and of its descendants, read from /proc before and
 * after. Figures: docs/decisions/034-speed-round-3.md §7.
 */
import { parseArgs } from 'node:util';
import { catalogTools } from './lib/checkout.js';
import { selfCpuMs, treeCpuMs } from './lib/processes.js';
import { loadIsocode } from './engines/isocode.js';
import { buildCatalog } from './scenarios/catalog.js';
import { REALISTIC_PROGRAM } from './scenarios/programs.js';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '10' },
    after: { type: 'string', default: '3' },
  },
});
const SECONDS = Number(values.seconds);
const AFTER = Number(values.after);

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

const mod = await loadIsocode();
if (typeof mod === 'string') throw new Error(mod);
const runtime = await mod.createRuntime({
  tools: catalogTools(mod, buildCatalog(50)),
  scopes: { default: { mode: 'code' } },
  codeMode: { typecheck: 'error' },
});
for (let i = 0; i < 50; i++) {
  const out = (await runtime.execute(
    { name: 'run_code', args: { code: REALISTIC_PROGRAM, description: 'idle bench' } },
    { scope: 'default' },
  )) as { ok: boolean; error?: unknown };
  if (!out.ok) throw new Error(`run failed: ${JSON.stringify(out.error)}`);
}
await sleep(AFTER * 1000);
const tree0 = treeCpuMs();
const self0 = selfCpuMs();
await sleep(SECONDS * 1000);
const tree = (treeCpuMs() - tree0) / SECONDS;
const host = (selfCpuMs() - self0) / SECONDS;
await runtime.close();
console.log(
  `idle for ${SECONDS} s, ${AFTER} s after the last run: ${tree.toFixed(1)} ms of CPU per second ` +
    `(host ${host.toFixed(1)}, its processes ${(tree - host).toFixed(1)})`,
);
