/**
 * Reading a process tree from /proc (Linux): descendants, resident memory and CPU time. Used by the
 * load test and the fault/hostile suites to measure the server "plus its child processes" and to find
 * a child (the checker, a sandbox worker) to kill.
 */
import { readdirSync, readFileSync } from 'node:fs';

const read = (path: string): string | undefined => {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
};

/** `/proc/<pid>/stat` fields after the command name (which may contain spaces and parentheses). */
const statFields = (pid: number): string[] | undefined => {
  const text = read(`/proc/${pid}/stat`);
  if (text === undefined) return undefined;
  return text.slice(text.lastIndexOf(')') + 2).split(' ');
};

/** The parent pid of `pid`, or undefined when it is gone. */
export function parentPid(pid: number): number | undefined {
  const ppid = statFields(pid)?.[1];
  return ppid === undefined ? undefined : Number(ppid);
}

/** Every live descendant of `pid` (children, grandchildren, …), in no particular order. */
export function descendants(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const child = Number(entry);
    const ppid = parentPid(child);
    if (ppid === undefined) continue;
    const list = children.get(ppid);
    if (list) list.push(child);
    else children.set(ppid, [child]);
  }
  const out: number[] = [];
  const stack = [pid];
  while (stack.length > 0) {
    for (const child of children.get(stack.pop()!) ?? []) {
      out.push(child);
      stack.push(child);
    }
  }
  return out;
}

/** True while `pid` exists and is not a zombie. */
export function isAlive(pid: number): boolean {
  const state = statFields(pid)?.[0];
  return state !== undefined && state !== 'Z' && state !== 'X';
}

/** The command line of `pid` (arguments joined by spaces), or '' when it is gone. */
export function commandLine(pid: number): string {
  return (read(`/proc/${pid}/cmdline`) ?? '').split('\0').join(' ').trim();
}

/** Resident set size of one process in bytes (VmRSS), 0 when it is gone. */
export function rssBytes(pid: number): number {
  const match = /^VmRSS:\s+(\d+) kB$/m.exec(read(`/proc/${pid}/status`) ?? '');
  return match ? Number(match[1]) * 1024 : 0;
}

/** Resident memory of `pid` plus all its descendants, in bytes. */
export function treeRssBytes(pid: number): number {
  return [pid, ...descendants(pid)].reduce((sum, p) => sum + rssBytes(p), 0);
}

/** User + system CPU time of `pid` in clock ticks (utime + stime), 0 when it is gone. */
export function cpuTicks(pid: number): number {
  const fields = statFields(pid);
  // After the command name: state is field 3 of stat, utime 14 and stime 15 → indexes 11 and 12 here.
  return fields ? Number(fields[11]) + Number(fields[12]) : 0;
}

/** Samples the tree's RSS every `intervalMs` until stopped; `stop()` returns the peak in bytes. */
export function sampleTreeRss(pid: number, intervalMs = 100): { stop: () => number } {
  let peak = treeRssBytes(pid);
  const timer = setInterval(() => {
    peak = Math.max(peak, treeRssBytes(pid));
  }, intervalMs);
  return {
    stop: () => {
      clearInterval(timer);
      return Math.max(peak, treeRssBytes(pid));
    },
  };
}
