/** Approvals: pending ones to decide (one or several at once), decided ones with who and when. */
import type { ApprovalView } from '../api.js';
import { h, replace } from '../dom.js';
import { approvalsTable } from './approvals-table.js';
import { every, type View, type ViewContext } from './view.js';

/** How often the list is read again. */
const REFRESH_MS = 2_000;

/** The approvals view. */
export function approvalsView(ctx: ViewContext): View {
  const box = h('div', { class: 'card' });
  const selected = new Set<string>();
  let shown = '';
  let approvals: ApprovalView[] = [];

  const draw = (): void => {
    replace(
      box,
      approvalsTable(ctx, approvals, {
        showRun: true,
        selected,
        onDecided: () => void refresh(new AbortController().signal, true),
      }),
    );
  };
  const refresh = async (signal: AbortSignal, force = false): Promise<void> => {
    try {
      const list = await ctx.api.listApprovals(true, signal);
      ctx.report(undefined);
      // Newest first; pending before decided (the table splits them).
      approvals = list.sort((a, b) => (b.decidedAt ?? b.createdAt) - (a.decidedAt ?? a.createdAt));
      ctx.pendingApprovals(approvals.filter((a) => a.status === 'pending').length);
      const key = JSON.stringify(approvals);
      // Redraw only on change: a redraw under the pointer would swallow a click.
      if (force || key !== shown) {
        shown = key;
        draw();
      }
    } catch (err) {
      if (!signal.aborted) ctx.report(err);
    }
  };
  const stop = every(REFRESH_MS, refresh);
  const root = h(
    'section',
    { class: 'approvals' },
    h('div', { class: 'toolbar' }, h('h2', {}, 'Approvals')),
    box,
  );
  return { root, dispose: stop };
}
