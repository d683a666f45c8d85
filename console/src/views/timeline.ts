/**
 * The timeline of a run's nested calls, built from the run's events as they arrive (or from the
 * settled result when the events carried none): `call-start` (the call's number, arguments and
 * executor id), `call-running` (its body started), `call-end`. A call is queued from its start
 * until its body runs, and waiting for approval while an approval whose `callKey` is its id is
 * pending: matched by call id, never by tool name.
 */
import type { ApprovalView, CallView } from '../api.js';
import { h, replace } from '../dom.js';
import {
  clipParts,
  formatDuration,
  jsonPretty,
  jsonPreview,
  num,
  prop,
  Shown,
  str,
} from '../format.js';
import { visibleJsonTextParts, visibleParts } from '../../../src/text/visible.js';

type CallState = 'queued' | 'running' | 'ok' | 'error';

interface CallRow {
  seq: number | undefined;
  callId: string | undefined;
  name: string;
  args: unknown;
  state: CallState;
  code: string | undefined;
  durationMs: number | undefined;
  parent: string | undefined;
  /** Epoch ms of call-start, call-running and call-end, where the events carried them. */
  startAt?: number | undefined;
  runningAt?: number | undefined;
  endAt?: number | undefined;
  /** The value (ok) as the event carried it, or the error's message. */
  result?: unknown;
  message?: string | undefined;
}

/** How many characters of a result the cell shows before it is expanded. */
const RESULT_CHARS = 60;

/** How many characters of the arguments a row shows (the tooltip has them all). */
const ARGS_CHARS = 80;

/** Arguments as a cell shows them: a truncated event preview (`{ truncated, head }`) as its head. */
function argsCell(args: unknown): { text: Shown; title: Shown | string } {
  if (args === undefined) return { text: new Shown([{ text: '–', escaped: false }]), title: '' };
  const head = prop(args, 'truncated') === true ? str(prop(args, 'head')) : undefined;
  if (head !== undefined) {
    // The head of the JSON text (the event cut it): its hidden characters as JSON escapes.
    const parts = visibleJsonTextParts(head);
    const cut = clipParts(parts, ARGS_CHARS);
    return {
      text: cut.text.endsWith('…') ? cut : new Shown([...cut.parts, { text: '…', escaped: false }]),
      title: `${new Shown(parts).text}… (${num(prop(args, 'chars')) ?? '?'} characters)`,
    };
  }
  return { text: jsonPreview(args, ARGS_CHARS), title: jsonPretty(args) };
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
        ['#', 'Tool', 'Arguments', 'Outcome', 'Waited', 'Ran', 'Result', 'Parent'].map((t) =>
          h('th', {}, t),
        ),
      ),
    ),
    this.#body,
  );

  /** True once any call arrived (from events or the result). */
  get filled(): boolean {
    return this.#rows.length > 0;
  }

  /**
   * A `call-start` event's data. A durable run that resumes (after a park, a crash or a hand-over)
   * replays its program, and each call starts again with the same call id: one row per call id.
   */
  start(data: unknown): void {
    const callId = str(prop(data, 'callId'));
    const seq = num(prop(data, 'seq'));
    const name = str(prop(data, 'name')) ?? '?';
    // The same call in another life: its id, or its number and tool where a life had no id for it
    // yet (a call queued behind another is named when it is dispatched).
    const known =
      this.#rows.find((c) => callId !== undefined && c.callId === callId) ??
      this.#rows.find(
        (c) =>
          seq !== undefined &&
          c.seq === seq &&
          c.name === name &&
          (c.callId === undefined || callId === undefined),
      );
    if (known !== undefined) {
      known.callId ??= callId;
      if (known.state !== 'ok') known.state = 'queued';
      return;
    }
    this.#rows.push({
      seq,
      callId,
      name,
      args: prop(data, 'args'),
      state: 'queued',
      code: undefined,
      durationMs: undefined,
      parent: str(prop(data, 'parent')),
      startAt: num(prop(data, 'at')),
    });
  }

  /** A `call-running` event's data: the body of that call started. */
  running(data: unknown): void {
    const id = str(prop(data, 'callId'));
    const row = this.#rows.find((c) => id !== undefined && c.callId === id);
    if (row && row.state === 'queued') {
      row.state = 'running';
      row.runningAt = num(prop(data, 'at'));
    }
  }

  /** A `call-end` event's data: settles its call (by number; by tool for older events). */
  end(data: unknown): void {
    const seq = num(prop(data, 'seq'));
    const name = str(prop(data, 'name')) ?? '?';
    const patch = {
      state: prop(data, 'ok') === false ? ('error' as const) : ('ok' as const),
      code: str(prop(data, 'code')),
      durationMs: num(prop(data, 'durationMs')),
      endAt: num(prop(data, 'at')),
      result: prop(data, 'result'),
      message: str(prop(data, 'message')),
    };
    const row =
      seq !== undefined
        ? this.#rows.find((c) => c.seq === seq)
        : this.#rows.find(
            (c) => (c.state === 'running' || c.state === 'queued') && c.name === name,
          );
    if (row) Object.assign(row, patch);
    else
      this.#rows.push({
        seq,
        callId: undefined,
        name,
        args: prop(data, 'args'),
        parent: str(prop(data, 'parent')),
        ...patch,
      });
  }

  /** Fills in from a settled run's result, when no event carried any call. */
  backfill(settled: readonly CallView[]): void {
    if (this.#rows.length > 0) return;
    for (const c of settled)
      this.#rows.push({
        seq: undefined,
        callId: undefined,
        name: c.name,
        args: c.args,
        state: c.ok === false ? 'error' : 'ok',
        code: c.code,
        durationMs: c.durationMs,
        parent: c.parent,
      });
  }

  /** Redraws; a call with a pending approval (matched by call id) shows as waiting for it. */
  draw(approvals: readonly ApprovalView[]): void {
    const rows = this.#rows;
    if (rows.length === 0) {
      replace(
        this.#body,
        h('tr', {}, h('td', { class: 'empty', attrs: { colspan: '8' } }, 'No nested calls yet.')),
      );
      return;
    }
    const waiting = new Set(
      approvals.filter((a) => a.status === 'pending').map((a) => a.callKey ?? ''),
    );
    replace(
      this.#body,
      rows.map((c, i) => {
        const parked =
          c.callId !== undefined &&
          c.state !== 'ok' &&
          c.state !== 'error' &&
          waiting.has(c.callId);
        const state = parked ? 'waiting-approval' : c.state;
        const args = argsCell(c.args);
        return h(
          'tr',
          { data: { call: c.name, state, ...(c.callId ? { callId: c.callId } : {}) } },
          h('td', { class: 'num', attrs: { 'data-label': '#' } }, c.seq ?? i + 1),
          h('td', { class: 'tool', attrs: { 'data-label': 'Tool' } }, c.name),
          h(
            'td',
            { class: 'args', title: args.title, attrs: { 'data-label': 'Arguments' } },
            args.text,
          ),
          h('td', { attrs: { 'data-label': 'Outcome' } }, outcome(state, c.code)),
          h(
            'td',
            { class: 'num waited', attrs: { 'data-label': 'Waited' } },
            formatDuration(waited(c)),
          ),
          h('td', { class: 'num ran', attrs: { 'data-label': 'Ran' } }, formatDuration(ran(c))),
          h('td', { class: 'result', attrs: { 'data-label': 'Result' } }, resultCell(c)),
          h('td', { class: 'muted', attrs: { 'data-label': 'Parent' } }, c.parent ?? 'run_code'),
        );
      }),
    );
  }
}

/**
 * How long the call waited before its body ran (queued behind its turn, or for a human), from the
 * durable run's `call-running`; undefined when its body never started or the events do not say.
 */
function waited(c: CallRow): number | undefined {
  return c.runningAt !== undefined && c.startAt !== undefined ? c.runningAt - c.startAt : undefined;
}

/** How long the body ran: from `call-running` to the end, else the call's whole duration. */
function ran(c: CallRow): number | undefined {
  if (c.state !== 'ok' && c.state !== 'error') return undefined;
  return c.runningAt !== undefined && c.endAt !== undefined ? c.endAt - c.runningAt : c.durationMs;
}

/**
 * The result, or the error's message: one clipped line that expands (a `<details>`) to the whole
 * of what the event carried, through the visible-text rule like every other text here.
 */
function resultCell(c: CallRow): HTMLElement | string {
  if (c.state === 'error' && c.message !== undefined) {
    const parts = visibleParts(c.message);
    return expandable(clipParts(parts, RESULT_CHARS), new Shown(parts), 'error');
  }
  if (c.state !== 'ok' || c.result === undefined) return '–';
  const head = prop(c.result, 'truncated') === true ? str(prop(c.result, 'head')) : undefined;
  if (head !== undefined) {
    const parts = visibleJsonTextParts(head);
    const note = ` … (${num(prop(c.result, 'chars')) ?? '?'} characters; the rest is not kept in the event)`;
    return expandable(
      clipParts(parts, RESULT_CHARS),
      new Shown([...parts, { text: note, escaped: false }]),
    );
  }
  const whole = jsonPreview(c.result, Number.MAX_SAFE_INTEGER);
  if (whole.text.length <= RESULT_CHARS) return h('code', { class: 'result-value' }, whole);
  return expandable(jsonPreview(c.result, RESULT_CHARS), jsonPretty(c.result));
}

function expandable(summary: Shown, full: Shown, kind = 'value'): HTMLElement {
  if (summary.text === full.text) return h('code', { class: `result-${kind}` }, summary);
  return h(
    'details',
    { class: `result-${kind}` },
    h('summary', {}, summary),
    h('pre', { class: 'code' }, full),
  );
}

function outcome(state: CallState | 'waiting-approval', code: string | undefined): HTMLElement {
  switch (state) {
    case 'waiting-approval':
      return h('span', { class: 'badge status-waiting-approval' }, 'waiting for approval');
    case 'queued':
      return h('span', { class: 'badge status-queued' }, 'queued');
    case 'running':
      return h('span', { class: 'badge status-running' }, 'running');
    case 'ok':
      return h('span', { class: 'badge status-succeeded' }, 'ok');
    case 'error':
      return h('span', { class: 'badge status-failed' }, code ?? 'error');
  }
}
