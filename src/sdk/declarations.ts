/** Prints a converter's named types as declarations, breaking alias cycles TypeScript cannot express. */
import {
  INDENT,
  ONE_LINE,
  type RefResolver,
  UNKNOWN,
  flat,
  mapRefs,
  printMembers,
  printType,
} from './ast.js';
import type { NamedType } from './convert.js';
import { jsDoc, schemaDocLines } from './jsdoc.js';
import type { SdkWarning } from './types.js';

function isAlias(n: NamedType | undefined): boolean {
  return n !== undefined && n.node?.kind !== 'object';
}

/**
 * Edges `from → to` between type aliases that are not behind an object or array (`type A = B | null;
 * type B = A[] | A`): TypeScript rejects such cycles, so these references print as `unknown`.
 */
function brokenEdges(named: ReadonlyMap<string, NamedType>): Set<string> {
  const reaches = (from: string, to: string): boolean => {
    const seen = new Set<string>();
    const stack = [from];
    for (let k = stack.pop(); k !== undefined; k = stack.pop()) {
      if (k === to) return true;
      if (seen.has(k)) continue;
      seen.add(k);
      for (const next of named.get(k)?.unguarded ?? [])
        if (isAlias(named.get(next))) stack.push(next);
    }
    return false;
  };
  const broken = new Set<string>();
  for (const n of named.values()) {
    if (!isAlias(n)) continue;
    for (const target of n.unguarded) {
      if (isAlias(named.get(target)) && reaches(target, n.key))
        broken.add(`${n.key}\u0000${target}`);
    }
  }
  return broken;
}

/** The declarations (`interface X {…}` / `type X = …;`, with JSDoc) of every named type, in creation order. */
export function printDeclarations(
  named: ReadonlyMap<string, NamedType>,
  tool: string,
  warnings: SdkWarning[],
): string[] {
  const broken = brokenEdges(named);
  const out: string[] = [];
  for (const n of named.values()) {
    const resolve: RefResolver = (ref) => named.get(ref.key)?.name ?? 'unknown';
    for (const target of n.unguarded) {
      if (broken.has(`${n.key}\u0000${target}`)) {
        warnings.push({
          tool,
          pointer: n.doc.pointerPrefix + n.pointer,
          message: `circular reference to ${named.get(target)?.name ?? target} outside any object or array`,
        });
      }
    }
    const node =
      n.node === undefined
        ? undefined
        : mapRefs(n.node, (ref) =>
            !ref.guarded && broken.has(`${n.key}\u0000${ref.key}`) ? UNKNOWN : ref,
          );
    const doc = jsDoc(schemaDocLines(n.schema), '');
    if (node === undefined) out.push(`${doc}type ${n.name} = unknown;`);
    else if (node.kind === 'object') {
      // One line when it fits (as inline objects); a member-less interface keeps its braces.
      const one = node.members.length > 0 ? flat(node, resolve, ONE_LINE) : undefined;
      out.push(`${doc}interface ${n.name} ${one ?? `{\n${printMembers(node, INDENT, resolve)}}`}`);
    } else out.push(`${doc}type ${n.name} = ${printType(node, '', resolve)};`);
  }
  return out;
}
