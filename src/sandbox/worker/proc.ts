/**
 * Resident memory and CPU time of a process, read by the host from /proc (Linux). The supervisor's
 * watchdog reads them for each worker: a worker whose own checks are stuck (its main thread blocked,
 * or a native builtin that never checks for termination) cannot hide from it. Elsewhere the reads
 * return undefined and the workers' self-checks and the wall-clock backstop remain.
 */
import { readFileSync } from 'node:fs';

const VM_RSS = /VmRSS:\s+(\d+) kB/;
/** USER_HZ: the unit of utime/stime in /proc/<pid>/stat; 100 on every Linux ABI Node supports. */
const TICKS_PER_SECOND = 100;

/** Memory and CPU of a process. */
export interface ProcSample {
  /** Resident set size in bytes. */
  rssBytes: number;
  /** User plus system CPU time of all its threads, in ms (10 ms resolution). */
  cpuMs: number;
}

/** One reading of `pid`, or undefined when it cannot be read (no /proc, or the process is gone). */
export function sampleProcess(pid: number): ProcSample | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'latin1');
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    const resident = Number(VM_RSS.exec(status)?.[1]);
    // Fields after the command name, which is in parentheses and may itself hold spaces.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const utime = Number(fields[11]);
    const stime = Number(fields[12]);
    if (!Number.isFinite(resident) || !Number.isFinite(utime) || !Number.isFinite(stime))
      return undefined;
    return {
      rssBytes: resident * 1024,
      cpuMs: ((utime + stime) * 1000) / TICKS_PER_SECOND,
    };
  } catch {
    return undefined;
  }
}
