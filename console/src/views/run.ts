/**
 * One run: its program, the timeline of its nested calls, its logs as they arrive (the run's SSE
 * events), its pending approvals, and the result or the error with its kind; a cancel button.
 */
import { ApiError, type ApprovalView, type RunView } from '../api.js';
import { codeBlock, damagedMark, h, replace, statusBadge } from '../dom.js';
import {
  formatDuration,
  formatTime,
  isFinal,
  jsonPreview,
  limitHit,
  runError,
  num,
  prop,
  str,
} from '../format.js';
import { ApprovalsTable } from './approvals-table.js';
import { LogPanel } from './logs.js';
import { fromResult, showOutcome, type LogLine } from './outcome.js';
import { Timeline } from './timeline.js';
import type { View, ViewContext } from './view.js';

/** The run view. */
export function runView(ctx: ViewContext, id: string): View {
  const controller = new AbortController();
  const { signal } = controller;
  let run: RunView | undefined;
  const timeline = new Timeline();
  const logs = new LogPanel();
  let typecheck = '';
  let approvals: ApprovalView[] = [];

  const header = h('div', { class: 'run-header' });
  const program = h('div', { class: 'card' });
  const outcome = h('div', { class: 'card', data: { testid: 'outcome' } });
  const approvalsBox = h('div', { class: 'card' });
  const live = h('span', { class: 'live', data: { testid: 'live' } }, 'connecting…');

  const drawHeader = (): void => {
    if (!run) return;
    const r = run;
    const cancel = h(
      'button',
      {
        type: 'button',
        class: 'danger',
        disabled: isFinal(r.status),
        data: { action: 'cancel' },
        onclick: () => {
          cancel.disabled = true;
          ctx.api
            .cancelRun(r.id)
            .then((v) => {
              run = { ...r, ...v };
              drawAll();
            })
            .catch((err: unknown) => ctx.report(err));
        },
      },
      'Cancel run',
    );
    const end = r.finishedAt ?? (isFinal(r.status) ? r.updatedAt : undefined);
    const limit = limitHit(r);
    replace(
      header,
      h(
        'div',
        { class: 'run-title' },
        h('a', { href: '#/runs', class: 'back' }, '← Runs'),
        h('h2', {}, r.description || '(no description)'),
        statusBadge(r.status),
        damagedMark(r.damaged),
        limit ? h('span', { class: 'badge limit' }, `limit: ${limit}`) : null,
        live,
        cancel,
      ),
      h(
        'dl',
        { class: 'meta' },
        h('dt', {}, 'Run'),
        h('dd', { class: 'id' }, r.id),
        h('dt', {}, 'Scope'),
        h('dd', {}, r.scope),
        h('dt', {}, 'Created'),
        h('dd', {}, formatTime(r.createdAt)),
        h('dt', {}, 'Duration'),
        h('dd', {}, formatDuration((end ?? Date.now()) - (r.startedAt ?? r.createdAt))),
        typecheck ? [h('dt', {}, 'Type-check'), h('dd', {}, typecheck)] : null,
      ),
    );
  };

  /** The line (program coordinates) the run failed at, with what the human hovers to read. */
  const failure = (): { line: number; note: string } | undefined => {
    const err = run ? runError(run) : undefined;
    const details = prop(prop(run?.error ?? prop(run?.result, 'error'), 'details'), 'line');
    const line = num(details);
    if (!err || line === undefined) return undefined;
    const message = typeof err.message === 'string' ? err.message : err.message.text;
    return { line, note: `${err.kind ?? err.code}: ${message}` };
  };

  let drawnFailure: number | undefined;
  const drawProgram = (): void => {
    const fail = failure();
    drawnFailure = fail?.line;
    replace(
      program,
      h('h3', {}, 'Program'),
      typeof run?.program === 'string'
        ? codeBlock(run.program, fail)
        : h('p', { class: 'muted' }, 'The API does not show this run’s program.'),
    );
  };

  const drawTimeline = (): void => timeline.draw(approvals);

  const drawOutcome = (): void => showOutcome(outcome, run);

  const approvalsTable = new ApprovalsTable(ctx, {
    showRun: false,
    onDecided: () => void loadApprovals(),
  });
  replace(approvalsBox, h('h3', {}, 'Approvals'), approvalsTable.root);
  approvalsBox.hidden = true;
  const drawApprovals = (): void => {
    drawTimeline();
    approvalsTable.update(
      approvals.filter((a) => a.status === 'pending'),
      approvals.filter((a) => a.status !== 'pending'),
    );
    approvalsBox.hidden = approvals.length === 0;
  };

  const addLog = (line: LogLine): void => logs.add(line);

  const drawAll = (): void => {
    drawHeader();
    drawTimeline();
    drawOutcome();
    drawApprovals();
  };

  /**
   * Once the event stream is over: fills the timeline and logs from the settled result, but only
   * what no event carried (the stream replays a run from its first event, so a settled run's
   * lines and calls come from it, each once; the result is the fallback when none did).
   */
  const backfill = (): void => {
    if (!run || !isFinal(run.status)) return;
    const settled = fromResult(run.result);
    timeline.backfill(settled.calls);
    if (logs.count === 0) for (const l of settled.logs) addLog(l);
    drawTimeline();
  };

  /** A run that does not exist, or is of another scope (the API cannot tell them apart). */
  const notFound = (): void => {
    controller.abort();
    replace(
      root,
      h(
        'div',
        { class: 'card not-found', data: { testid: 'not-found' } },
        h('h2', {}, 'Run not found'),
        h('p', {}, 'There is no run ', h('span', { class: 'id' }, id), ' in your scope.'),
        h('p', {}, h('a', { href: '#/runs', data: { action: 'back' } }, '← Back to the runs')),
      ),
    );
  };

  const loadRun = async (): Promise<void> => {
    try {
      run = await ctx.api.getRun(id, signal);
      ctx.report(undefined);
      drawAll();
      // Drawn once, and again when the run's failure names a line not marked yet.
      if (!program.hasChildNodes() || failure()?.line !== drawnFailure) drawProgram();
    } catch (err) {
      if (signal.aborted) return;
      if (err instanceof ApiError && err.status === 404 && err.code === 'NOT_FOUND' && !run)
        return notFound();
      ctx.report(err);
    }
  };

  const loadApprovals = async (): Promise<void> => {
    try {
      approvals = await ctx.api.runApprovals(id, signal);
      drawApprovals();
    } catch (err) {
      if (!signal.aborted) ctx.report(err);
    }
  };

  const onEvent = (type: string, data: unknown): 'stop' | void => {
    switch (type) {
      case 'status': {
        const s = str(prop(data, 'status'));
        if (run && s) run.status = s;
        drawHeader();
        drawOutcome();
        break;
      }
      case 'typecheck':
        typecheck = `${prop(data, 'ok') === false ? 'failed' : 'ok'} in ${formatDuration(num(prop(data, 'ms')))}`;
        drawHeader();
        break;
      case 'log':
        addLog({
          level: str(prop(data, 'level')) ?? 'log',
          text: str(prop(data, 'text')) ?? jsonPreview(data),
        });
        break;
      case 'call-start':
        timeline.start(data);
        drawTimeline();
        break;
      case 'call-running':
        timeline.running(data);
        drawTimeline();
        break;
      case 'call-end':
        timeline.end(data);
        drawTimeline();
        break;
      case 'approval':
        void loadApprovals();
        break;
      case 'result':
        void loadRun().then(backfill);
        return 'stop';
      default:
        break;
    }
  };

  let reconnected = false;
  const follow = async (): Promise<void> => {
    await loadRun();
    if (signal.aborted) return;
    await loadApprovals();
    if (signal.aborted) return;
    await ctx.api.followEvents(
      id,
      (event) => {
        let data: unknown;
        try {
          data = JSON.parse(event.data);
        } catch {
          data = event.data;
        }
        return onEvent(event.type, data);
      },
      (state, error) => {
        live.textContent =
          state === 'live' ? '● live' : state === 'reconnecting' ? 'reconnecting…' : 'ended';
        live.dataset['state'] = state;
        if (error?.status === 404) return notFound();
        if (error) ctx.report(error);
        // Live again after a failure: the "cannot be reached" banner goes, the run is read anew.
        if (state === 'live' && reconnected) {
          ctx.report(undefined);
          void loadRun();
        }
        // A stream that ended without a result: the run may have settled meanwhile.
        if (state === 'reconnecting') {
          reconnected = true;
          void loadRun().then(() => {
            if (run && isFinal(run.status)) {
              controller.abort();
              backfill();
            }
          });
        }
        if (state === 'closed') void loadRun().then(backfill);
      },
      signal,
    );
  };
  void follow();

  drawTimeline();
  drawOutcome();
  const root = h(
    'section',
    { class: 'run', data: { runId: id } },
    header,
    approvalsBox,
    h(
      'div',
      { class: 'columns' },
      h(
        'div',
        { class: 'column' },
        program,
        h('div', { class: 'card' }, h('h3', {}, 'Nested calls'), timeline.table),
      ),
      h('div', { class: 'column' }, logs.root, outcome),
    ),
  );
  return { root, dispose: () => controller.abort() };
}
