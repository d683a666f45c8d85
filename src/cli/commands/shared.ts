/** Flags and helpers shared by several commands. */
import type { LimitsConfig } from '../../sources/config-types.js';
import { UsageError } from '../errors.js';

/** `--config`, `--tools`, `--scope`. */
export interface RuntimeFlags {
  config?: string | undefined;
  tools?: string | undefined;
  scope?: string | undefined;
}

/** Parses a positive integer flag value. */
export function positiveInt(flag: string, value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(n) || n < 1)
    throw new UsageError(`${flag} must be a positive integer, got "${value}"`);
  return n;
}

/** Parses a TCP port (0 picks a free one). */
export function port(flag: string, value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || n > 65535)
    throw new UsageError(`${flag} must be a port number from 0 to 65535, got "${value}"`);
  return n;
}

/** `--memory-mb`, `--cpu-ms`, `--wall-ms` as sandbox limits. */
export function limitsFromFlags(flags: {
  memoryMb?: string | undefined;
  cpuMs?: string | undefined;
  wallMs?: string | undefined;
}): LimitsConfig {
  const out: LimitsConfig = {};
  if (flags.memoryMb !== undefined) out.memoryMb = positiveInt('--memory-mb', flags.memoryMb);
  if (flags.cpuMs !== undefined) out.cpuMs = positiveInt('--cpu-ms', flags.cpuMs);
  if (flags.wallMs !== undefined) out.wallMs = positiveInt('--wall-ms', flags.wallMs);
  return out;
}

/** Resolves when the process gets SIGINT or SIGTERM (or `signal` aborts). */
export function untilStopped(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    signal.addEventListener('abort', () => resolve(), { once: true });
  });
}
