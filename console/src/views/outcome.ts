/** The outcome card of a run (its result, error or "no result"), and what a settled result holds. */
import type { CallView, RunView } from '../api.js';
import { h, replace } from '../dom.js';
import { isFinal, jsonPretty, jsonPreview, prop, runError, str, type Shown } from '../format.js';

/** A log line as the page shows it. */
export interface LogLine {
  level: string;
  text: string | Shown;
}

/** Logs and calls of a settled run's ToolResult (value on success, error details on failure). */
export function fromResult(result: unknown): { logs: LogLine[]; calls: CallView[] } {
  const holder =
    prop(result, 'ok') === true ? prop(result, 'value') : prop(prop(result, 'error'), 'details');
  const logs = prop(holder, 'logs');
  const calls = prop(holder, 'calls');
  return {
    logs: Array.isArray(logs)
      ? logs.map((l) => ({
          level: str(prop(l, 'level')) ?? 'log',
          text: str(prop(l, 'text')) ?? jsonPreview(l),
        }))
      : [],
    calls: Array.isArray(calls) ? (calls as CallView[]) : [],
  };
}

/** Draws the outcome card of `run` (still loading when undefined). */
export function showOutcome(outcome: HTMLElement, run: RunView | undefined): void {
  if (!run || !isFinal(run.status)) {
    replace(
      outcome,
      h('h3', {}, 'Result'),
      h('p', { class: 'muted' }, run ? `The run is ${run.status}.` : 'Loading…'),
    );
    return;
  }
  const err = runError(run);
  if (run.status === 'cancelled') {
    replace(
      outcome,
      h('h3', {}, 'Result'),
      h(
        'p',
        { class: 'muted', data: { testid: 'no-result' } },
        'The run was cancelled: it has no result.',
      ),
      err ? h('p', { class: 'muted' }, err.code, ': ', err.message) : null,
    );
    return;
  }
  if (err) {
    replace(
      outcome,
      h('h3', {}, 'Error'),
      h(
        'p',
        { class: 'error-line' },
        h('span', { class: 'badge status-failed' }, err.kind ?? err.code),
        ' ',
        err.code,
        ': ',
        err.message,
      ),
      at(run),
      frames(run),
    );
    return;
  }
  const value = prop(prop(run.result, 'value'), 'result');
  if (value === undefined) {
    replace(
      outcome,
      h('h3', {}, 'Result'),
      h('p', { class: 'muted', data: { testid: 'no-result' } }, 'The run returned no value.'),
    );
    return;
  }
  replace(
    outcome,
    h('h3', {}, 'Result'),
    h('pre', { class: 'json', data: { testid: 'result' } }, jsonPretty(value)),
  );
}

/** "at line 3, column 7 of the program" for a failure that names its place (marked in the program). */
function at(run: RunView): HTMLElement | null {
  const details = prop(run.error ?? prop(run.result, 'error'), 'details');
  const line = prop(details, 'line');
  const column = prop(details, 'column');
  if (typeof line !== 'number') return null;
  const where = typeof column === 'number' ? `line ${line}, column ${column}` : `line ${line}`;
  return h('p', { class: 'muted', data: { testid: 'error-at' } }, `at ${where} of the program`);
}

/** The program frames of the error's stack (innermost first), when it has more than one. */
function frames(run: RunView): HTMLElement | null {
  const list = prop(prop(run.error ?? prop(run.result, 'error'), 'details'), 'frames');
  if (!Array.isArray(list) || list.length < 2) return null;
  return h(
    'ol',
    { class: 'frames', data: { testid: 'error-frames' } },
    (list as unknown[]).map((f) => {
      const line = prop(f, 'line');
      const column = prop(f, 'column');
      const fn = str(prop(f, 'fn'));
      return h(
        'li',
        {},
        h('span', { class: 'fn' }, fn ?? '(top level)'),
        ` line ${typeof line === 'number' ? line : '?'}${typeof column === 'number' ? `, column ${column}` : ''}`,
      );
    }),
  );
}
