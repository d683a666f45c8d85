/**
 * Renders diagnostics as the text a model reads back from a failed run_code: deduplicated (the same
 * finding at several places is shown once, with the other lines), each with its program line and a
 * one-line hint for common codes, capped to a character budget with "... and N more".
 */

import { hintFor } from './hints.js';
import type { Diagnostic } from './types.js';

/**
 * Characters of diagnostics text a failed run shows at most (about 1,000 tokens): a program with
 * fifty type errors does not flood the model's context.
 */
export const DIAGNOSTICS_BUDGET_CHARS = 4000;

/** Longest program line shown under a diagnostic (longer lines are cut around the column). */
const MAX_SOURCE_LINE = 160;

/** Options of {@link formatDiagnostics}. */
export interface FormatOptions {
  /** The program's text: each diagnostic is followed by its line (`  3 | ...`). */
  program?: string | undefined;
  /** Most distinct diagnostics shown. @default 10 */
  max?: number | undefined;
  /** Most characters of text (at least one diagnostic is always shown). @default DIAGNOSTICS_BUDGET_CHARS */
  budgetChars?: number | undefined;
  /** Show a hint under diagnostics of common codes. @default true */
  hints?: boolean | undefined;
}

/** One distinct finding and the other places it occurs. */
export interface DiagnosticGroup {
  first: Diagnostic;
  /** Lines (program coordinates) of the other occurrences, in order, without repeats. */
  alsoAt: number[];
  /** Occurrences in the group (1 + duplicates, also those on the same line). */
  count: number;
}

/**
 * Groups diagnostics with the same kind, code, category and message (in order of first occurrence).
 * Exact duplicates (same place too) count once.
 */
export function groupDiagnostics(diags: readonly Diagnostic[]): DiagnosticGroup[] {
  const groups = new Map<string, DiagnosticGroup>();
  const seen = new Set<string>();
  for (const d of diags) {
    const key = `${d.kind}\u0000${d.code ?? ''}\u0000${d.category}\u0000${d.message}`;
    const at = `${key}\u0000${d.line}:${d.column}`;
    if (seen.has(at)) continue;
    seen.add(at);
    const group = groups.get(key);
    if (group === undefined) {
      groups.set(key, { first: d, alsoAt: [], count: 1 });
      continue;
    }
    group.count++;
    if (d.line !== group.first.line && !group.alsoAt.includes(d.line)) group.alsoAt.push(d.line);
  }
  return [...groups.values()];
}

/**
 * The diagnostics as text, one block per distinct finding, e.g.
 * `line 3, col 5: TS2339 Property 'x' does not exist on type 'T'. (also lines 7, 9)`, then the
 * program line and a hint; detail lines of a message are indented under it. A second argument that is
 * a number is the old `max`.
 */
export function formatDiagnostics(
  diags: readonly Diagnostic[],
  options: number | FormatOptions = {},
): string {
  const opts = typeof options === 'number' ? { max: options } : options;
  const limit = Math.max(1, Math.floor(opts.max ?? 10));
  const budget = Math.max(1, Math.floor(opts.budgetChars ?? DIAGNOSTICS_BUDGET_CHARS));
  const lines = opts.program === undefined ? undefined : opts.program.split('\n');
  const groups = groupDiagnostics(diags);
  const blocks: string[] = [];
  let used = 0;
  let shown = 0;
  for (const group of groups) {
    if (shown >= limit) break;
    let block = formatGroup(group, lines, opts.hints ?? true);
    if (shown > 0 && used + block.length + 1 > budget) break;
    if (block.length > budget) block = `${block.slice(0, budget - 1)}…`;
    blocks.push(block);
    used += block.length + 1;
    shown++;
  }
  let more = 0;
  for (const group of groups.slice(shown)) more += group.count;
  if (more > 0)
    blocks.push(`... and ${more} more ${more === 1 ? 'diagnostic' : 'diagnostics'} not shown`);
  return blocks.join('\n');
}

function formatGroup(
  group: DiagnosticGroup,
  program: readonly string[] | undefined,
  hints: boolean,
): string {
  const d = group.first;
  const where = d.line > 0 ? `line ${d.line}, col ${d.column}` : 'internal';
  const severity = d.category === 'error' ? '' : `${d.category} `;
  const code =
    d.code !== undefined && d.code > 0
      ? `TS${d.code} `
      : d.kind === 'syntax'
        ? 'syntax error: '
        : '';
  const [first = '', ...rest] = d.message.split('\n');
  const also =
    group.alsoAt.length === 0
      ? ''
      : ` (also ${group.alsoAt.length === 1 ? 'line' : 'lines'} ${group.alsoAt.slice(0, 8).join(', ')}${group.alsoAt.length > 8 ? ', ...' : ''})`;
  const out = [`${where}: ${severity}${code}${first}${also}`, ...rest.map((line) => `  ${line}`)];
  const source = program !== undefined && d.line > 0 ? program[d.line - 1] : undefined;
  if (source !== undefined && source.trim() !== '')
    out.push(`  ${d.line} | ${clip(source.replace(/\r$/, ''), d.column)}`);
  const hint = hints && d.line > 0 ? hintFor(d) : undefined;
  if (hint !== undefined) out.push(`  hint: ${hint}`);
  return out.join('\n');
}

/** The line, cut to {@link MAX_SOURCE_LINE} characters around `column` when longer. */
function clip(line: string, column: number): string {
  const text = line.trimEnd();
  if (text.length <= MAX_SOURCE_LINE) return text;
  const start = Math.max(
    0,
    Math.min(column - 1 - MAX_SOURCE_LINE / 2, text.length - MAX_SOURCE_LINE),
  );
  const cut = text.slice(start, start + MAX_SOURCE_LINE);
  return `${start > 0 ? '…' : ''}${cut}${start + MAX_SOURCE_LINE < text.length ? '…' : ''}`;
}
