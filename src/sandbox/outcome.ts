/**
 * Turns what the isolate's runner reported (one tagged string, see `OUTCOME`) into a result or a
 * failure, and finds the program's position in an exception's stack.
 */
import { jsonTooDeep, MAX_JSON_DEPTH, type JsonValue } from '../json.js';
import {
  MAX_THROWN_JSON,
  OUTCOME,
  OUTCOME_SEPARATOR,
  PROGRAM_FILENAME,
  type ThrownDescription,
} from '../../sdk-templates/isolate/protocol.js';
import type { FailureKind, ProgramFrame, RunOutcome, RunRequest } from './types.js';
import { cutText } from '../text/clip.js';

/** A decoded outcome, before logs and stats are attached. */
export type Decoded =
  | { ok: true; result: JsonValue }
  | {
      ok: false;
      kind: FailureKind;
      message: string;
      line?: number;
      column?: number;
      frames?: ProgramFrame[];
      thrown?: JsonValue;
    };

const escaped = PROGRAM_FILENAME.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const FRAME = new RegExp(`^\\s+at (?:async )?(?:(.*?) \\()?${escaped}:(\\d+):(\\d+)\\)?\\s*$`);

/** At most this many program frames a failure carries (innermost first). */
export const MAX_PROGRAM_FRAMES = 10;
/** At most this many characters of a frame's function name. */
export const MAX_FRAME_NAME_CHARS = 100;

/** The program frames of a V8 stack text, innermost first (1-based line and column in the program's JS). */
export function programFrames(stack: string): ProgramFrame[] {
  const out: ProgramFrame[] = [];
  for (const line of stack.split('\n')) {
    const match = FRAME.exec(line);
    if (!match) continue;
    const frame: ProgramFrame = { line: Number(match[2]), column: Number(match[3]) };
    const fn = match[1]?.trim();
    if (fn !== undefined && fn !== '' && fn !== '<anonymous>')
      frame.fn = cutText(fn, MAX_FRAME_NAME_CHARS);
    out.push(frame);
    if (out.length === MAX_PROGRAM_FRAMES) break;
  }
  return out;
}

/**
 * A failure's program frames as the host passes them on: what the sandbox process reported, checked
 * and bounded again (the process runs hostile code: its messages are input, not truth).
 */
export function checkedFrames(frames: unknown): ProgramFrame[] {
  if (!Array.isArray(frames)) return [];
  const out: ProgramFrame[] = [];
  for (const f of frames.slice(0, MAX_PROGRAM_FRAMES) as unknown[]) {
    if (typeof f !== 'object' || f === null) continue;
    const { line, column, fn } = f as Record<string, unknown>;
    if (!Number.isSafeInteger(line) || !Number.isSafeInteger(column)) continue;
    const frame: ProgramFrame = { line: line as number, column: column as number };
    if (typeof fn === 'string' && fn !== '') frame.fn = cutText(fn, MAX_FRAME_NAME_CHARS);
    out.push(frame);
  }
  return out;
}

/** The first program frame of a V8 stack text (1-based line and column in the program's JS). */
export function programPosition(stack: string): { line: number; column: number } | undefined {
  const first = programFrames(stack)[0];
  return first === undefined ? undefined : { line: first.line, column: first.column };
}

function mapped(
  position: { line: number; column: number } | undefined,
  mapPosition: RunRequest['mapPosition'],
): { line: number; column: number } | undefined {
  if (position === undefined || mapPosition === undefined) return position;
  try {
    const out = mapPosition(position.line, position.column);
    return out !== undefined && Number.isInteger(out.line) && Number.isInteger(out.column)
      ? out
      : undefined;
  } catch {
    return undefined;
  }
}

function isDescription(v: unknown): v is ThrownDescription {
  if (typeof v !== 'object' || v === null) return false;
  const d = v as Record<string, unknown>;
  return (
    (d.kind === 'error' || d.kind === 'value') &&
    typeof d.name === 'string' &&
    typeof d.message === 'string' &&
    typeof d.stack === 'string' &&
    (d.toolName === undefined || typeof d.toolName === 'string') &&
    (d.code === undefined || typeof d.code === 'string') &&
    (d.json === undefined || typeof d.json === 'string')
  );
}

/** The JSON preview of a thrown non-Error value, parsed; undefined when absent or unreadable. */
function thrownValue(d: ThrownDescription): JsonValue | undefined {
  if (d.json === undefined || d.json.length > 4 * MAX_THROWN_JSON || jsonTooDeep(d.json))
    return undefined;
  try {
    return JSON.parse(d.json) as JsonValue;
  } catch {
    return undefined;
  }
}

/** The message shown for a thrown value. */
export function exceptionMessage(d: ThrownDescription): string {
  if (d.kind === 'value')
    return d.json !== undefined
      ? `Uncaught non-Error value: ${cutText(d.json, 4 * MAX_THROWN_JSON)}`
      : `Uncaught ${d.message}`;
  const name = d.name === '' ? 'Error' : d.name;
  const head = d.message === '' ? name : `${name}: ${d.message}`;
  return d.toolName !== undefined && d.code !== undefined
    ? `${head} (tool ${d.toolName}, code ${d.code})`
    : head;
}

/** Splits the runner's `<sent>:<tagged outcome>`; undefined when malformed. */
export function splitOutcome(raw: unknown): { sent: number; body: string } | undefined {
  if (typeof raw !== 'string') return undefined;
  const at = raw.indexOf(OUTCOME_SEPARATOR);
  const count = raw.slice(0, at);
  if (at < 1 || at > 15 || !/^\d+$/.test(count)) return undefined;
  return { sent: Number(count), body: raw.slice(at + 1) };
}

/** Decodes the runner's tagged outcome (after {@link splitOutcome}). `maxResultBytes` is checked here (the host is authoritative). */
export function decodeOutcome(
  raw: unknown,
  maxResultBytes: number,
  mapPosition: RunRequest['mapPosition'],
): Decoded {
  if (typeof raw !== 'string' || raw.length === 0)
    return { ok: false, kind: 'internal', message: 'the sandbox returned an unreadable outcome' };
  const tag = raw[0];
  const payload = raw.slice(1);
  switch (tag) {
    case OUTCOME.result: {
      const bytes = Buffer.byteLength(payload);
      if (bytes > maxResultBytes) return tooLarge(`${bytes} bytes`, maxResultBytes);
      if (jsonTooDeep(payload))
        return {
          ok: false,
          kind: 'invalid-output',
          message: `the returned value nests arrays and objects more than ${MAX_JSON_DEPTH} levels deep`,
        };
      try {
        return { ok: true, result: JSON.parse(payload) as JsonValue };
      } catch {
        return {
          ok: false,
          kind: 'internal',
          message: 'the sandbox returned an unreadable result',
        };
      }
    }
    case OUTCOME.tooLarge:
      return tooLarge(
        /^\d+$/.test(payload) ? `at least ${payload} bytes` : 'too large',
        maxResultBytes,
      );
    case OUTCOME.invalid:
      return { ok: false, kind: 'invalid-output', message: cutText(payload, 1024) };
    case OUTCOME.exception: {
      let description: unknown;
      try {
        description = JSON.parse(payload);
      } catch {
        description = undefined;
      }
      if (!isDescription(description))
        return { ok: false, kind: 'exception', message: 'Uncaught exception' };
      // Frames outside the program's own coordinates (the wrapper) are dropped by the map.
      const frames = programFrames(description.stack).flatMap((f) => {
        const at = mapped(f, mapPosition);
        return at === undefined ? [] : [{ ...at, ...(f.fn === undefined ? {} : { fn: f.fn }) }];
      });
      const position = mapped(programPosition(description.stack), mapPosition);
      const thrown = thrownValue(description);
      return {
        ok: false,
        kind: 'exception',
        message: exceptionMessage(description),
        ...position,
        ...(frames.length === 0 ? {} : { frames }),
        ...(thrown === undefined ? {} : { thrown }),
      };
    }
    case OUTCOME.setupFailed:
      return {
        ok: false,
        kind: 'internal',
        message: `sandbox failure: ${cutText(payload, 200)}`,
      };
    default:
      return { ok: false, kind: 'internal', message: 'the sandbox returned an unreadable outcome' };
  }
}

function tooLarge(size: string, max: number): Decoded {
  return {
    ok: false,
    kind: 'output-limit',
    message: `the returned value's JSON is ${size}; the limit is ${max} bytes`,
  };
}

/** A failed run with no logs and zeroed stats (what fails before or outside the program). */
export function failedRun(kind: FailureKind, message: string, wallMs = 0): RunOutcome {
  return {
    ok: false,
    kind,
    message,
    logs: [],
    stats: { cpuMs: 0, wallMs, calls: 0, isolateMs: 0, logBytes: 0, truncatedLogs: false },
  };
}
