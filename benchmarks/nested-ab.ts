/**
 * The nested-call path of two checkouts of isocode, interleaved in one process:
 *
 *   node --no-node-snapshot --import tsx benchmarks/nested-ab.ts <checkout-A> <checkout-B> [--rounds 40]
 *
 * (e.g. `git worktree add --detach /tmp/before <commit>` with `node_modules` linked). Both runtimes
 * run programs of N sequential `kv.get` calls, N calls in `Promise.all` batches of 10, and none,
 * round by round in alternating order, with the in-process sandbox and type-checking off, so that the
 * figure is the executor and bridge path and the machine's load hits both alike. Prints the marginal
 * µs per call ((N calls − 0 calls) / N, medians over rounds) and the ratios B ÷ A.
 */
import { parseArgs } from 'node:util';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

interface Runtime {
  execute(call: unknown, options: { scope: string }): Promise<{ ok: boolean; error?: unknown }>;
  close(): Promise<void>;
}
interface IsocodeModule {
  defineTool(definition: unknown): unknown;
  createRuntime(options: unknown): Promise<Runtime>;
}

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { rounds: { type: 'string', default: '40' } },
});
const [rootA, rootB] = positionals;
if (rootA === undefined || rootB === undefined) {
  console.error('usage: nested-ab.ts <checkout-A> <checkout-B> [--rounds N]');
  process.exit(2);
}
const ROUNDS = Number(values.rounds);
const N = 200;
const PROGRAMS = {
  empty: 'return 0;',
  seq: `let n = 0; for (let i = 0; i < ${N}; i++) { await tools.kv.get({ key: 'k' + (i % 8) }); n++; } return n;`,
  batch: `let n = 0; for (let i = 0; i < ${N}; i += 10) { const r = await Promise.all(Array.from({ length: 10 }, (_, j) => tools.kv.get({ key: 'k' + j }))); n += r.length; } return n;`,
} as const;
type Kind = keyof typeof PROGRAMS;

async function open(root: string): Promise<Runtime> {
  const url = pathToFileURL(resolve(root, 'src/index.ts')).href;
  const mod = (await import(url)) as IsocodeModule;
  const tool = mod.defineTool({
    name: 'kv.get',
    description: 'Gets.',
    input: {
      type: 'object',
      properties: { key: { type: 'string' } },
      required: ['key'],
      additionalProperties: false,
    },
    isConcurrencySafe: true,
    execute: (args: { key: string }) => ({ value: args.key }),
  });
  return mod.createRuntime({
    tools: [tool],
    scopes: { c: { mode: 'code' } },
    codeMode: { typecheck: 'off', sandbox: 'in-process' },
  });
}

async function once(rt: Runtime, kind: Kind): Promise<number> {
  const started = performance.now();
  const r = await rt.execute(
    { name: 'run_code', args: { code: PROGRAMS[kind], description: 'nested-ab' } },
    { scope: 'c' },
  );
  const ms = performance.now() - started;
  if (!r.ok) throw new Error(`run failed: ${JSON.stringify(r.error)}`);
  return ms;
}

const median = (xs: readonly number[]): number =>
  [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

const runtimes = [await open(rootA), await open(rootB)];
const kinds: Kind[] = ['empty', 'seq', 'batch'];
for (let i = 0; i < 10; i++) for (const rt of runtimes) for (const k of kinds) await once(rt, k);
const samples = runtimes.map(() => ({
  empty: [] as number[],
  seq: [] as number[],
  batch: [] as number[],
}));
for (let round = 0; round < ROUNDS; round++) {
  const order = round % 2 === 0 ? [0, 1] : [1, 0];
  for (const kind of kinds) {
    for (const i of order) {
      const rt = runtimes[i];
      const s = samples[i];
      if (rt !== undefined && s !== undefined) s[kind].push(await once(rt, kind));
    }
  }
}
const perCall = samples.map((s) => ({
  seqUs: ((median(s.seq) - median(s.empty)) / N) * 1000,
  batchUs: ((median(s.batch) - median(s.empty)) / N) * 1000,
}));
const [a, b] = perCall;
if (a !== undefined && b !== undefined) {
  console.log(`| checkout | sequential µs/call | Promise.all µs/call |`);
  console.log(`| --- | --- | --- |`);
  console.log(`| A ${rootA} | ${a.seqUs.toFixed(1)} | ${a.batchUs.toFixed(1)} |`);
  console.log(`| B ${rootB} | ${b.seqUs.toFixed(1)} | ${b.batchUs.toFixed(1)} |`);
  console.log(
    `| B ÷ A | ${(b.seqUs / a.seqUs).toFixed(3)} | ${(b.batchUs / a.batchUs).toFixed(3)} |`,
  );
}
for (const rt of runtimes) await rt.close();
