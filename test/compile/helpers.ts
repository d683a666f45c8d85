/** Shared fixtures of the compile tests: hand-made SDK texts and a look at this process's children. */

import { readdirSync, readFileSync } from 'node:fs';
import { afterEach } from 'vitest';
import { createNativeChecker } from '../../src/compile/index.js';
import type { NativeCheckerOptions, SdkSource, TypeChecker } from '../../src/compile/index.js';

const PRELUDE = `type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };
declare class ToolCallError extends Error {
  private constructor();
  readonly name: "ToolCallError";
  readonly toolName: string;
  readonly code: string;
}
interface Console {
  log(...args: unknown[]): void;
  error(...args: unknown[]): void;
}
declare var console: Console;
`;

/** An SDK with `read_file` and `list_dir` (and a global `ReadFileInput` type, as generated SDKs have). */
export const READ_SDK: SdkSource = {
  hash: 'sdk-read',
  text: `${PRELUDE}
interface ReadFileInput { path: string; encoding?: "utf8" | "base64" }
interface ReadFileOutput { content: string; size: number }
interface Tools {
  /** Reads a file. */
  read_file(input: ReadFileInput): Promise<ReadFileOutput>;
  list_dir(input: { path: string }): Promise<{ entries: Array<{ name: string; isDir: boolean }> }>;
}
declare const tools: Tools;
`,
};

/** A different SDK: only `write_file`. */
export const WRITE_SDK: SdkSource = {
  hash: 'sdk-write',
  text: `${PRELUDE}
interface Tools {
  write_file(input: { path: string; content: string }): Promise<{ written: number }>;
}
declare const tools: Tools;
`,
};

/**
 * PIDs of this process's live descendants whose command is `name` (descendants, not children:
 * behind the second wall the compiler runs below bubblewrap; decision record 032).
 */
export function childProcesses(name = 'tsc'): number[] {
  const parents = new Map<number, number>();
  const named: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue;
    }
    // pid (comm) state ppid ...: comm may contain spaces, so split after the last ')'.
    const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    const [state, ppid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    parents.set(Number(entry), Number(ppid));
    if (comm === name && state !== 'Z') named.push(Number(entry));
  }
  const below = (pid: number): boolean => {
    for (let p = parents.get(pid); p !== undefined && p > 1; p = parents.get(p))
      if (p === process.pid) return true;
    return false;
  };
  return named.filter(below);
}

/** Resolves once `predicate` holds (polling), or rejects after `ms`. */
export async function waitFor(predicate: () => boolean, ms = 5000): Promise<void> {
  const until = Date.now() + ms;
  while (!predicate()) {
    if (Date.now() > until) throw new Error('condition not reached in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** The state letter of a process (`R`, `S`, `T` stopped, `Z`...). */
function processState(pid: number): string {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0] ?? '';
}

/** Stops a process (SIGSTOP) and waits until it is actually stopped: delivery is not immediate. */
export async function stopProcess(pid: number): Promise<void> {
  process.kill(pid, 'SIGSTOP');
  await waitFor(() => processState(pid) === 'T');
}

/** A `createNativeChecker` whose checkers are closed after each test of the calling file. */
export function checkersClosedAfterEach(): (options?: NativeCheckerOptions) => TypeChecker {
  const created: TypeChecker[] = [];
  afterEach(async () => {
    for (const checker of created.splice(0)) await checker.close();
  });
  return (options) => {
    const checker = createNativeChecker(options);
    created.push(checker);
    return checker;
  };
}
