/**
 * Whether this process may create isolated-vm isolates. On Node 20+ isolated-vm needs Node started
 * with `--no-node-snapshot`. The CLI's process runs without it (a one-shot command starts faster
 * with the snapshot) because programs run in sandbox worker processes that get the flag; only the
 * in-process sandbox creates isolates here, and it is refused without the flag.
 */
import { UsageError } from './errors.js';

/** The flag isolated-vm needs. */
export const NO_NODE_SNAPSHOT = '--no-node-snapshot';

/** Whether Node was started with `--no-node-snapshot` (on the command line or in NODE_OPTIONS). */
export function hasNoSnapshotFlag(
  execArgv: readonly string[] = process.execArgv,
  nodeOptions: string | undefined = process.env.NODE_OPTIONS,
): boolean {
  return (
    execArgv.includes(NO_NODE_SNAPSHOT) ||
    (nodeOptions ?? '').split(/\s+/).includes(NO_NODE_SNAPSHOT)
  );
}

/**
 * Refuses `sandbox: "in-process"` in a process started without `--no-node-snapshot`.
 * @throws UsageError naming the flag and how to give it.
 */
export function assertSandboxAllowed(
  sandbox: string | undefined,
  flagGiven = hasNoSnapshotFlag(),
): void {
  if (sandbox !== 'in-process' || flagGiven) return;
  throw new UsageError(
    `sandbox "in-process" runs isolates in this process, which needs Node's ${NO_NODE_SNAPSHOT}: ` +
      `run NODE_OPTIONS=${NO_NODE_SNAPSHOT} isocode ... (or node ${NO_NODE_SNAPSHOT} <path to isocode> ...), ` +
      'or use the default sandbox "process"',
  );
}
