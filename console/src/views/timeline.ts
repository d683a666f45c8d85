/**
 * The timeline of a run's nested calls: built from the run's `call-start` / `call-end` events as
 * they arrive (or from the settled result), shown with arguments, outcome code, duration and parent.
 */
import type { ApprovalView, CallView } from '../api.js';
import { h, replace } from '../dom.js';
import { formatDuration, jsonPretty, jsonPreview, num, prop, str } from '../format.js';

interface CallRow {
  name: string;
  args: unknown;
  state: 'running' | 'ok' | 'error';
  code: string | undefined;
  durationMs: number | undefined;
  parent: string | undefined;
}

/** The calls of one run and their table. */
export class Timeline {
  readonly #rows: CallRow[] = [];
  readonly #body = h('tbody');
  /** The table to mount. */
  readonly table = h(
    'table',
    { class: 'list', data: { testid: 'timeline' } },
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        ['#', 'Tool', 'Arguments', 'Outcome', 'Duration', 'Parent'].map((t) => h('th', {}, t)),
      ),
    ),
    this.#body,
  );

  /** A `call-start` event's data. */
  start(data: unknown): void {
    this.#rows.push({
      name: str(prop(data, 'name')) ?? '?',
      args: prop(data, 'args'),
      state: 'running',
      code: undefined,
      durationMs: undefined,
      parent: str(prop(data, 'parent')),
    });
  }

  /** A `call-end` event's data: settles the oldest running call of that tool. */
  end(data: unknown): void {
    const name = str(prop(data, 'name')) ?? '?';
    const patch = {
      state: prop(data, 'ok') === false ? ('error' as const) : ('ok' as const),
      code: str(prop(data, 'code')),
      durationMs: num(prop(data, 'durationMs')),
    };
    const row = this.#rows.find((c) => c.state === 'running' && c.name === name);
    if (row) Object.assign(row, patch);
    else
      this.#rows.push({
        name,
        args: prop(data, 'args'),
        parent: str(prop(data, 'parent')),
        ...patch,
      });
  }

  /**
   * Fills in from a settled run: its result's calls when no event carried any, and arguments the
   * API lists per call (in start order) where the events had none.
   */
  backfill(settled: readonly CallView[], listed: readonly CallView[] | undefined): void {
    if (this.#rows.length === 0)
      for (const c of settled)
        this.#rows.push({
          name: c.name,
          args: c.args,
          state: c.ok === false ? 'error' : 'ok',
          code: c.code,
          durationMs: c.durationMs,
          parent: c.parent,
        });
    listed?.forEach((c, i) => {
      const row = this.#rows[i];
      if (row && row.args === undefined && c.name === row.name && c.args !== undefined)
        row.args = c.args;
    });
  }

  /** Redraws; a running call whose tool has a pending approval shows as waiting for it. */
  draw(approvals: readonly ApprovalView[]): void {
    const rows = this.#rows;
    if (rows.length === 0) {
      replace(
        this.#body,
        h('tr', {}, h('td', { class: 'empty', attrs: { colspan: '6' } }, 'No nested calls yet.')),
      );
      return;
    }
    const waiting = new Map<string, number>();
    for (const a of approvals)
      if (a.status === 'pending') waiting.set(a.tool, (waiting.get(a.tool) ?? 0) + 1);
    const parked = rows.map(() => false);
    for (let i = rows.length - 1; i >= 0; i--) {
      const c = rows[i]!;
      const n = waiting.get(c.name) ?? 0;
      if (c.state === 'running' && n > 0) {
        parked[i] = true;
        waiting.set(c.name, n - 1);
      }
    }
    replace(
      this.#body,
      rows.map((c, i) =>
        h(
          'tr',
          { data: { call: c.name, state: c.state } },
          h('td', { class: 'num' }, i + 1),
          h('td', { class: 'tool' }, c.name),
          h(
            'td',
            { class: 'args', title: c.args === undefined ? '' : jsonPretty(c.args) },
            c.args === undefined ? '–' : jsonPreview(c.args, 80),
          ),
          h(
            'td',
            {},
            parked[i]
              ? h('span', { class: 'badge status-waiting-approval' }, 'waiting for approval')
              : c.state === 'running'
                ? h('span', { class: 'badge status-running' }, 'running')
                : c.state === 'ok'
                  ? h('span', { class: 'badge status-succeeded' }, 'ok')
                  : h('span', { class: 'badge status-failed' }, c.code ?? 'error'),
          ),
          h('td', { class: 'num' }, formatDuration(c.durationMs)),
          h('td', { class: 'muted' }, c.parent ?? 'run_code'),
        ),
      ),
    );
  }
}
