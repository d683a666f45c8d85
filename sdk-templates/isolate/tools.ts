/**
 * The `tools` object: a tree of frozen, null-prototype objects whose leaves are frozen functions.
 * `tools.a.b(args)` calls tool `"a.b"` (the path ↔ name mapping comes from the SDK generator; the
 * host sends the tree already shaped, see `ToolNode` in `protocol.ts`). Only own properties exist, so
 * `tools.constructor`, `tools.__proto__` and `tools.toString` are undefined; `run_code` is never a
 * binding. Built once per run, before the program, in plain loops (this code runs in a fresh
 * context every time, before V8 has any feedback on it).
 */
import { ObjectCreate, ObjectDefineProperty, ObjectFreeze, ObjectKeys } from './primordials.js';

/** A function on the `tools` tree. */
export type ToolFunction = (args?: unknown) => Promise<unknown>;

/** The reserved name of the code tool itself; never callable from a program. */
export const RESERVED_TOOL = 'run_code';

type CallTool = (tool: string, args: unknown, binding: ToolFunction) => Promise<unknown>;

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null;
}

function materialize(tool: unknown, children: unknown, callTool: CallTool): object {
  let target: object;
  if (typeof tool === 'string' && tool !== '' && tool !== RESERVED_TOOL) {
    // The function passes itself: a refusal's stack starts at the program's frame, below it.
    const fn: ToolFunction = (args?: unknown) => callTool(tool, args, fn);
    ObjectDefineProperty(fn, 'name', { value: tool });
    target = fn;
  } else target = ObjectCreate(null) as object;
  if (isObject(children)) {
    const names = ObjectKeys(children);
    for (let i = 0; i < names.length; i++) {
      const name = names[i] as string;
      const child = children[name];
      if (name === '' || name === '__proto__' || !isObject(child)) continue;
      ObjectDefineProperty(target, name, {
        value: materialize(child.t, child.c, callTool),
        enumerable: true,
      });
    }
  }
  return ObjectFreeze(target);
}

/**
 * Builds the `tools` tree from the host's description. Malformed nodes (not objects, empty or
 * `__proto__` names, the reserved tool) are skipped; the root is never a function.
 */
export function buildTools(tree: unknown, callTool: CallTool): object {
  return materialize(undefined, isObject(tree) ? tree.c : undefined, callTool);
}
