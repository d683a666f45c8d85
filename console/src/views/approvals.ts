/**
 * Approvals: pending ones to decide (one or several at once), oldest first, and the latest
 * decisions, newest first, paged ("Show older"). Nothing is polled: the list is read again when
 * the server pushes a change of the pending set (the shell's feed), and the "Asked" times are
 * re-rendered locally.
 */
import type { ApprovalView } from '../api.js';
import { h } from '../dom.js';
import { ApprovalsTable } from './approvals-table.js';
import { every, type View, type ViewContext } from './view.js';

/** How many pending approvals the view shows (the API's page). */
const PENDING_PAGE = 100;
/** How many decided approvals a page shows. */
const DECIDED_PAGE = 20;
/** How often the "Asked" times are re-rendered (no request). */
const TICK_MS = 15_000;

/** The approvals view. */
export function approvalsView(ctx: ViewContext): View {
  const controller = new AbortController();
  const { signal } = controller;
  let decided: ApprovalView[] = [];
  let decidedNext: string | undefined;
  let pending: ApprovalView[] = [];
  let reading: Promise<void> | undefined;
  let again = false;

  const older = h(
    'button',
    {
      type: 'button',
      class: 'link-button',
      data: { action: 'older' },
      onclick: () => void loadOlder(),
    },
    'Show older decisions',
  );
  const more = h('p', { class: 'muted', data: { testid: 'more-pending' } });
  more.hidden = true;
  const table = new ApprovalsTable(ctx, { showRun: true, onDecided: () => void read() }, older);
  const draw = (): void => {
    table.update(pending, decided);
    older.hidden = decidedNext === undefined;
  };

  /** Reads the pending page and the newest decided page; one read at a time, the last one wins. */
  const read = (): Promise<void> => {
    if (reading) {
      again = true;
      return reading;
    }
    reading = (async () => {
      do {
        again = false;
        try {
          const [p, d] = await Promise.all([
            ctx.api.listApprovals({ status: 'pending', limit: PENDING_PAGE }, signal),
            ctx.api.listApprovals(
              { status: 'decided', order: 'newest', limit: Math.max(DECIDED_PAGE, decided.length) },
              signal,
            ),
          ]);
          pending = p.approvals;
          decided = d.approvals;
          decidedNext = d.next;
          ctx.report(undefined);
          draw();
        } catch (err) {
          if (!signal.aborted) ctx.report(err);
        }
      } while (again && !signal.aborted);
      reading = undefined;
    })();
    return reading;
  };

  const loadOlder = async (): Promise<void> => {
    if (decidedNext === undefined) return;
    try {
      const d = await ctx.api.listApprovals(
        { status: 'decided', order: 'newest', limit: DECIDED_PAGE, after: decidedNext },
        signal,
      );
      decided = [...decided, ...d.approvals];
      decidedNext = d.next;
      draw();
    } catch (err) {
      if (!signal.aborted) ctx.report(err);
    }
  };

  void read();
  // Read again whenever the pushed pending set differs from the one shown (a read in flight
  // is followed by one more).
  const stopFeed = ctx.onPending((ids) => {
    // More pending than one page: say so (the oldest are shown; deciding them brings the rest).
    more.textContent =
      ids.length > PENDING_PAGE
        ? `Showing the oldest ${PENDING_PAGE} of ${ids.length} pending approvals.`
        : '';
    more.hidden = ids.length <= PENDING_PAGE;
    if (
      reading !== undefined ||
      ids.slice(0, PENDING_PAGE).join(',') !== pending.map((a) => a.id).join(',')
    )
      void read();
  });
  const stopTick = every(TICK_MS, () => {
    table.tick();
    return Promise.resolve();
  });
  const root = h(
    'section',
    { class: 'approvals' },
    h('div', { class: 'toolbar' }, h('h2', {}, 'Approvals')),
    h('div', { class: 'card' }, more, table.root),
  );
  return {
    root,
    dispose: () => {
      controller.abort();
      stopFeed();
      stopTick();
    },
  };
}
