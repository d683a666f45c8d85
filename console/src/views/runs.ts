/** Runs: what the viewer's key may see, newest first, refreshed every two seconds. */
import { RUN_STATUSES } from '../../../src/durable/records.js';
import { RUNS_PAGE, type RunView } from '../api.js';
import { damagedMark, h, replace, statusBadge } from '../dom.js';
import { formatAgo, formatDuration, formatTime, limitHit } from '../format.js';
import { every, type View, type ViewContext } from './view.js';

/**
 * How often the list is read again: every 2 s while it changes, backing off (doubling) to 30 s
 * while it does not; a pushed change of the pending approvals reads it at once (decision 023).
 */
const REFRESH_MS = 2_000;
const IDLE_REFRESH_MS = 30_000;

/** A phone-width card's cell label (console.css). */
const label = (text: string): Record<string, string> => ({ 'data-label': text });

/** The number of nested calls of a run, from whichever field the API gave. */
function callCount(run: RunView): number | undefined {
  if (typeof run.callCount === 'number') return run.callCount;
  return Array.isArray(run.calls) ? run.calls.length : undefined;
}

function duration(run: RunView, now: number): number | undefined {
  const start = run.startedAt ?? run.createdAt;
  return (run.finishedAt ?? now) - start;
}

/** The runs view; `query` is the hash's query (`status=…&scope=…`). */
export function runsView(ctx: ViewContext, query: URLSearchParams): View {
  let status = query.get('status') ?? '';
  let scope = query.get('scope') ?? '';
  let runs: RunView[] = [];
  /** Pages below the first, read on "Show older runs" (the refresh reads the first page only). */
  let older: RunView[] = [];
  const olderButton = h(
    'button',
    { type: 'button', data: { action: 'older-runs' } },
    'Show older runs',
  );
  olderButton.hidden = true;
  olderButton.addEventListener('click', () => {
    const last = all().at(-1);
    if (last === undefined) return;
    olderButton.disabled = true;
    ctx.api
      // `before` is strict: runs created in the same millisecond as the last one shown would be
      // skipped, so ask from just after it (those shown already are dropped by id).
      .listRuns(status || undefined, undefined, last.createdAt + 1)
      .then((page) => {
        const have = new Set(all().map((r) => r.id));
        older = [...older, ...page.filter((r) => !have.has(r.id))];
        olderButton.hidden = page.length < RUNS_PAGE;
        draw();
      })
      .catch((err: unknown) => ctx.report(err))
      .finally(() => (olderButton.disabled = false));
  });
  /** The first page, then the older pages read so far (a run in both shows once). */
  const all = (): RunView[] => {
    const first = new Set(runs.map((r) => r.id));
    return [...runs, ...older.filter((r) => !first.has(r.id))];
  };
  // One listener on the body (which stays) rather than on rows (redrawn every refresh).
  const body = h('tbody', {
    onclick: (e) => {
      const row = (e.target as Element).closest('tr[data-run-id]');
      const id = row instanceof HTMLElement ? row.dataset['runId'] : undefined;
      if (id !== undefined && !(e.target as Element).closest('a'))
        location.hash = `#/runs/${encodeURIComponent(id)}`;
    },
  });
  const updated = h('span', { class: 'muted', data: { testid: 'updated' } });
  const scopeSelect = h('select', {
    attrs: { 'aria-label': 'Scope' },
    onchange: () => {
      scope = scopeSelect.value;
      draw();
    },
  });

  const chips = h(
    'div',
    { class: 'chips', attrs: { role: 'group', 'aria-label': 'Status' } },
    ['', ...RUN_STATUSES].map((s) =>
      h(
        'button',
        {
          type: 'button',
          class: s === status ? 'chip active' : 'chip',
          data: { status: s || 'all' },
          onclick: (e) => {
            status = s;
            for (const b of chips.querySelectorAll('button')) b.classList.remove('active');
            (e.currentTarget as HTMLElement).classList.add('active');
            // Another filter: its own first page, no older pages yet.
            older = [];
            void stopAndRestart();
          },
        },
        s || 'all',
      ),
    ),
  );

  function draw(): void {
    const now = Date.now();
    const scopes = [...new Set(all().map((r) => r.scope))].sort();
    if (scope !== '' && !scopes.includes(scope)) scopes.push(scope);
    replace(
      scopeSelect,
      h('option', { value: '' }, 'all scopes'),
      scopes.map((s) => {
        const o = h('option', { value: s }, s);
        o.selected = s === scope;
        return o;
      }),
    );
    const shown = all().filter((r) => scope === '' || r.scope === scope);
    if (shown.length === 0) {
      replace(body, h('tr', {}, h('td', { class: 'empty', attrs: { colspan: '8' } }, 'No runs.')));
      return;
    }
    replace(
      body,
      shown.map((run) => {
        const limit = limitHit(run);
        const pending = run.pendingApprovals ?? 0;
        const href = `#/runs/${encodeURIComponent(run.id)}`;
        return h(
          'tr',
          { data: { runId: run.id }, class: 'clickable' },
          h('td', {}, statusBadge(run.status), damagedMark(run.damaged)),
          h(
            'td',
            { class: 'title' },
            h('a', { href }, run.description || '(no description)'),
            h('div', { class: 'id' }, run.id),
          ),
          h('td', { attrs: label('Scope') }, run.scope),
          h(
            'td',
            { title: formatTime(run.createdAt), attrs: label('Started') },
            formatAgo(run.createdAt, now),
          ),
          h('td', { class: 'num', attrs: label('Duration') }, formatDuration(duration(run, now))),
          h('td', { class: 'num', attrs: label('Calls') }, callCount(run) ?? '–'),
          h(
            'td',
            { class: 'num', attrs: label('Approvals') },
            pending > 0 ? h('span', { class: 'badge status-waiting-approval' }, pending) : '0',
          ),
          limit
            ? h('td', { attrs: label('Limit hit') }, h('span', { class: 'badge limit' }, limit))
            : h('td', {}),
        );
      }),
    );
  }

  let delay = REFRESH_MS;
  let seen = '';
  const refresh = async (signal: AbortSignal): Promise<void> => {
    try {
      runs = await ctx.api.listRuns(status || undefined, signal);
      // A full first page may have more behind it; once older pages are shown, the button says
      // whether the last of them was full.
      if (older.length === 0) olderButton.hidden = runs.length < RUNS_PAGE;
      const key = JSON.stringify(runs);
      delay = key === seen ? Math.min(delay * 2, IDLE_REFRESH_MS) : REFRESH_MS;
      seen = key;
      ctx.report(undefined);
      updated.textContent = `updated ${new Date().toLocaleTimeString()}`;
      draw();
    } catch (err) {
      if (!signal.aborted) ctx.report(err);
    }
  };
  const next = (): number => delay;
  let stop = every(next, refresh);
  const stopAndRestart = (): void => {
    stop();
    delay = REFRESH_MS;
    const q = new URLSearchParams();
    if (status) q.set('status', status);
    if (scope) q.set('scope', scope);
    const qs = q.toString();
    history.replaceState(null, '', `#/runs${qs === '' ? '' : `?${qs}`}`);
    stop = every(next, refresh);
  };
  // An approval asked or decided changes a run's row: read at once (the first push is skipped).
  let pushes = 0;
  const stopFeed = ctx.onPending(() => {
    if (pushes++ > 0) stopAndRestart();
  });

  const root = h(
    'section',
    { class: 'runs' },
    h('div', { class: 'toolbar' }, h('h2', {}, 'Runs'), chips, scopeSelect, updated),
    h(
      'table',
      { class: 'list' },
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          ['Status', 'Run', 'Scope', 'Started', 'Duration', 'Calls', 'Approvals', 'Limit hit'].map(
            (t) => h('th', {}, t),
          ),
        ),
      ),
      body,
    ),
    h('p', { class: 'more' }, olderButton),
  );
  return {
    root,
    dispose: () => {
      stop();
      stopFeed();
    },
  };
}
