/**
 * The one rule for a library option that is a whole number (a limit, a size, a count, an interval):
 * a safe integer of at least `min`, else `INVALID_CONFIG` naming the option and what it got. Every
 * such option is checked here, so each says the same thing; the config file's schema and the CLI's
 * flags check their own text before a value gets here.
 */
import { IsocodeError } from './errors.js';
import { clipText } from './text/clip.js';

/** `value` when it is a safe integer ≥ `min`. @throws IsocodeError INVALID_CONFIG otherwise. */
export function integerOption(name: string, value: unknown, min: number): number {
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= min) return value;
  const got = typeof value === 'string' ? JSON.stringify(clipText(value, 40)) : String(value);
  throw new IsocodeError(
    'INVALID_CONFIG',
    `${name} must be an integer ≥ ${min}, got ${clipText(got, 60)}`,
    {
      details: { option: name },
    },
  );
}

/** {@link integerOption} of `value`, or `fallback` when it is undefined. */
export function integerOptionOr(
  name: string,
  value: unknown,
  fallback: number,
  min: number,
): number {
  return value === undefined ? fallback : integerOption(name, value, min);
}

/**
 * The longest delay Node's timers keep: 2^31 − 1 ms (24.8 days). A longer one fires after 1 ms
 * (Node clamps it, with a warning), so a time limit above it would end every call at once.
 */
export const MAX_TIMER_MS = 2_147_483_647;

/**
 * `value` when it is a whole number of milliseconds from `min` to {@link MAX_TIMER_MS}.
 * @throws IsocodeError INVALID_CONFIG otherwise.
 */
export function durationOption(name: string, value: unknown, min: number): number {
  const ms = integerOption(name, value, min);
  if (ms <= MAX_TIMER_MS) return ms;
  throw new IsocodeError(
    'INVALID_CONFIG',
    `${name} must be at most ${MAX_TIMER_MS} ms (24.8 days, the longest timer Node keeps), got ${ms}`,
    { details: { option: name } },
  );
}

/** A finite number rounded to whole milliseconds (anything else as it is, for the check to refuse). */
export const wholeMs = (value: unknown): unknown =>
  typeof value === 'number' && Number.isFinite(value) ? Math.round(value) : value;

/** {@link durationOption} of `value`, or `fallback` when it is undefined. */
export function durationOptionOr(
  name: string,
  value: unknown,
  fallback: number,
  min: number,
): number {
  return value === undefined ? fallback : durationOption(name, value, min);
}
