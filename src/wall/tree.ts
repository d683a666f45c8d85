/**
 * The process a walled child really is. Behind the wall the host's child is bubblewrap, whose
 * child is bubblewrap's reaper (PID 1 of the sandbox), whose child is the command: the host's CPU
 * and memory watchdogs must read the command's /proc, not bubblewrap's. Killing the host's child is
 * enough to end all three (bubblewrap's `--die-with-parent` and the PID namespace).
 */
import { readdirSync, readFileSync } from 'node:fs';

/** The pids /proc/<pid>/task/<pid>/children lists (undefined: a kernel without CONFIG_PROC_CHILDREN). */
function listedChildren(pid: number): number[] | undefined {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'latin1')
      .trim()
      .split(/\s+/)
      .filter((s) => s !== '')
      .map(Number);
  } catch {
    return undefined;
  }
}

/** Every process whose parent is `pid`, by a scan of /proc. */
function scannedChildren(pid: number): number[] {
  const out: number[] = [];
  try {
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      const parent = stat(Number(entry))?.ppid;
      if (parent === pid) out.push(Number(entry));
    }
  } catch {
    // no /proc
  }
  return out;
}

/** The children of `pid` (the cheap list, else the scan). */
function children(pid: number): number[] {
  return listedChildren(pid) ?? scannedChildren(pid);
}

/** State letter and parent of `pid` from /proc/<pid>/stat; undefined once it is gone. */
function stat(pid: number): { state: string; ppid: number } | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'latin1');
    const [state = '', ppid = ''] = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return { state, ppid: Number(ppid) };
  } catch {
    return undefined;
  }
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

/** Stopped, traced, dead or gone: a process in none of these states may still fork. */
const STILL = new Set(['T', 't', 'Z', 'X', 'x']);
/**
 * How long {@link killTree} waits for one process to stop. The wait blocks the host's thread, and a
 * process in uninterruptible sleep (a worker under memory pressure) stops late: past this, the level is
 * listed as it is (a `clone` takes well under it).
 */
const STOP_WAIT_MS = 100;
const pause = new Int32Array(new SharedArrayBuffer(4));

/** Waits (blocking, up to {@link STOP_WAIT_MS}) until `pid` is stopped or gone. */
function untilStill(pid: number): void {
  const deadline = Date.now() + STOP_WAIT_MS;
  for (let spins = 0; ; spins++) {
    const state = stat(pid)?.state;
    if (state === undefined || STILL.has(state) || Date.now() > deadline) return;
    // The first checks come back at once (a signal is delivered within microseconds); then 1 ms.
    if (spins > 20) Atomics.wait(pause, 0, 0, 1);
  }
}

/**
 * Kills process `root` and every process below it, with no window for one to escape: each level
 * is stopped (SIGSTOP) and seen stopped before its children are listed, so none of them can fork a
 * new child meanwhile, then all are killed.
 *
 * Seen stopped, not only signalled: `kill` only queues SIGSTOP, and since Linux 5.1 a signal sent to
 * one process no longer aborts a `fork`/`clone` it is in the middle of — the child appears once the
 * call returns, after a list read right after the signal (the likely cause of one loaded run of
 * test/wall's early-kill test, whose child never closed: a process created just then holding its
 * pipes). A stopped
 * process is never inside `clone`. (proc(5) also says a child exiting while the children file is
 * read can hide a sibling; no process of this tree has a short-lived child, and the scan by parent
 * that would cover it costs ~17 ms of the host's thread per process at 90 processes, so it stays the
 * fallback for kernels without the file.)
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
    const next = new Set<number>();
    for (const pid of level) {
      if (seen.has(pid)) continue;
      seen.add(pid);
      try {
        process.kill(pid, 'SIGSTOP');
      } catch {
        continue; // gone
      }
      untilStill(pid);
      for (const child of children(pid)) next.add(child);
    }
    level = [...next];
  }
  for (const pid of seen)
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone meanwhile
    }
}
