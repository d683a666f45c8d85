/** The waits of an upstream MCP connection: aborts, process exits, and paginated listing. */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { IsocodeError, isIsocodeError } from '../index.js';

const MAX_LIST_PAGES = 1000;

/** The error a call throws when its signal aborted: the signal's reason when it is an Error. */
export function abortError(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  return reason instanceof Error || isIsocodeError(reason)
    ? reason
    : new IsocodeError('ABORTED', 'the call was aborted');
}

export function raceAbort<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) return Promise.reject(abortError(signal));
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(abortError(signal));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(e instanceof Error ? e : new Error(String(e)));
      },
    );
  });
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false; // ESRCH: gone
  }
};

/** Waits up to `ms` for a process to be gone. @returns whether it is gone */
export async function waitForExit(pid: number, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (!alive(pid)) return true;
    await sleep(20);
  }
  return !alive(pid);
}

/**
 * Ends a child that failed its handshake, before the failure is reported: SIGTERM, then SIGKILL
 * after `graceMs`. (The SDK's own close of a failed connect runs in the background on unref'd
 * timers, so a process that exits on the startup error would leave a hung child behind.)
 */
export async function stopChild(pid: number, graceMs = 2000): Promise<void> {
  if (!alive(pid)) return;
  try {
    process.kill(pid, 'SIGTERM');
  } catch {
    return;
  }
  if (await waitForExit(pid, graceMs)) return;
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    return;
  }
  await waitForExit(pid, 1000);
}

/** Lists every tool, following pagination cursors. */
export async function listAllTools(client: Client, timeout: number): Promise<Tool[]> {
  const tools: Tool[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (let page = 0; page < MAX_LIST_PAGES; page++) {
    const result = await client.listTools(cursor === undefined ? undefined : { cursor }, {
      timeout,
    });
    tools.push(...result.tools);
    cursor = result.nextCursor;
    if (cursor === undefined || seen.has(cursor)) break;
    seen.add(cursor);
  }
  return tools;
}
