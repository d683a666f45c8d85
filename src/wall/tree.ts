/**
 * The process a walled child really is. Behind the wall the host's child is bubblewrap, whose
 * child is bubblewrap's reaper (PID 1 of the sandbox), whose child is the command: the host's CPU
 * and memory watchdogs must read the command's /proc, not bubblewrap's. Killing the host's child is
 * enough to end all three (bubblewrap's `--die-with-parent` and the PID namespace).
 */
import { readdirSync, readFileSync } from 'node:fs';

/** The children of `pid`: from /proc/<pid>/task/<pid>/children, else by a scan of every ppid. */
function children(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'latin1')
      .trim()
      .split(/\s+/)
      .filter((s) => s !== '')
      .map(Number);
  } catch {
    // a kernel without CONFIG_PROC_CHILDREN
  }
  const out: number[] = [];
  try {
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        const stat = readFileSync(`/proc/${entry}/stat`, 'latin1');
        if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid)
          out.push(Number(entry));
      } catch {
        // gone meanwhile
      }
    }
  } catch {
    // no /proc
  }
  return out;
}

function command(pid: number): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/comm`, 'latin1').trim();
  } catch {
    return undefined;
  }
}

/**
 * The command bubblewrap (process `pid`) runs: the first process below it, following only children,
 * that is not bubblewrap. Undefined while the chain is still being set up (`pid` has not become
 * bubblewrap yet, or bubblewrap has not started the command) or once it is gone.
 */
export function walledPid(pid: number): number | undefined {
  if (command(pid) !== 'bwrap') return undefined;
  let current = pid;
  for (let depth = 0; depth < 4; depth++) {
    const next = children(current);
    if (next.length !== 1) return undefined;
    current = next[0] as number;
    const name = command(current);
    if (name === undefined) return undefined;
    if (name !== 'bwrap') return current;
  }
  return undefined;
}

/** SIGKILLs `child` and, when it is walled, every process below it ({@link killTree}). */
export function killWalled(
  child: { pid?: number | undefined; kill(signal: NodeJS.Signals): boolean },
  walled: boolean,
): void {
  if (walled && child.pid !== undefined) killTree(child.pid);
  try {
    child.kill('SIGKILL');
  } catch {
    // already gone
  }
}

/**
 * Kills process `root` and every process below it, with no window for one to escape: each level
 * is stopped (SIGSTOP) before its children are read, so none of them can fork a new child meanwhile
 * (a fork racing the signal is either listed already or aborted by the kernel), then all are killed.
 *
 * Killing only the command and bubblewrap relied on `--die-with-parent` and the PID namespace for
 * the rest, and that left a race: a worker killed while bubblewrap was still setting up (a
 * replacement started just before a shutdown) had no command to find yet; bubblewrap died, and the
 * sandbox's PID 1 lived on as an orphan (parent 1, a worker below it) holding the worker's pipes, so
 * the host waited for their close forever: `isocode serve` hung on SIGTERM after limit kills, 4 of 6
 * tries on a loaded machine.
 */
export function killTree(root: number): void {
  const seen = new Set<number>();
  let level = [root];
  for (let depth = 0; level.length > 0 && depth < 16; depth++) {
    const next: number[] = [];
    for (const pid of level) {
      if (seen.has(pid)) continue;
      seen.add(pid);
      try {
        process.kill(pid, 'SIGSTOP');
      } catch {
        continue; // gone
      }
      next.push(...children(pid));
    }
    level = next;
  }
  for (const pid of seen)
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone meanwhile
    }
}
