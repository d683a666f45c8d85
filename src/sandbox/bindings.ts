/** Validation of the bindings a run is given, and the `tools` tree sent to the isolate. */
import { RUN_CODE } from '../tools/names.js';
import type { ToolNode } from '../../sdk-templates/isolate/protocol.js';
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
          details: { binding: JSON.stringify(entry)?.slice(0, 200) ?? null },
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
 * The `tools` tree of validated bindings, as the isolate builds it (see `ToolNode`): children in
 * binding order, a path both a tool and a namespace where bindings say so.
 */
export function toolTree(bindings: readonly SandboxBinding[]): ToolNode {
  const root: ToolNode = {};
  for (const { path, tool } of bindings) {
    let node = root;
    for (const segment of path) {
      node.c ??= Object.create(null) as Record<string, ToolNode>;
      let child = node.c[segment];
      if (child === undefined) {
        child = {};
        node.c[segment] = child;
      }
      node = child;
    }
    node.t ??= tool;
  }
  return root;
}

/** Validated bindings and what every run derives from them. */
export interface PreparedBindings {
  /** Validated copies, without `run_code`. */
  readonly bindings: readonly SandboxBinding[];
  /** The tool names the program may call. */
  readonly tools: ReadonlySet<string>;
  /** JSON of {@link toolTree}. */
  readonly treeJson: string;
}

interface CacheEntry {
  /** Copies of the input entries as they were validated. */
  seen: { path: readonly unknown[]; tool: unknown }[];
  prepared: PreparedBindings;
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

/**
 * {@link validateBindings} plus the tool set and the tree's JSON, remembered per bindings array and
 * reused while the array holds the same entries (checked on every call, element by element).
 * @throws IsocodeError `INVALID_CONFIG` as {@link validateBindings}.
 */
export function prepareBindings(input: unknown): PreparedBindings {
  const key = Array.isArray(input) ? input : undefined;
  const hit = key === undefined ? undefined : cache.get(key);
  if (hit !== undefined && key !== undefined && unchanged(key, hit.seen)) return hit.prepared;
  const bindings = validateBindings(input);
  const prepared: PreparedBindings = {
    bindings,
    tools: new Set(bindings.map((b) => b.tool)),
    treeJson: JSON.stringify(toolTree(bindings)),
  };
  if (key !== undefined) {
    const seen = (key as ({ path: unknown[]; tool: unknown } | null)[]).map((entry) => ({
      path: [...(entry?.path ?? [])],
      tool: entry?.tool,
    }));
    cache.set(key, { seen, prepared });
  }
  return prepared;
}
