/**
 * The one mapping between tool names and SDK binding paths, shared by the SDK renderer and the
 * isolate-side `tools` proxy.
 *
 * Rule: a tool name is split on `.`; `github.create_issue` binds as `tools.github.create_issue`.
 * A name stays a single flat key (`tools["a..b"]`) when any segment is empty or `__proto__`, or when
 * a proper prefix of it is itself a tool name (`github` and `github.create_issue` → the latter binds as
 * `tools["github.create_issue"]`). Names without a `.` always bind flat (`tools["get-user"]`,
 * `tools.server__tool`).
 */

import { memberAccess } from './names.js';

/** Where a tool lives on the `tools` object: `tools[path[0]][path[1]]…` calls the tool named `tool`. */
export interface SdkBinding {
  /** Property keys from `tools` down to the callable. */
  path: string[];
  /** The tool's name, exactly as the runtime knows it. */
  tool: string;
}

function nestable(segments: readonly string[]): boolean {
  return segments.length > 1 && segments.every((s) => s.length > 0 && s !== '__proto__');
}

/**
 * The binding path of every tool name, sorted by tool name (duplicates and non-strings dropped).
 * @param options.namespaces split dotted names into nested objects @default true
 */
export function sdkBindings(
  toolNames: readonly string[],
  options: { namespaces?: boolean | undefined } = {},
): SdkBinding[] {
  const names = [...new Set(toolNames.filter((n): n is string => typeof n === 'string'))].sort(
    compareNames,
  );
  if (options.namespaces === false) return names.map((tool) => ({ path: [tool], tool }));
  const all = new Set(names);
  return names.map((tool) => {
    const segments = tool.split('.');
    if (!nestable(segments)) return { path: [tool], tool };
    for (let i = 1; i < segments.length; i++) {
      if (all.has(segments.slice(0, i).join('.'))) return { path: [tool], tool };
    }
    return { path: segments, tool };
  });
}

/** Code-unit order: locale-independent, so the SDK text never depends on the host. */
export function compareNames(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * How a program writes the binding at `path`: `tools.fs.read_file`, `tools.fs["read-file"]`,
 * `tools["get-user"]`. The one rendering of a binding route; every message and helper that names
 * a binding uses it, with the path that {@link sdkBindings} gave the tool.
 */
export function bindingExpression(path: readonly string[]): string {
  return `tools${path.map(memberAccess).join('')}`;
}
