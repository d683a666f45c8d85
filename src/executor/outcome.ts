/**
 * Outcomes: what each stage returns, errors as data, model-facing content, and the stage-order
 * check.
 */
import { IsocodeError, isIsocodeError, thrownText, type ErrorCode } from '../errors.js';
import { findJsonProblem, type JsonValue } from '../json.js';
import { clipText } from '../text/clip.js';
import type { ContentBlock } from '../tools/types.js';
import {
  STAGES,
  type DenyReason,
  type Stage,
  type ToolErrorInfo,
  type ToolResult,
} from './types.js';

/** What a stage returns: go on with a value, or stop the call with an error. */
export type StageOutcome<T> = { ok: true; value: T } | { ok: false; error: ToolErrorInfo };

/** A call's outcome before rendering. */
export type Outcome = StageOutcome<JsonValue>;

/** An outcome after post-execute: content rendered, context gathered. */
export type Settled = Outcome & { content: ContentBlock[]; context: string[] };

/** A stage's refusal. */
export function failure(
  code: ErrorCode,
  message: string,
  extra?: Parameters<typeof errorInfo>[2],
): { ok: false; error: ToolErrorInfo } {
  return { ok: false, error: errorInfo(code, message, extra) };
}

/**
 * A deep-frozen copy of a JSON value: what hooks and listeners see of a call's arguments. The value
 * is plain JSON (the `create` stage checked it: no cycle, no accessor, no class instance), so a
 * direct copy does what `structuredClone` did, at a fraction of its cost per call. An own
 * `__proto__` key stays an own data property.
 */
export function frozenCopy(value: JsonValue): JsonValue {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return Object.freeze(value.map(frozenCopy)) as JsonValue;
  const out: Record<string, JsonValue> = {};
  for (const key of Object.keys(value)) {
    const v = frozenCopy(value[key] as JsonValue);
    if (key === '__proto__')
      Object.defineProperty(out, key, {
        value: v,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    else out[key] = v;
  }
  return Object.freeze(out);
}

/** Tool-body error codes a body may raise itself (as an IsocodeError); anything else is TOOL_ERROR. */
const BODY_CODES = new Set<ErrorCode>([
  'TOOL_ERROR',
  'UPSTREAM_ERROR',
  'UPSTREAM_UNAVAILABLE',
  'LIMIT_EXCEEDED',
  'CODE_RUN_FAILED',
  'OVERLOADED',
  'SHUTTING_DOWN',
]);
const MAX_MESSAGE = 4_000;

/** Caps a message so one error cannot flood a model's context. */
export function capMessage(message: string): string {
  return clipText(message, MAX_MESSAGE);
}

/**
 * Turns whatever a body threw into an error: its message is kept, its stack never is. It never
 * throws: a value whose getters or traps throw reads as {@link thrownText} says.
 */
export function bodyError(thrown: unknown): {
  code: ErrorCode;
  message: string;
  details?: Record<string, unknown> | undefined;
} {
  try {
    if (isIsocodeError(thrown) && BODY_CODES.has(thrown.code)) {
      // Details travel to the caller only when they are plain JSON.
      const details: unknown = thrown.details;
      return {
        code: thrown.code,
        message: capMessage(thrownText(thrown)),
        details:
          details !== undefined && findJsonProblem(details) === undefined
            ? (details as Record<string, unknown>)
            : undefined,
      };
    }
  } catch {
    // a marker-bearing value whose fields cannot be read is an ordinary throw
  }
  return { code: 'TOOL_ERROR', message: capMessage(thrownText(thrown)) };
}

/**
 * The model-facing text of an error: `Error CODE (reason): message`. The one place that spelling
 * lives; every face (provider adapters, MCP, HTTP) hands it on as it is.
 */
export function errorContent(error: ToolErrorInfo): ContentBlock[] {
  const reason = error.reason ? ` (${error.reason})` : '';
  return [{ type: 'text', text: `Error ${error.code}${reason}: ${error.message}` }];
}

/**
 * What a model reads of a result: its content, as the executor (and any post-execute hook) left
 * it. A failure's content already starts with {@link errorContent}'s `Error CODE…`; a failure
 * whose content a hook emptied reads as its error. Adapters add nothing to it.
 */
export function modelContent(result: ToolResult): ContentBlock[] {
  return result.ok || result.content.length > 0 ? result.content : errorContent(result.error);
}

/**
 * Content blocks from what a render, a finalizer or a post-execute hook returned — the one check
 * of their shape: a string is one text block; a list is copied block by block into fresh plain
 * objects (a later change to the returned list cannot reach the result). Anything else — a block
 * of another shape, a getter that throws, more than 1,000 blocks — is undefined: the caller keeps
 * what it had.
 */
export function contentBlocks(value: unknown): ContentBlock[] | undefined {
  try {
    if (typeof value === 'string') return [{ type: 'text', text: value }];
    if (!Array.isArray(value) || value.length > MAX_BLOCKS) return undefined;
    const out: ContentBlock[] = [];
    for (const block of value as unknown[]) {
      const copy = blockOf(block);
      if (copy === undefined) return undefined;
      out.push(copy);
    }
    return out;
  } catch {
    return undefined;
  }
}

const MAX_BLOCKS = 1_000;
const isText = (v: unknown): v is string => typeof v === 'string';

function blockOf(block: unknown): ContentBlock | undefined {
  if (typeof block !== 'object' || block === null) return undefined;
  const b = block as Record<string, unknown>;
  const type = b.type;
  if (type === 'text') {
    const text = b.text;
    return isText(text) ? { type, text } : undefined;
  }
  if (type === 'image') {
    const { data, mimeType } = b;
    return isText(data) && isText(mimeType) ? { type, data, mimeType } : undefined;
  }
  if (type === 'resource' && typeof b.resource === 'object' && b.resource !== null) {
    const { uri, mimeType, text } = b.resource as Record<string, unknown>;
    if (!isText(uri) || !(mimeType === undefined || isText(mimeType))) return undefined;
    if (!(text === undefined || isText(text))) return undefined;
    return {
      type,
      resource: {
        uri,
        ...(mimeType === undefined ? {} : { mimeType }),
        ...(text === undefined ? {} : { text }),
      },
    };
  }
  return undefined;
}

/** An error as data. */
function errorInfo(
  code: ErrorCode,
  message: string,
  extra: { reason?: DenyReason | undefined; details?: Record<string, unknown> | undefined } = {},
): ToolErrorInfo {
  const info: ToolErrorInfo = { code, message: capMessage(message) };
  if (extra.reason !== undefined) info.reason = extra.reason;
  if (extra.details !== undefined) info.details = extra.details;
  return info;
}

/** Records the stages a call passes through and checks, at run time, that they advance in order. */
export class StageTracker {
  readonly visited: Stage[] = [];
  #index = -1;

  /** True once the call has entered `stage` (or a later one). */
  reached(stage: Stage): boolean {
    return this.#index >= STAGES.indexOf(stage);
  }

  enter(stage: Stage): void {
    const i = STAGES.indexOf(stage);
    if (i <= this.#index) {
      throw new IsocodeError(
        'INTERNAL_ERROR',
        `pipeline stage "${stage}" entered after "${STAGES[this.#index] ?? '?'}"`,
      );
    }
    this.#index = i;
    this.visited.push(stage);
  }
}
