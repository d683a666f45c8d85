/**
 * The descendants of a stdio upstream's process. The MCP SDK spawns a server in isocode's own
 * process group and, on close, ends only that process; a server started through a launcher
 * (`npx`, `uvx`, `sh -c`) is a grandchild, which is left running, reparented to init, when it does
 * not exit on its own at the end of its input. isocode reads the tree before it closes a
 * connection and ends whatever of it outlived the launcher.
 *
 * Read from `/proc` on Linux, from `ps` elsewhere (macOS, the BSDs); on Windows, or when neither
 * can be read, the tree is empty and only the direct child is ended (as before).
 */
import { execFile } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';

/** A process as seen once: its pid, and (Linux) its start time, so a reused pid is never ended. */
export interface SeenProcess {
  pid: number;
  start?: string | undefined;
}

/**
 * State, parent pid and start time of `pid` from `/proc/<pid>/stat` (the fields after the
 * command's closing parenthesis, which the command itself may contain).
 */
async function procStat(
  pid: number,
): Promise<{ state: string; ppid: number; start: string } | undefined> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ppid = Number(fields[1]);
  return stat === '' || !Number.isInteger(ppid)
    ? undefined
    : { state: fields[0] ?? '', ppid, start: fields[19] ?? '' };
}

/** Parent pid by pid, from `/proc`. */
async function procParents(): Promise<Map<number, number>> {
  const parents = new Map<number, number>();
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await procStat(Number(entry));
    if (stat) parents.set(Number(entry), stat.ppid);
  }
  return parents;
}

/** Parent pid by pid, from `ps -A -o pid=,ppid=`. */
function psParents(): Promise<Map<number, number>> {
  return new Promise((resolve) => {
    execFile('ps', ['-A', '-o', 'pid=,ppid='], { timeout: 2000 }, (error, stdout) => {
      const parents = new Map<number, number>();
      if (!error)
        for (const line of stdout.split('\n')) {
          const [pid, ppid] = line.trim().split(/\s+/).map(Number);
          if (Number.isInteger(pid) && Number.isInteger(ppid)) parents.set(pid!, ppid!);
        }
      resolve(parents);
    });
  });
}

/** Every live descendant of `pid` (children first), or none when the tree cannot be read. */
export async function descendantsOf(pid: number): Promise<SeenProcess[]> {
  if (process.platform === 'win32') return [];
  const linux = process.platform === 'linux';
  const parents = await (linux ? procParents() : psParents()).catch(
    () => new Map<number, number>(),
  );
  const children = new Map<number, number[]>();
  for (const [child, parent] of parents) {
    const list = children.get(parent) ?? [];
    list.push(child);
    children.set(parent, list);
  }
  const found: number[] = [];
  const queue = [pid];
  for (let next = queue.shift(); next !== undefined; next = queue.shift())
    for (const child of children.get(next) ?? []) {
      if (found.includes(child)) continue;
      found.push(child);
      queue.push(child);
    }
  return Promise.all(
    found.map(async (p) => ({ pid: p, ...(linux ? { start: (await procStat(p))?.start } : {}) })),
  );
}

/**
 * Whether `seen` still runs as the same process: a reused pid is never ended, and an ended one
 * that nobody has reaped yet (a zombie, its launcher gone) counts as ended.
 */
async function same(seen: SeenProcess): Promise<boolean> {
  try {
    process.kill(seen.pid, 0);
  } catch {
    return false;
  }
  if (seen.start === undefined) return true;
  const now = await procStat(seen.pid);
  return now !== undefined && now.start === seen.start && now.state !== 'Z';
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Ends what is left of `tree`: SIGTERM, then SIGKILL after `graceMs` for what still runs. */
export async function endLeftovers(tree: readonly SeenProcess[], graceMs = 1000): Promise<void> {
  const signal = async (name: NodeJS.Signals): Promise<SeenProcess[]> => {
    const left: SeenProcess[] = [];
    for (const p of tree)
      if (await same(p)) {
        left.push(p);
        try {
          process.kill(p.pid, name);
        } catch {
          // gone meanwhile
        }
      }
    return left;
  };
  if ((await signal('SIGTERM')).length === 0) return;
  for (const end = Date.now() + graceMs; Date.now() < end; await sleep(20)) {
    const left = await Promise.all(tree.map(same));
    if (!left.includes(true)) return;
  }
  await signal('SIGKILL');
}
