/** This test process's child processes, as Linux `ps` lists them. */
import { execFileSync } from 'node:child_process';

/** Pids of this process's children whose command line matches `match` (a substring or a pattern). */
export function childPids(match: string | RegExp): number[] {
  let out = '';
  try {
    out = execFileSync('ps', ['-o', 'pid=,args=', '--ppid', String(process.pid)], {
      encoding: 'utf8',
    });
  } catch {
    return []; // ps exits 1 when there are no children
  }
  return out
    .split('\n')
    .filter((l) => (typeof match === 'string' ? l.includes(match) : match.test(l)))
    .map((l) => Number.parseInt(l.trim(), 10));
}
