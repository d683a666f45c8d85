/**
 * A table of approvals: pending ones with approve / reject buttons and a checkbox each (approve or
 * reject the selected ones at once, through the batch API); decided ones with who and when.
 */
import type { ApprovalView } from '../api.js';
import { h, statusBadge } from '../dom.js';
import { decidedBy, formatAgo, formatTime, jsonPretty } from '../format.js';
import type { ViewContext } from './view.js';

/** Options of {@link approvalsTable}. */
export interface ApprovalsTableOptions {
  /** Show the run column (off inside a run's own page). */
  showRun: boolean;
  /** Called after a decision was posted. */
  onDecided: () => void;
  /** The ids checked before a redraw (kept across refreshes). */
  selected?: Set<string> | undefined;
}

/** Renders approvals; pending ones get actions. */
export function approvalsTable(
  ctx: ViewContext,
  approvals: readonly ApprovalView[],
  options: ApprovalsTableOptions,
): HTMLElement {
  const selected = options.selected ?? new Set<string>();
  const pending = approvals.filter((a) => a.status === 'pending');
  const decided = approvals.filter((a) => a.status !== 'pending');
  for (const id of [...selected]) if (!pending.some((a) => a.id === id)) selected.delete(id);

  const decide = (
    ids: string[],
    decision: 'allowed-once' | 'rejected',
    buttons: HTMLButtonElement[],
  ): void => {
    if (ids.length === 0) return;
    for (const b of buttons) b.disabled = true;
    ctx.api
      .decide(ids, decision)
      .then(() => {
        for (const id of ids) selected.delete(id);
        ctx.report(undefined);
      })
      .catch((err: unknown) => ctx.report(err))
      .finally(() => options.onDecided());
  };

  const batchCount = h('span', { class: 'muted' });
  const approveSel = h(
    'button',
    { type: 'button', class: 'primary', data: { action: 'approve-selected' } },
    'Approve selected',
  );
  const rejectSel = h(
    'button',
    { type: 'button', class: 'danger', data: { action: 'reject-selected' } },
    'Reject selected',
  );
  const syncBatch = (): void => {
    batchCount.textContent = `${selected.size} selected`;
    approveSel.disabled = rejectSel.disabled = selected.size === 0;
  };
  approveSel.addEventListener('click', () =>
    decide([...selected], 'allowed-once', [approveSel, rejectSel]),
  );
  rejectSel.addEventListener('click', () =>
    decide([...selected], 'rejected', [approveSel, rejectSel]),
  );
  syncBatch();

  const byCell = (by: string | undefined): HTMLElement => {
    const who = decidedBy(by);
    return h('td', { class: 'by', data: { testid: 'decided-by' }, title: who.detail }, who.label);
  };
  const args = (a: ApprovalView): HTMLElement =>
    h('pre', { class: 'json small' }, jsonPretty(a.args));
  const runCell = (a: ApprovalView): HTMLElement | null =>
    options.showRun
      ? h('td', {}, h('a', { href: `#/runs/${encodeURIComponent(a.runId)}`, class: 'id' }, a.runId))
      : null;

  const pendingRows = pending.map((a) => {
    const approve = h(
      'button',
      { type: 'button', class: 'primary', data: { action: 'approve' } },
      'Approve',
    );
    const reject = h(
      'button',
      { type: 'button', class: 'danger', data: { action: 'reject' } },
      'Reject',
    );
    approve.addEventListener('click', () => decide([a.id], 'allowed-once', [approve, reject]));
    reject.addEventListener('click', () => decide([a.id], 'rejected', [approve, reject]));
    const box = h('input', {
      type: 'checkbox',
      checked: selected.has(a.id),
      attrs: { 'aria-label': `select approval ${a.id}` },
      onchange: () => {
        if (box.checked) selected.add(a.id);
        else selected.delete(a.id);
        syncBatch();
      },
    });
    return h(
      'tr',
      { data: { approvalId: a.id, tool: a.tool } },
      h('td', {}, box),
      h('td', { class: 'tool' }, a.tool),
      h('td', {}, args(a)),
      h('td', {}, a.reason),
      runCell(a),
      h('td', { title: formatTime(a.createdAt) }, formatAgo(a.createdAt, Date.now())),
      h('td', { class: 'actions' }, approve, reject),
    );
  });

  const decidedRows = decided.map((a) =>
    h(
      'tr',
      { data: { approvalId: a.id, tool: a.tool } },
      h('td', { class: 'tool' }, a.tool),
      h('td', {}, args(a)),
      h('td', {}, statusBadge(a.status)),
      byCell(a.decidedBy),
      h('td', { title: formatTime(a.decidedAt) }, formatTime(a.decidedAt)),
      runCell(a),
    ),
  );

  const head = (cols: (string | null)[]): HTMLElement =>
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        cols.filter((c) => c !== null).map((c) => h('th', {}, c)),
      ),
    );
  return h(
    'div',
    { class: 'approvals-table' },
    pending.length === 0
      ? h('p', { class: 'muted', data: { testid: 'no-pending' } }, 'No pending approvals.')
      : [
          h('div', { class: 'toolbar batch' }, batchCount, approveSel, rejectSel),
          h(
            'table',
            { class: 'list', data: { testid: 'pending' } },
            head(['', 'Tool', 'Arguments', 'Reason', options.showRun ? 'Run' : null, 'Asked', '']),
            h('tbody', {}, pendingRows),
          ),
        ],
    decided.length === 0
      ? null
      : [
          h('h4', {}, 'Decided'),
          h(
            'table',
            { class: 'list', data: { testid: 'decided' } },
            head(['Tool', 'Arguments', 'Decision', 'By', 'When', options.showRun ? 'Run' : null]),
            h('tbody', {}, decidedRows),
          ),
        ],
  );
}
