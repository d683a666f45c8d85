/** Validation of the bindings a run is given, and the `tools` tree sent to the isolate. */
import { cutText } from '../text/clip.js';
import { RUN_CODE } from '../tools/names.js';
import { TOOL_INDEX, TOOL_NODE } from '../../sdk-templates/isolate/protocol.js';
import { IsocodeError } from '../errors.js';
import type { SandboxBinding } from './types.js';

function validSegment(segment: unknown): boolean {
  return typeof segment === 'string' && segment !== '' && segment !== '__proto__';
}

/**
 * Checks the bindings and returns copies, without `run_code`.
 * @throws IsocodeError `INVALID_CONFIG` for a malformed entry (empty path, non-string or
 * `__proto__` segment, empty tool name) or a path bound twice.
 */
export function validateBindings(bindings: unknown): SandboxBinding[] {
  if (!Array.isArray(bindings))
    throw new IsocodeError('INVALID_CONFIG', 'bindings must be an array');
  const seen = new Set<string>();
  const out: SandboxBinding[] = [];
  for (const entry of bindings as unknown[]) {
    const b = entry as { path?: unknown; tool?: unknown } | null;
    const path = b?.path;
    const tool = b?.tool;
    if (
      !Array.isArray(path) ||
      path.length === 0 ||
      !path.every(validSegment) ||
      typeof tool !== 'string' ||
      tool === ''
    ) {
      throw new IsocodeError(
        'INVALID_CONFIG',
        'a binding needs a non-empty path of non-empty names (not __proto__) and a tool name',
        {
          details: { binding: cutText(JSON.stringify(entry) ?? 'null', 200) },
        },
      );
    }
    if (tool === RUN_CODE) continue; // the code tool is never a binding, even if listed
    const key = (path as string[]).join('\u0000');
    if (seen.has(key))
      throw new IsocodeError(
        'INVALID_CONFIG',
        `binding path tools.${(path as string[]).join('.')} is bound twice`,
      );
    seen.add(key);
    out.push({ path: [...(path as string[])], tool });
  }
  return out;
}

/**
 * The tool index of validated bindings (see `TOOL_INDEX` in the isolate protocol): a line per node
 * of the `tools` tree in the order nodes first appear, a path both a tool and a namespace where
 * bindings say so (the first binding of a path wins, as the isolate never sees a second one).
 */
export function toolIndex(bindings: readonly SandboxBinding[]): string {
  interface IndexNode {
    key: string;
    tool: string | undefined;
    parent: boolean;
  }
  const nodes = new Map<string, IndexNode>();
  for (const { path, tool } of bindings) {
    let key = '';
    let above: IndexNode | undefined;
    for (const segment of path) {
      key =
        key === '' ? JSON.stringify(segment) : key + TOOL_INDEX.segment + JSON.stringify(segment);
      let node = nodes.get(key);
      if (node === undefined) {
        node = { key, tool: undefined, parent: false };
        nodes.set(key, node);
      }
      if (above !== undefined) above.parent = true;
      above = node;
    }
    if (above !== undefined) above.tool ??= tool;
  }
  let out = '';
  for (const { key, tool, parent } of nodes.values()) {
    const kind =
      tool === undefined ? TOOL_NODE.namespace : parent ? TOOL_NODE.both : TOOL_NODE.tool;
    out +=
      TOOL_INDEX.line +
      key +
      TOOL_INDEX.tool +
      kind +
      (tool === undefined ? '' : JSON.stringify(tool));
  }
  return out;
}

/** Validated bindings and what every run derives from them. */
export interface PreparedBindings {
  /** Validated copies, without `run_code`. */
  readonly bindings: readonly SandboxBinding[];
  /** The tool names the program may call. */
  readonly tools: ReadonlySet<string>;
  /** The {@link toolIndex} of the bindings: what the isolate builds `tools` from, lazily. */
  readonly index: string;
}

interface CacheEntry {
  /** Copies of the input entries as they were validated. */
  seen: { path: readonly unknown[]; tool: unknown }[];
  prepared: PreparedBindings;
  /** The input cannot change: a frozen list of frozen entries with frozen paths, data properties only. */
  frozen: boolean;
}

/** Keyed by the caller's array: an SDK's bindings are usually the same array run after run. */
const cache = new WeakMap<object, CacheEntry>();

/** True when `input` still holds what `seen` recorded (same tools, same path segments). */
function unchanged(input: readonly unknown[], seen: CacheEntry['seen']): boolean {
  if (input.length !== seen.length) return false;
  for (let i = 0; i < input.length; i++) {
    const entry = input[i] as { path?: unknown; tool?: unknown } | null;
    const was = seen[i];
    if (was === undefined || entry === null || typeof entry !== 'object') return false;
    const path = entry.path;
    if (entry.tool !== was.tool || !Array.isArray(path) || path.length !== was.path.length)
      return false;
    for (let j = 0; j < path.length; j++) if (path[j] !== was.path[j]) return false;
  }
  return true;
}

/** An own data property of `o` (not a getter that could answer differently next time). */
function ownData(o: object, key: string | number): boolean {
  const d = Object.getOwnPropertyDescriptor(o, key);
  return d !== undefined && 'value' in d;
}

/**
 * True when `input` can never hold other bindings than it holds now: the list, each entry and each
 * path are frozen, and everything read from them is an own data property. Checked once per list.
 */
function immutable(input: readonly unknown[]): boolean {
  if (!Object.isFrozen(input)) return false;
  for (let i = 0; i < input.length; i++) {
    if (!ownData(input, i)) return false;
    const entry = input[i];
    if (typeof entry !== 'object' || entry === null || !Object.isFrozen(entry)) return false;
    if (!ownData(entry, 'path') || !ownData(entry, 'tool')) return false;
    const path = (entry as { path: unknown }).path;
    if (!Array.isArray(path) || !Object.isFrozen(path)) return false;
    for (let j = 0; j < path.length; j++) if (!ownData(path, j)) return false;
  }
  return true;
}

/**
 * {@link validateBindings} plus the tool set and the tool index, remembered per bindings array and
 * reused while the array holds the same entries: checked on every call, element by element, unless
 * the array cannot change (frozen all the way down, as the runtime's SDKs and a worker's trees are):
 * then a run against 1,000 tools does no more here than one against 10.
 * @throws IsocodeError `INVALID_CONFIG` as {@link validateBindings}.
 */
export function prepareBindings(input: unknown): PreparedBindings {
  const key = Array.isArray(input) ? input : undefined;
  const hit = key === undefined ? undefined : cache.get(key);
  if (hit !== undefined && key !== undefined && (hit.frozen || unchanged(key, hit.seen)))
    return hit.prepared;
  const bindings = validateBindings(input);
  const prepared: PreparedBindings = {
    bindings,
    tools: new Set(bindings.map((b) => b.tool)),
    index: toolIndex(bindings),
  };
  if (key !== undefined) {
    const seen = (key as ({ path: unknown[]; tool: unknown } | null)[]).map((entry) => ({
      path: [...(entry?.path ?? [])],
      tool: entry?.tool,
    }));
    cache.set(key, { seen, prepared, frozen: immutable(key) });
  }
  return prepared;
}
