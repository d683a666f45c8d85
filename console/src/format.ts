/** Formatting of durations, times, JSON and run outcomes for display. No DOM here. */
import { clipVisible, visibleJsonParts, type VisiblePart } from '../../src/text/visible.js';

/**
 * Text already made visible (decision 028), in pieces with the escapes marked: the DOM helper
 * draws it as it is (a string child would be escaped again).
 */
export class Shown {
  constructor(readonly parts: readonly VisiblePart[]) {}
  /** The shown text. */
  get text(): string {
    return this.parts.map((p) => p.text).join('');
  }
}

/** `850 ms`, `12.3 s`, `4 min 05 s`, `2 h 03 min`. */
export function formatDuration(ms: number | undefined): string {
  if (ms === undefined || !Number.isFinite(ms) || ms < 0) return '–';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
  const s = Math.floor(ms / 1000);
  if (s < 3600) return `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, '0')} s`;
  return `${Math.floor(s / 3600)} h ${String(Math.floor((s % 3600) / 60)).padStart(2, '0')} min`;
}

/** The most a `Date` holds either side of 1970, in ms (ECMA-262 §21.4.1.1). */
const DATE_RANGE_MS = 8.64e15;

/**
 * `at` as ISO text, or undefined when no `Date` can hold it: a time comes from the API, and a stored
 * one can be anything (`toISOString` throws on an invalid date, which would break the whole view).
 */
function isoOf(at: number | undefined): string | undefined {
  if (at === undefined || !Number.isFinite(at) || Math.abs(at) > DATE_RANGE_MS) return undefined;
  return new Date(at).toISOString();
}

/** `just now`, `42 s ago`, `5 min ago`, `3 h ago`, else the date; `–` for no time. */
export function formatAgo(at: number | undefined, now: number): string {
  const iso = isoOf(at);
  if (iso === undefined || at === undefined) return '–';
  const d = Math.max(0, now - at);
  if (d < 5_000) return 'just now';
  if (d < 60_000) return `${Math.floor(d / 1000)} s ago`;
  if (d < 3_600_000) return `${Math.floor(d / 60_000)} min ago`;
  if (d < 86_400_000) return `${Math.floor(d / 3_600_000)} h ago`;
  return iso.slice(0, iso.indexOf('T'));
}

/** `2026-12-01 10:57:09` in UTC; `–` for no time. */
export function formatTime(at: number | undefined): string {
  const iso = isoOf(at);
  // Years past 9999 have six digits and a sign: cut at the milliseconds, not at a fixed width.
  return iso === undefined ? '–' : `${iso.slice(0, iso.indexOf('.')).replace('T', ' ')} UTC`;
}

/** JSON with hidden characters as JSON escapes; `–` for no value, `(not JSON)` for a cycle. */
function jsonParts(value: unknown, space?: number): VisiblePart[] {
  try {
    return visibleJsonParts(value, space) ?? [{ text: '–', escaped: false }];
  } catch {
    return [{ text: '(not JSON)', escaped: false }];
  }
}

/**
 * Shown pieces cut to at most `max` characters with an ellipsis: an escape is kept whole (and
 * marked) or left out, never cut.
 */
export function clipParts(parts: readonly VisiblePart[], max: number): Shown {
  const total = parts.reduce((n, p) => n + p.text.length, 0);
  if (total <= max) return new Shown(parts);
  const out: VisiblePart[] = [];
  let left = max - 1;
  for (const p of parts) {
    if (left <= 0) break;
    if (p.text.length <= left) {
      out.push(p);
      left -= p.text.length;
    } else {
      if (!p.escaped)
        out.push({ text: clipVisible(p.text, left + 1).slice(0, -1), escaped: false });
      break;
    }
  }
  out.push({ text: '…', escaped: false });
  return new Shown(out);
}

/** One-line JSON, cut to `max` characters with an ellipsis (never inside an escape). */
export function jsonPreview(value: unknown, max = 120): Shown {
  return clipParts(jsonParts(value), max);
}

/** Indented JSON. */
export function jsonPretty(value: unknown): Shown {
  return new Shown(jsonParts(value, 2));
}

/** Failure kinds that mean the run hit one of its limits. */
const LIMIT_KINDS = new Set(['timeout', 'memory', 'output-limit']);

/** Reads a property of an unknown value, own properties only. */
export function prop(value: unknown, key: string): unknown {
  return typeof value === 'object' &&
    value !== null &&
    Object.prototype.hasOwnProperty.call(value, key)
    ? (value as Record<string, unknown>)[key]
    : undefined;
}

/** The value if it is a string. */
export const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** The value if it is a number. */
export const num = (v: unknown): number | undefined => (typeof v === 'number' ? v : undefined);

/** The error of a run (`{ code, message, details }`), from its `error` or its failed result. */
export function runError(run: { error?: unknown; result?: unknown }):
  | {
      code: string;
      message: string | Shown;
      kind: string | undefined;
    }
  | undefined {
  const err =
    run.error ?? (prop(run.result, 'ok') === false ? prop(run.result, 'error') : undefined);
  if (err === undefined || err === null) return undefined;
  const code = prop(err, 'code');
  const message = prop(err, 'message');
  const kind = prop(prop(err, 'details'), 'kind');
  return {
    code: typeof code === 'string' ? code : 'ERROR',
    message: typeof message === 'string' ? message : jsonPreview(err),
    kind: typeof kind === 'string' ? kind : undefined,
  };
}

/** The limit a run hit (`timeout`, `memory`, `output-limit`), if any. */
export function limitHit(run: { error?: unknown; result?: unknown }): string | undefined {
  const kind = runError(run)?.kind;
  return kind !== undefined && LIMIT_KINDS.has(kind) ? kind : undefined;
}

/** True for a status a run never leaves. */
export function isFinal(status: string): boolean {
  return status === 'succeeded' || status === 'failed' || status === 'cancelled';
}

/**
 * Who decided an approval, readable: `http:<scope>:<request id>` (a decision posted to the API) is
 * "a key of scope <scope>" with the request id as detail; `key:<name>` (a named key) is "<name>";
 * `mcp-elicitation:<client>` is "<client> (MCP elicitation)"; anything else (a library approver)
 * as it is.
 */
export function decidedBy(by: string | undefined): { label: string; detail: string } {
  if (by === undefined || by === '') return { label: '–', detail: '' };
  const http = /^http:(.+):([0-9a-f-]{8,})$/i.exec(by);
  if (http)
    return {
      label: `a key of scope ${http[1]!}`,
      detail: `over the HTTP API, request ${http[2]!}`,
    };
  const named = /^key:(.+)$/.exec(by);
  if (named) return { label: named[1]!, detail: 'a named API key, over the HTTP API' };
  const mcp = /^mcp-elicitation:(.*)$/.exec(by);
  if (mcp) return { label: `${mcp[1] || 'client'} (MCP elicitation)`, detail: by };
  return { label: by, detail: by };
}
