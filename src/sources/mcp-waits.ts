/** The waits of an upstream MCP connection: aborts, process exits, and paginated listing. */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ToolSchema } from '@modelcontextprotocol/sdk/types.js';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { IsocodeError, isIsocodeError } from '../index.js';
import { clipText } from '../text/clip.js';
import { upstreamTooBig } from '../tools/schema.js';

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

/** An upstream's tool list: the entries MCP's `Tool` schema accepts, and the others with why. */
export interface ToolList {
  tools: Tool[];
  malformed: { name: string; reason: string }[];
}

/** A `tools/list` page, its entries unread: each is checked alone, so one odd entry is one tool left out. */
const LIST_PAGE = z.object({ tools: z.array(z.unknown()), nextCursor: z.string().optional() });

/** How much of an upstream's name and of the schema's complaint a malformed entry keeps. */
const MALFORMED_NAME_CHARS = 128;
const MALFORMED_REASON_CHARS = 300;

/**
 * Lists every tool, following pagination cursors. An entry that is not an MCP `Tool` (no
 * `inputSchema`, an `inputSchema` whose `type` is not `"object"`, a name that is not a string...) is
 * in `malformed` with the first thing wrong with it, instead of failing the whole list.
 */
export async function listAllTools(client: Client, timeout: number): Promise<ToolList> {
  const list: ToolList = { tools: [], malformed: [] };
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (let page = 0; page < MAX_LIST_PAGES; page++) {
    const result = await client.request(
      { method: 'tools/list', ...(cursor === undefined ? {} : { params: { cursor } }) },
      LIST_PAGE,
      { timeout },
    );
    for (const entry of result.tools) {
      // Bounded before anything reads it whole (JSON.stringify, the validators, the renderers).
      const big = upstreamTooBig(entry);
      if (big !== undefined) {
        list.malformed.push(malformedEntry(entry, `too big to read: it ${big}`, list));
        continue;
      }
      const parsed = ToolSchema.safeParse(entry);
      if (parsed.success) list.tools.push(parsed.data);
      else list.malformed.push(malformedEntry(entry, notATool(parsed.error.issues), list));
    }
    cursor = result.nextCursor;
    if (cursor === undefined || seen.has(cursor)) break;
    seen.add(cursor);
  }
  return list;
}

/** The first thing wrong with an entry MCP's `Tool` schema refused. */
function notATool(issues: readonly { path: readonly PropertyKey[]; message: string }[]): string {
  const first = issues[0];
  if (first === undefined) return 'not an MCP tool';
  const where = first.path.map(String).join('.');
  return `not an MCP tool: ${where === '' ? '' : `${where}: `}${first.message}`;
}

/** A left-out entry as the source's status lists it: its name (cut) and why (cut). */
function malformedEntry(
  entry: unknown,
  reason: string,
  list: ToolList,
): { name: string; reason: string } {
  const named =
    typeof entry === 'object' && entry !== null && 'name' in entry ? entry.name : undefined;
  const position = list.tools.length + list.malformed.length + 1;
  const name =
    typeof named === 'string'
      ? clipText(named, MALFORMED_NAME_CHARS)
      : `(entry ${position} of the list, no name)`;
  return { name, reason: clipText(reason, MALFORMED_REASON_CHARS) };
}
