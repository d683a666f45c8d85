/**
 * The outcome of a run whose sandbox worker ended before reporting one: why the process went
 * (killed by the supervisor for a reason, a `fatal` report, or a silent crash) decides the kind.
 */
import { failedRun } from '../outcome.js';
import type { FailureKind, RunOutcome, SandboxLimits } from '../types.js';

/** Why the supervisor ended a worker. */
export type KillReason = 'memory' | 'cpu' | 'wall' | 'burn' | 'aborted' | 'retired' | 'closed';

/** What is known of a worker's end. */
export interface WorkerEnd {
  /** The supervisor's reason, when it killed the worker. */
  killedFor: KillReason | undefined;
  /** The worker's own last report, if it sent one. */
  fatal: 'memory' | 'catastrophic' | undefined;
  /** The signal or exit code it ended with. */
  exit: string;
  rssBudgetBytes: number;
}

const MIB = 1024 * 1024;

/** The failure of a run whose worker ended (`end`) after `wallMs`, under `limits`. */
export function deathOutcome(end: WorkerEnd, limits: SandboxLimits, wallMs: number): RunOutcome {
  const fail = (kind: FailureKind, message: string): RunOutcome => failedRun(kind, message, wallMs);
  if (end.killedFor === 'memory' || end.fatal === 'memory')
    return fail(
      'memory',
      `the program exceeded the memory budget of its sandbox process (${Math.round(end.rssBudgetBytes / MIB)} MiB resident, memory outside the ${limits.memoryMb} MiB heap included)`,
    );
  if (end.fatal === 'catastrophic')
    return fail(
      'memory',
      `the program exhausted the JavaScript engine's memory (heap limit ${limits.memoryMb} MiB); the sandbox process was replaced`,
    );
  switch (end.killedFor) {
    case 'cpu':
      return fail(
        'timeout',
        `the program used more than ${limits.cpuMs} ms of CPU time (CPU time limit); it was stopped with its sandbox process`,
      );
    case 'wall':
      return fail(
        'timeout',
        `the program ran for more than ${limits.wallMs} ms (wall-clock limit); it was stopped with its sandbox process`,
      );
    case 'aborted':
      return fail('aborted', 'the run was aborted');
    case 'closed':
      return fail('aborted', 'the run was aborted: the sandbox is shutting down');
    default:
      return fail(
        'crashed',
        `the sandbox process running the program crashed (${end.exit}); it was replaced, and other runs were not affected`,
      );
  }
}
