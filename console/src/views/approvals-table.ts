/**
 * A table of approvals: pending ones with approve / reject buttons and a checkbox each (approve or
 * reject the selected ones at once, through the batch API; a header box selects all); decided ones
 * with who and when.
 *
 * Rows are keyed by approval id and updated in place: a row that stays is never rebuilt or moved
 * (keyboard focus and the row under the pointer survive every update), a new one is appended (the
 * list is oldest first), a settled one is removed. "Asked" times are re-rendered by {@link tick}.
 */
import type { ApprovalView, RunView } from '../api.js';
import { append, codeBlock, damagedMark, h, replace, statusBadge } from '../dom.js';
import { decidedBy, formatAgo, formatTime, jsonPretty } from '../format.js';
import type { ViewContext } from './view.js';

/** Options of {@link ApprovalsTable}. */
export interface ApprovalsTableOptions {
  /** Show the run column (off inside a run's own page). */
  showRun: boolean;
  /** Called after a decision was posted. */
  onDecided: () => void;
}

/** How many asking runs the table keeps read (their description and program). */
const MAX_RUNS_KEPT = 300;

interface PendingRow {
  row: HTMLTableRowElement;
  asked: HTMLTableCellElement;
  box: HTMLInputElement;
  buttons: HTMLButtonElement[];
  createdAt: number;
}

/** Pending and decided approvals, updated in place. */
export class ApprovalsTable {
  readonly root: HTMLElement;
  readonly #ctx: ViewContext;
  readonly #options: ApprovalsTableOptions;
  readonly #selected = new Set<string>();
  /** Each asking run read once (its description and program shown beside its asks). */
  readonly #runs = new Map<string, Promise<RunView | undefined>>();
  readonly #pending = new Map<string, PendingRow>();
  readonly #pendingBody = h('tbody');
  readonly #pendingBox: HTMLElement;
  readonly #none = h(
    'p',
    { class: 'muted', data: { testid: 'no-pending' } },
    'No pending approvals.',
  );
  readonly #decidedBody = h('tbody');
  readonly #decidedBox: HTMLElement;
  readonly #batchCount = h('span', { class: 'muted', data: { testid: 'selected-count' } });
  readonly #all: HTMLInputElement;
  readonly #approveSel: HTMLButtonElement;
  readonly #rejectSel: HTMLButtonElement;

  constructor(ctx: ViewContext, options: ApprovalsTableOptions, more?: HTMLElement) {
    this.#ctx = ctx;
    this.#options = options;
    this.#approveSel = h(
      'button',
      { type: 'button', class: 'primary', data: { action: 'approve-selected' } },
      'Approve selected',
    );
    this.#rejectSel = h(
      'button',
      { type: 'button', class: 'danger', data: { action: 'reject-selected' } },
      'Reject selected',
    );
    this.#approveSel.addEventListener('click', () => this.#decideSelected('allowed-once'));
    this.#rejectSel.addEventListener('click', () => this.#decideSelected('rejected'));
    this.#all = h('input', {
      type: 'checkbox',
      data: { action: 'select-all' },
      attrs: { 'aria-label': 'select all pending approvals' },
      onchange: () => {
        for (const [id, r] of this.#pending) {
          r.box.checked = this.#all.checked;
          if (this.#all.checked) this.#selected.add(id);
          else this.#selected.delete(id);
        }
        this.#syncBatch();
      },
    });
    const run = options.showRun;
    this.#pendingBox = h(
      'div',
      {},
      h(
        'div',
        { class: 'toolbar batch' },
        h('label', { class: 'select-all' }, this.#all, ' all'),
        this.#batchCount,
        this.#approveSel,
        this.#rejectSel,
      ),
      h(
        'table',
        { class: 'list approvals', data: { testid: 'pending' } },
        head(['', 'Tool', 'Arguments', 'Reason', run ? 'Run' : null, 'Asked', '']),
        this.#pendingBody,
      ),
    );
    this.#decidedBox = h(
      'div',
      {},
      h('h4', {}, 'Decided'),
      h(
        'table',
        { class: 'list approvals', data: { testid: 'decided' } },
        head(['Tool', 'Arguments', 'Decision', 'By', 'When', run ? 'Run' : null]),
        this.#decidedBody,
      ),
      more,
    );
    this.root = h(
      'div',
      { class: 'approvals-table' },
      this.#none,
      this.#pendingBox,
      this.#decidedBox,
    );
    this.update([], []);
  }

  /** Shows these approvals: pending ones oldest first (kept rows stay put), decided as given. */
  update(pending: readonly ApprovalView[], decided: readonly ApprovalView[]): void {
    const ids = new Set(pending.map((a) => a.id));
    for (const [id, r] of this.#pending)
      if (!ids.has(id)) {
        r.row.remove();
        this.#pending.delete(id);
        this.#selected.delete(id);
      }
    for (const a of pending)
      if (!this.#pending.has(a.id)) {
        const r = this.#pendingRow(a);
        this.#pending.set(a.id, r);
        this.#pendingBody.appendChild(r.row);
      }
    this.#none.hidden = pending.length > 0;
    this.#pendingBox.hidden = pending.length === 0;
    this.#syncBatch();
    // Decided rows have no controls but the run link: redrawn whole.
    replace(
      this.#decidedBody,
      decided.map((a) => this.#decidedRow(a)),
    );
    this.#decidedBox.hidden = decided.length === 0;
  }

  /** Re-renders the "Asked" times (no request). */
  tick(now = Date.now()): void {
    for (const r of this.#pending.values()) r.asked.textContent = formatAgo(r.createdAt, now);
  }

  #syncBatch(): void {
    this.#batchCount.textContent = `${this.#selected.size} selected`;
    this.#approveSel.disabled = this.#rejectSel.disabled = this.#selected.size === 0;
    this.#all.checked = this.#pending.size > 0 && this.#selected.size === this.#pending.size;
  }

  #decideSelected(decision: 'allowed-once' | 'rejected'): void {
    const ids = [...this.#selected];
    const buttons = [this.#approveSel, this.#rejectSel];
    for (const id of ids) buttons.push(...(this.#pending.get(id)?.buttons ?? []));
    this.#decide(ids, decision, buttons);
  }

  #decide(
    ids: string[],
    decision: 'allowed-once' | 'rejected',
    buttons: HTMLButtonElement[],
  ): void {
    if (ids.length === 0) return;
    for (const b of buttons) b.disabled = true;
    this.#ctx.api
      .decide(ids, decision)
      .then(() => {
        for (const id of ids) this.#selected.delete(id);
        this.#ctx.report(undefined);
      })
      .catch((err: unknown) => {
        for (const b of buttons) b.disabled = false;
        this.#ctx.report(err);
      })
      .finally(() => {
        this.#syncBatch();
        this.#options.onDecided();
      });
  }

  #runCell(a: ApprovalView, withProgram = false): HTMLElement | null {
    if (!this.#options.showRun) return null;
    const cell = h(
      'td',
      { class: 'run-cell', attrs: { 'data-label': 'Run' } },
      h('a', { href: `#/runs/${encodeURIComponent(a.runId)}`, class: 'id' }, a.runId),
    );
    // A pending ask shows what asks: the run's description, and its program one click away.
    if (withProgram) void this.#describe(cell, a.runId);
    return cell;
  }

  async #describe(cell: HTMLElement, runId: string): Promise<void> {
    let pending = this.#runs.get(runId);
    if (pending === undefined) {
      pending = this.#ctx.api.getRun(runId).catch(() => undefined);
      this.#runs.set(runId, pending);
      // A tab left open for days sees many runs: keep the most recent few hundred.
      if (this.#runs.size > MAX_RUNS_KEPT)
        this.#runs.delete(this.#runs.keys().next().value as string);
    }
    const run = await pending;
    if (run === undefined) return;
    append(
      cell,
      h(
        'div',
        { class: 'run-description', data: { testid: 'ask-description' } },
        run.description || '(no description)',
      ),
      typeof run.program === 'string'
        ? h(
            'details',
            { class: 'ask-program', data: { testid: 'ask-program' } },
            h('summary', {}, 'Program'),
            codeBlock(run.program),
          )
        : null,
    );
  }

  #pendingRow(a: ApprovalView): PendingRow {
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
    approve.addEventListener('click', () =>
      this.#decide([a.id], 'allowed-once', [approve, reject]),
    );
    // What it shows is not what was asked: the store refuses to allow it, so the button says so.
    if (a.damaged !== undefined) {
      approve.disabled = true;
      approve.title = 'Its stored record cannot be read whole: it can be rejected, not approved.';
    }
    reject.addEventListener('click', () => this.#decide([a.id], 'rejected', [approve, reject]));
    const box = h('input', {
      type: 'checkbox',
      attrs: { 'aria-label': `select approval ${a.id}` },
      onchange: () => {
        if (box.checked) this.#selected.add(a.id);
        else this.#selected.delete(a.id);
        this.#syncBatch();
      },
    });
    const asked = h(
      'td',
      { class: 'asked', title: formatTime(a.createdAt), attrs: { 'data-label': 'Asked' } },
      formatAgo(a.createdAt, Date.now()),
    );
    const row = h(
      'tr',
      { data: { approvalId: a.id, tool: a.tool } },
      h('td', { class: 'pick' }, box),
      h('td', { class: 'tool', attrs: { 'data-label': 'Tool' } }, a.tool, damagedMark(a.damaged)),
      h('td', { attrs: { 'data-label': 'Arguments' } }, args(a)),
      h('td', { attrs: { 'data-label': 'Reason' } }, a.reason),
      this.#runCell(a, true),
      asked,
      h('td', { class: 'actions' }, approve, reject),
    );
    return { row, asked, box, buttons: [approve, reject], createdAt: a.createdAt };
  }

  #decidedRow(a: ApprovalView): HTMLElement {
    const who = decidedBy(a.decidedBy);
    return h(
      'tr',
      { data: { approvalId: a.id, tool: a.tool } },
      h('td', { class: 'tool', attrs: { 'data-label': 'Tool' } }, a.tool, damagedMark(a.damaged)),
      h('td', { attrs: { 'data-label': 'Arguments' } }, args(a)),
      h('td', { attrs: { 'data-label': 'Decision' } }, statusBadge(a.status)),
      h(
        'td',
        {
          class: 'by',
          data: { testid: 'decided-by' },
          title: who.detail,
          attrs: { 'data-label': 'By' },
        },
        who.label,
      ),
      h(
        'td',
        { title: formatTime(a.decidedAt), attrs: { 'data-label': 'When' } },
        formatTime(a.decidedAt),
      ),
      this.#runCell(a),
    );
  }
}

const args = (a: ApprovalView): HTMLElement =>
  h('pre', { class: 'json small' }, jsonPretty(a.args));

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
