/**
 * Descendant processes of this one, from /proc (Linux): their RSS and CPU time. isocode's
 * native type-checker runs in a child process, which `process.memoryUsage()` and
 * `process.cpuUsage()` do not see.
 */
import { readFileSync, readdirSync } from 'node:fs';

/** Clock ticks per second of /proc/<pid>/stat times (`getconf CLK_TCK`; 100 on Linux). */
const CLOCK_TICKS = 100;

interface ProcStat {
  ppid: number;
  cpuMs: number;
}

/** CPU ms (user + system) this process has used so far, isolated-vm's threads included. */
export function selfCpuMs(): number {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
}

/** A process's parent and CPU ms (user + system) from `/proc/<pid>/stat`; undefined once it is gone. */
export function readStat(pid: string): ProcStat | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // "pid (comm) state ppid ...": comm may hold spaces and parentheses, so split after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11] ?? 0) + Number(fields[12] ?? 0);
    return { ppid: Number(fields[1]), cpuMs: (ticks * 1000) / CLOCK_TICKS };
  } catch {
    return undefined;
  }
}

function rssOf(pid: number): number {
  try {
    const match = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match?.[1] === undefined ? 0 : Number(match[1]) * 1024;
  } catch {
    return 0;
  }
}

/** Whether a process is an isocode sandbox worker (its command line names the worker entry). */
function isSandboxWorker(pid: number): boolean {
  try {
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    return /sandbox-worker\.(c?js)|sandbox[/\\]worker[/\\]main\.ts/.test(cmdline);
  } catch {
    return false;
  }
}

/** What the descendant processes use right now. */
export interface DescendantUsage {
  count: number;
  rssBytes: number;
  /** The part of `rssBytes` that isocode's sandbox worker processes hold. */
  workerRssBytes: number;
  /** How many of them are sandbox worker processes. */
  workers: number;
  /** Cumulative user + system CPU time of the live descendants. */
  cpuMs: number;
}

/** Usage of every live descendant process; `undefined` where /proc is unavailable. */
export function descendantUsage(): DescendantUsage | undefined {
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return undefined;
  }
  const children = new Map<number, Array<{ pid: number; cpuMs: number }>>();
  for (const pid of pids) {
    const stat = readStat(pid);
    if (stat === undefined) continue;
    const list = children.get(stat.ppid) ?? [];
    list.push({ pid: Number(pid), cpuMs: stat.cpuMs });
    children.set(stat.ppid, list);
  }
  const usage: DescendantUsage = { count: 0, rssBytes: 0, workerRssBytes: 0, workers: 0, cpuMs: 0 };
  const queue = [...(children.get(process.pid) ?? [])];
  for (let next = queue.pop(); next !== undefined; next = queue.pop()) {
    usage.count += 1;
    const rss = rssOf(next.pid);
    usage.rssBytes += rss;
    if (isSandboxWorker(next.pid)) {
      usage.workerRssBytes += rss;
      usage.workers += 1;
    }
    usage.cpuMs += next.cpuMs;
    queue.push(...(children.get(next.pid) ?? []));
  }
  return usage;
}

/**
 * CPU ms of this process tree so far: this process, its live descendants, and every child that
 * exited and was reaped (`/proc/<pid>/stat` utime + stime + cutime + cstime of each live process).
 * A difference of two readings is what the tree spent between them, replaced workers included.
 */
export function treeCpuMs(): number {
  const stats = new Map<number, { ppid: number; ticks: number }>();
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return NaN;
  }
  for (const pid of pids) {
    try {
      const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const f = text.slice(text.lastIndexOf(')') + 2).split(' ');
      const ticks = [11, 12, 13, 14].reduce((sum, i) => sum + Number(f[i] ?? 0), 0);
      stats.set(Number(pid), { ppid: Number(f[1]), ticks });
    } catch {
      // exited meanwhile
    }
  }
  const children = new Map<number, number[]>();
  for (const [pid, { ppid }] of stats) children.set(ppid, [...(children.get(ppid) ?? []), pid]);
  let ticks = 0;
  const queue = [process.pid];
  for (let pid = queue.pop(); pid !== undefined; pid = queue.pop()) {
    ticks += stats.get(pid)?.ticks ?? 0;
    queue.push(...(children.get(pid) ?? []));
  }
  return (ticks * 1000) / CLOCK_TICKS;
}
