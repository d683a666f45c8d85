/** Merging and validating sandbox limits. */
import { IsocodeError } from '../errors.js';
import { DEFAULT_LIMITS, type SandboxLimits } from './types.js';
import { durationOption, integerOption } from '../options.js';

/** Smallest heap isolated-vm accepts, in MiB. */
export const MIN_MEMORY_MB = 8;

const KEYS = Object.keys(DEFAULT_LIMITS) as (keyof SandboxLimits)[];

/**
 * `base` overridden by the defined members of each override, in order.
 * @throws IsocodeError `INVALID_CONFIG` for an unknown key, or a value that is not a positive
 * safe integer (`memoryMb` at least 8).
 */
export function resolveLimits(
  base: Readonly<SandboxLimits>,
  ...overrides: (Partial<SandboxLimits> | undefined)[]
): SandboxLimits {
  const out: SandboxLimits = { ...base };
  for (const override of overrides) {
    if (override === undefined) continue;
    for (const key of Object.keys(override)) {
      if (!(KEYS as string[]).includes(key)) {
        throw new IsocodeError('INVALID_CONFIG', `unknown sandbox limit "${key}"`, {
          details: { key },
        });
      }
      const value = override[key as keyof SandboxLimits];
      if (value === undefined) continue;
      out[key as keyof SandboxLimits] = value;
    }
  }
  for (const key of KEYS) {
    const name = `sandbox limit ${key}`;
    if (key.endsWith('Ms')) durationOption(name, out[key], 1);
    else integerOption(name, out[key], key === 'memoryMb' ? MIN_MEMORY_MB : 1);
  }
  return out;
}
