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
