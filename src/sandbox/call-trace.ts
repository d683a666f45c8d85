/**
 * Reads what a binding call of a durable run carries (see `sdk-templates/isolate/durable.ts`): the
 * program's stack at the call and the clock and dice values since the previous call. Both come
 * from the program: capped, shape-checked, never trusted further.
 */
import { MAX_RECORDED_VALUES, PROGRAM_FILENAME } from '../../sdk-templates/isolate/protocol.js';
import type { CallTrace, RunRequest } from './types.js';

/** Longest stack text read, in UTF-16 units. */
const MAX_STACK = 4096;
/** Program frames kept in a call site. */
const MAX_FRAMES = 16;
const FRAME = new RegExp(`${PROGRAM_FILENAME.replace(/[.]/g, '\\.')}:(\\d+):(\\d+)\\)?$`);

/**
 * The call site: the program's frames in `stack`, innermost first, as `line:column` in the
 * program's own coordinates (through `mapPosition`), joined by ` < `.
 */
export function callSite(stack: unknown, mapPosition?: RunRequest['mapPosition']): string {
  if (typeof stack !== 'string') return '';
  const frames: string[] = [];
  for (const line of stack.slice(0, MAX_STACK).split('\n')) {
    const m = FRAME.exec(line);
    if (m === null) continue;
    let line1 = Number(m[1]);
    let column = Number(m[2]);
    if (mapPosition !== undefined) {
      let mapped: { line: number; column: number } | undefined;
      try {
        mapped = mapPosition(line1, column);
      } catch {
        mapped = undefined;
      }
      if (mapped === undefined) continue; // inside the wrapper
      line1 = mapped.line;
      column = mapped.column;
    }
    frames.push(`${line1}:${column}`);
    if (frames.length >= MAX_FRAMES) break;
  }
  return frames.join(' < ');
}

function numbers(value: unknown): number[] | undefined {
  if (!Array.isArray(value)) return undefined;
  for (const v of value as unknown[])
    if (typeof v !== 'number' || !Number.isFinite(v)) return undefined;
  return value as number[];
}

/**
 * The {@link CallTrace} of a call: `values` is `""` (none) or JSON `[[clock…],[random…]]`.
 * Undefined when `values` is malformed or holds more than the isolate may send.
 */
export function readCallTrace(
  stack: unknown,
  values: unknown,
  mapPosition?: RunRequest['mapPosition'],
): CallTrace | undefined {
  const site = callSite(stack, mapPosition);
  if (values === '' || values === undefined) return { site, clock: [], random: [] };
  if (typeof values !== 'string' || values.length > MAX_RECORDED_VALUES * 32) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(values);
  } catch {
    return undefined;
  }
  if (!Array.isArray(parsed) || parsed.length !== 2) return undefined;
  const clock = numbers(parsed[0]);
  const random = numbers(parsed[1]);
  if (clock === undefined || random === undefined) return undefined;
  if (clock.length + random.length > MAX_RECORDED_VALUES) return undefined;
  return { site, clock, random };
}

/** Checks a trace received from a sandbox process (the same rules, on the decoded object). */
export function isCallTrace(value: unknown): value is CallTrace {
  if (typeof value !== 'object' || value === null) return false;
  const t = value as Partial<Record<keyof CallTrace, unknown>>;
  const clock = numbers(t.clock);
  const random = numbers(t.random);
  return (
    typeof t.site === 'string' &&
    t.site.length <= MAX_STACK &&
    clock !== undefined &&
    random !== undefined &&
    clock.length + random.length <= MAX_RECORDED_VALUES
  );
}
