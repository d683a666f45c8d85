/** Model-facing rendering of run_code outcomes. */
import type { LogLine, RunCodeValue } from './types.js';

/** Renders captured logs, one line each, with the level for non-`log` lines. */
export function renderLogs(logs: readonly LogLine[]): string {
  return logs.map((l) => (l.level === 'log' ? l.text : `[${l.level}] ${l.text}`)).join('\n');
}

/** The notes (`Note: ...`), the logs, then the result (`(no output)` when all are empty). */
export function renderRunValue(value: RunCodeValue): string {
  const parts: string[] = [];
  if (value.notes !== undefined && value.notes.length > 0)
    parts.push(value.notes.map((n) => `Note: ${n}`).join('\n'));
  if (value.logs.length > 0) parts.push(renderLogs(value.logs));
  if (value.result !== null)
    parts.push(
      typeof value.result === 'string' ? value.result : JSON.stringify(value.result, null, 2),
    );
  return parts.length > 0 ? parts.join('\n\n') : '(no output)';
}
