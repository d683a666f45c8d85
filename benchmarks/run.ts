/**
 * `npm run bench [-- --quick] [--json <path>] [--out <dir>] [--only <scenario,...>]
 * [--engines <engine,...>] [--require-isocode]`: runs the benchmarks, prints the table,
 * writes JSON and Markdown (and charts), exits 0 when every selected scenario ran.
 */
import { realpathSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { SCENARIO_IDS, renderTerminal, runBenchmarks } from './index.js';

export { runBenchmarks } from './index.js';
export type { BenchOptions } from './index.js';

const USAGE = `usage: npm run bench -- [--quick] [--json <path>] [--out <dir>] [--only <scenario,...>] [--engines <engine,...>] [--require-isocode]
scenarios: ${SCENARIO_IDS.join(', ')}
engines: isocode, isocode-nocheck, isocode-inprocess, worker-thread, node-vm, run, workerd`;

const list = (value: string | undefined): string[] | undefined =>
  value === undefined
    ? undefined
    : value
        .split(',')
        .map((s) => s.trim())
        .filter((s) => s.length > 0);

async function main(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      quick: { type: 'boolean', default: false },
      json: { type: 'string' },
      out: { type: 'string' },
      only: { type: 'string' },
      engines: { type: 'string' },
      'require-isocode': { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
    strict: true,
  });
  if (values.help === true) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const only = list(values.only);
  const engines = list(values.engines);
  const report = await runBenchmarks({
    quick: values.quick === true,
    requireIsocode: values['require-isocode'] === true,
    ...(only === undefined ? {} : { only }),
    ...(engines === undefined ? {} : { engines }),
    ...(values.out === undefined ? {} : { outDir: values.out }),
    ...(values.json === undefined ? {} : { jsonPath: values.json }),
  });
  process.stdout.write(renderTerminal(report));
  return report.ok ? 0 : 1;
}

const entry = process.argv[1];
if (entry !== undefined && import.meta.url === pathToFileURL(realpathSync(entry)).href) {
  main(process.argv.slice(2)).then(
    (code) => process.stdout.write('', () => process.exit(code)),
    (error: unknown) => {
      process.stderr.write(
        `bench: ${error instanceof Error ? error.message : String(error)}\n${USAGE}\n`,
        () => process.exit(2),
      );
    },
  );
}
