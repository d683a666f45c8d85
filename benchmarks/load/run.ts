/**
 * `npm run load` — the load test of issue 10 item 6, and its CI short form.
 *
 *   npm run load                      # full: 60 s, benign + every hostile class → load-latest.{md,json}
 *   npm run load -- --short           # CI: 12 s → load-quick.{md,json}; exit 1 when an invariant fails
 *   npm run load -- --mix safe        # only the hostile classes today's server survives
 *
 * Options: --duration <s>, --mix benign|safe|full, --rss-budget-mb <n>, --build dist|source
 * (dist needs `npm run build`), --out <dir>, --name load-<word> (the report's file name). Exit 0: every invariant held; 1: one failed; 2: bad usage.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { runLoad, type Mix } from './load.js';
import { buildReport, renderLoadMarkdown } from './report.js';
import { ROOT } from './server.js';
import { DEFAULT_RSS_BUDGET_MB } from './tenants.js';

const MIXES: readonly Mix[] = ['benign', 'safe', 'full'];

const usage = (message: string): never => {
  process.stderr.write(`load: ${message}\n`);
  process.exit(2);
};

const positive = (flag: string, value: string | undefined, fallback: number): number => {
  if (value === undefined) return fallback;
  const n = Number(value);
  return Number.isFinite(n) && n > 0
    ? n
    : usage(`${flag} must be a positive number, got "${value}"`);
};

const { values } = parseArgs({
  options: {
    short: { type: 'boolean', default: false },
    duration: { type: 'string' },
    mix: { type: 'string', default: 'full' },
    'rss-budget-mb': { type: 'string' },
    build: { type: 'string', default: 'dist' },
    out: { type: 'string', default: join(ROOT, 'benchmarks/results') },
    name: { type: 'string' },
  },
});
const mix =
  MIXES.find((m) => m === values.mix) ?? usage(`--mix must be one of ${MIXES.join(', ')}`);
const build =
  values.build === 'dist' || values.build === 'source'
    ? values.build
    : usage('--build must be dist or source');
const durationSec = positive('--duration', values.duration, values.short ? 12 : 60);
if (durationSec > 600) usage('--duration is capped at 600 s');

const result = await runLoad({
  durationSec,
  mix,
  build,
  rssBudgetMb: positive('--rss-budget-mb', values['rss-budget-mb'], DEFAULT_RSS_BUDGET_MB),
  log: (line) => process.stderr.write(`load: ${line}\n`),
});
const report = buildReport(result);
const name = values.name ?? (values.short ? 'load-quick' : 'load-latest');
if (!/^load-[\w-]+$/.test(name)) usage('--name must look like load-<word>');
const base = join(values.out, name);
mkdirSync(values.out, { recursive: true });
writeFileSync(`${base}.json`, `${JSON.stringify(report, null, 2)}\n`);
const markdown = renderLoadMarkdown(report);
writeFileSync(`${base}.md`, markdown);
process.stdout.write(markdown);
process.stderr.write(`load: wrote ${base}.md and ${base}.json\n`);
process.exitCode = report.ok ? 0 : 1;
