/** Renders diagnostics as the text a model reads back from a failed run_code. */

import type { Diagnostic } from './types.js';

/**
 * One diagnostic per line, e.g. `line 3, col 5: TS2339 Property 'x' does not exist on type 'T'.`; detail
 * lines of a message are indented under it. Shows at most `max` diagnostics and says how many were left out.
 */
export function formatDiagnostics(diags: readonly Diagnostic[], max = 10): string {
  const limit = Math.max(1, Math.floor(max));
  const lines = diags.slice(0, limit).map(formatOne);
  if (diags.length > limit) {
    const more = diags.length - limit;
    lines.push(`... and ${more} more ${more === 1 ? 'diagnostic' : 'diagnostics'} not shown`);
  }
  return lines.join('\n');
}

function formatOne(d: Diagnostic): string {
  const where = d.line > 0 ? `line ${d.line}, col ${d.column}` : 'internal';
  const severity = d.category === 'error' ? '' : `${d.category} `;
  const code = d.code > 0 ? `TS${d.code} ` : d.kind === 'syntax' ? 'syntax error: ' : '';
  const [first = '', ...rest] = d.message.split('\n');
  const detail = rest.map((line) => `  ${line}`);
  return [`${where}: ${severity}${code}${first}`, ...detail].join('\n');
}
