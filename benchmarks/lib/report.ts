/**
 * The report writer: a human table for the terminal, the JSON file and the Markdown report
 * (`latest.md` in full mode, `quick.md` in quick mode, so CI smoke runs never overwrite the
 * committed figures). Scenarios carried over from an earlier run are marked stale.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { explainMisses } from './explain.js';
import { mib } from './resources.js';
import { staleNote } from './store.js';
import type { BenchReport, Cell, Table } from './types.js';

/** Formats a number with a precision that suits its size; NaN and null print as `–`. */
export function formatCell(cell: Cell): string {
  if (cell === null) return '–';
  if (typeof cell === 'string') return cell;
  if (!Number.isFinite(cell)) return '–';
  if (Number.isInteger(cell)) return String(cell);
  const abs = Math.abs(cell);
  if (abs >= 100) return cell.toFixed(0);
  if (abs >= 10) return cell.toFixed(1);
  if (abs >= 1) return cell.toFixed(2);
  return cell.toPrecision(2);
}

function textTable(table: Table): string {
  const cells = table.rows.map((row) => row.map(formatCell));
  const widths = table.columns.map((column, i) =>
    Math.max(column.length, ...cells.map((row) => (row[i] ?? '').length)),
  );
  const numeric = table.columns.map((_, i) => table.rows.some((row) => typeof row[i] === 'number'));
  const line = (values: readonly string[]): string =>
    values
      .map((value, i) =>
        numeric[i] === true ? value.padStart(widths[i] ?? 0) : value.padEnd(widths[i] ?? 0),
      )
      .join('  ')
      .trimEnd();
  return [
    table.title,
    line(table.columns),
    widths.map((w) => '-'.repeat(w)).join('  '),
    ...cells.map(line),
  ].join('\n');
}

function markdownTable(table: Table): string {
  const escape = (text: string): string => text.replace(/\|/g, '\\|');
  const header = `| ${table.columns.map(escape).join(' | ')} |`;
  const numeric = table.columns.map((_, i) => table.rows.some((row) => typeof row[i] === 'number'));
  const rule = `|${numeric.map((isNumber) => (isNumber ? ' ---: ' : ' --- ')).join('|')}|`;
  const rows = table.rows.map(
    (row) => `| ${row.map((cell) => escape(formatCell(cell))).join(' | ')} |`,
  );
  return [`**${escape(table.title)}**`, '', header, rule, ...rows].join('\n');
}

/** "this run", or "stale (<commit>)" when the metric's scenario was carried over from an earlier run. */
function freshness(report: BenchReport, metric: string): string {
  const scenario = report.scenarios.find((s) => metric.startsWith(`${s.id}.`));
  if (scenario?.stale === undefined) return 'this run';
  return `stale (${scenario.stale.commit ?? 'unknown commit'})`;
}

function targetsTable(report: BenchReport): Table {
  return {
    title: 'Targets (issues 28 and 14)',
    columns: ['target', 'goal', 'measured', 'status', 'margin', 'from', 'derived'],
    rows: report.targets.map((t) => [
      t.description,
      t.goal,
      t.measured,
      t.status,
      t.margin,
      t.measured === null ? '–' : freshness(report, t.metric),
      t.derivation,
    ]),
  };
}

/** Each scenario: measured by this run, or carried over (stale) from which run and commit. */
function scenariosTable(report: BenchReport): Table {
  return {
    title: 'Scenarios',
    columns: ['scenario', 'status', 'seconds', 'measured by'],
    rows: report.scenarios.map((s) => [
      s.title,
      s.status,
      s.durationMs / 1000,
      s.stale === undefined
        ? 'this run'
        : `STALE: run of ${s.stale.runStartedAt}, commit ${s.stale.commit ?? 'unknown'}${s.stale.sameCommit ? ' (this commit)' : ''}`,
    ]),
  };
}

function enginesTable(report: BenchReport): Table {
  return {
    title: 'Engines',
    columns: ['engine', 'kind', 'typecheck', 'status', 'description'],
    rows: report.engines.map((e) => [
      e.name,
      e.kind,
      e.typecheck ? 'on' : 'off',
      e.available ? `self-check ${e.selfCheck}` : 'unavailable',
      e.reason ?? e.description,
    ]),
  };
}

/** The human-readable terminal report. */
export function renderTerminal(report: BenchReport): string {
  const parts: string[] = [
    `isocode bench (${report.mode}) — ${report.environment.cpuModel}, ${report.environment.cores} cores, Node ${report.environment.node}, load ${report.environment.loadAverage.start.toFixed(1)}→${report.environment.loadAverage.end.toFixed(1)}`,
    '',
    textTable(enginesTable(report)),
  ];
  for (const scenario of report.scenarios) {
    parts.push(
      '',
      `== ${scenario.title} [${scenario.status}, ${(scenario.durationMs / 1000).toFixed(1)} s]`,
    );
    const stale = staleNote(scenario);
    if (stale !== undefined) parts.push(`  ${stale}`);
    for (const note of scenario.notes) parts.push(`  note: ${note}`);
    for (const failure of scenario.failures) parts.push(`  FAILED: ${failure}`);
    for (const table of scenario.tables) parts.push('', textTable(table));
  }
  parts.push('', textTable(targetsTable(report)), '');
  parts.push(
    `${report.ok ? 'OK' : 'FAILED'}: ${report.scenarios.length} scenarios in ${(report.durationMs / 1000).toFixed(1)} s`,
  );
  for (const file of report.files) parts.push(`wrote ${file}`);
  return `${parts.join('\n')}\n`;
}

/** The Markdown report. */
export function renderMarkdown(report: BenchReport): string {
  const env = report.environment;
  const command = report.mode === 'quick' ? 'npm run bench -- --quick' : 'npm run bench';
  const machine: Table = {
    title: 'Machine',
    columns: ['', ''],
    rows: [
      [
        'CPU',
        `${env.cpuModel} (${env.cores} cores, available parallelism ${env.availableParallelism})`,
      ],
      ['Memory', `${mib(env.totalMemoryBytes).toFixed(0)} MiB`],
      ['OS', env.os],
      ['Node', `${env.node} (V8 ${env.v8})`],
      ...Object.entries(env.packages).map(([name, version]): Cell[] => [name, version]),
      ['Commit', env.gitCommit ?? 'unknown'],
      ['CI', env.ci ? 'yes' : 'no'],
      [
        'Load average (1 min)',
        `${env.loadAverage.start.toFixed(2)} at start, ${env.loadAverage.end.toFixed(2)} at end (${env.cores} cores; above the core count, other work shared the CPUs)`,
      ],
    ],
  };
  const parts: string[] = [
    '# isocode benchmarks',
    '',
    `Mode **${report.mode}**, started ${report.startedAt}, ${(report.durationMs / 1000).toFixed(1)} s, overall **${report.ok ? 'OK' : 'FAILED'}**.`,
    `Reproduce with \`${command}\`. Method: [docs/decisions/006-benchmark-method.md](../../docs/decisions/006-benchmark-method.md).`,
    '',
    markdownTable(machine),
    '',
    markdownTable(enginesTable(report)),
    '',
    markdownTable(scenariosTable(report)),
    '',
    '## Targets',
    '',
    markdownTable(targetsTable(report)),
  ];
  for (const scenario of report.scenarios) {
    parts.push(
      '',
      `## ${scenario.title}`,
      '',
      `Status: ${scenario.status}, ${(scenario.durationMs / 1000).toFixed(1)} s.`,
    );
    const stale = staleNote(scenario);
    if (stale !== undefined) parts.push('', `> **${stale}**`);
    for (const note of scenario.notes) parts.push('', `> ${note}`);
    for (const failure of scenario.failures) parts.push('', `**Failed:** ${failure}`);
    for (const table of scenario.tables) parts.push('', markdownTable(table));
    for (const file of scenario.files ?? [])
      if (file.endsWith('.svg')) parts.push('', `![${file}](${file})`);
  }
  parts.push('', '## Closing note', '', ...closingNote(report));
  return `${parts.join('\n')}\n`;
}

/** Missed targets with what this run's figures say about why; what was not measured. */
function closingNote(report: BenchReport): string[] {
  const metrics = Object.assign({}, ...report.scenarios.map((s) => s.metrics)) as Record<
    string,
    number
  >;
  const misses = explainMisses(report.targets, metrics, report.environment);
  const lines =
    misses.length === 0
      ? ['Every measured target is met.']
      : [
          "Missed targets, with what this run's own figures say about why:",
          '',
          ...misses.map((line) => `- ${line}`),
        ];
  const unmeasured = report.targets.filter((t) => t.status === 'not measured');
  if (unmeasured.length > 0) {
    lines.push('', `Not measured in this run: ${unmeasured.map((t) => t.id).join(', ')}.`);
  }
  return lines;
}

/** Where {@link writeReport} puts things. */
export interface WriteOptions {
  outDir: string;
  /** Base file name without extension. @default 'latest' */
  baseName?: string;
  /** An extra JSON copy (`--json <path>`). */
  jsonPath?: string | undefined;
}

/** Writes the JSON and Markdown reports; returns the paths written. */
export async function writeReport(report: BenchReport, options: WriteOptions): Promise<string[]> {
  const base = options.baseName ?? 'latest';
  await mkdir(options.outDir, { recursive: true });
  const jsonFile = join(options.outDir, `${base}.json`);
  const mdFile = join(options.outDir, `${base}.md`);
  const written = [jsonFile, mdFile];
  if (options.jsonPath !== undefined) written.push(options.jsonPath);
  const withFiles: BenchReport = { ...report, files: [...report.files, ...written] };
  const json = `${JSON.stringify(withFiles, null, 2)}\n`;
  await writeFile(jsonFile, json);
  await writeFile(mdFile, renderMarkdown(withFiles));
  if (options.jsonPath !== undefined) {
    await mkdir(dirname(options.jsonPath), { recursive: true });
    await writeFile(options.jsonPath, json);
  }
  return written;
}
