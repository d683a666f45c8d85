/**
 * The `tools` object: a tree of frozen, null-prototype objects whose leaves are frozen functions.
 * `tools.a.b(args)` calls tool `"a.b"` (the path ↔ name mapping comes from the SDK generator).
 * Only own properties exist, so `tools.constructor`, `tools.__proto__` and `tools.toString` are
 * undefined; `run_code` is never a binding. Runs once per run, before the program.
 */
import { isArray, ObjectCreate, ObjectDefineProperty, ObjectFreeze } from './primordials.js';

/** A binding: where the function sits in `tools`, and which tool it calls. */
export interface Binding {
  path: string[];
  tool: string;
}

/** A function on the `tools` tree. */
export type ToolFunction = (args?: unknown) => Promise<unknown>;

/** The reserved name of the code tool itself; never callable from a program. */
export const RESERVED_TOOL = 'run_code';

interface TreeNode {
  tool: string | undefined;
  children: Map<string, TreeNode>;
}

function validSegment(segment: unknown): segment is string {
  return typeof segment === 'string' && segment !== '' && segment !== '__proto__';
}

/**
 * Builds the `tools` tree. Malformed entries (empty path, non-string segment, `__proto__`
 * segment, the reserved tool) are skipped; for a duplicated path the first binding wins.
 */
export function buildTools(
  bindings: readonly Binding[],
  callTool: (tool: string, args: unknown) => Promise<unknown>,
): object {
  const root: TreeNode = { tool: undefined, children: new Map() };
  for (const binding of bindings) {
    const { path, tool } = binding;
    if (
      !isArray(path) ||
      path.length === 0 ||
      typeof tool !== 'string' ||
      tool === '' ||
      tool === RESERVED_TOOL
    )
      continue;
    if (!path.every(validSegment)) continue;
    let node = root;
    for (const segment of path) {
      let child = node.children.get(segment);
      if (child === undefined) {
        child = { tool: undefined, children: new Map() };
        node.children.set(segment, child);
      }
      node = child;
    }
    node.tool ??= tool;
  }

  const materialize = (node: TreeNode): object => {
    let target: object;
    if (node.tool === undefined) {
      target = ObjectCreate(null) as object;
    } else {
      const tool = node.tool;
      const fn: ToolFunction = (args?: unknown) => callTool(tool, args);
      ObjectDefineProperty(fn, 'name', { value: tool });
      target = fn;
    }
    for (const [name, child] of node.children) {
      ObjectDefineProperty(target, name, { value: materialize(child), enumerable: true });
    }
    return ObjectFreeze(target);
  };
  return materialize(root);
}
