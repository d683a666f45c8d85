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
