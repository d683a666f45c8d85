/** JSON values → TypeScript literal types (`enum`/`const`). */
import { type Member, type TypeNode, NEVER, NULL, keyword } from './ast.js';
import { child } from './pointer.js';

/** Reports an inexpressible part at a pointer and returns the type used instead (`unknown`). */
export type Warn = (pointer: string, message: string) => TypeNode;

/**
 * The literal type of a JSON value: strings via `JSON.stringify` (so quotes, backslashes and line
 * breaks are escaped), arrays as closed tuples, objects as closed object types.
 */
export function literalType(
  value: unknown,
  ptr: string,
  depth: number,
  maxDepth: number,
  warn: Warn,
): TypeNode {
  if (depth > maxDepth) return warn(ptr, `nested deeper than ${maxDepth}`);
  if (value === null) return NULL;
  switch (typeof value) {
    case 'boolean':
      return keyword(String(value));
    case 'string':
      return keyword(JSON.stringify(value));
    case 'number':
      return Number.isFinite(value)
        ? keyword(String(value))
        : warn(ptr, 'non-finite number literal');
    case 'object':
      break;
    default:
      return warn(ptr, `a ${typeof value} is not a JSON literal`);
  }
  if (Array.isArray(value)) {
    const elements = value.map((v, i) => literalType(v, child(ptr, i), depth + 1, maxDepth, warn));
    return { kind: 'tuple', elements, required: elements.length, rest: undefined };
  }
  const o = value as Record<string, unknown>;
  const members: Member[] = Object.keys(o).map((k) => ({
    name: k,
    optional: false,
    type: literalType(o[k], child(ptr, k), depth + 1, maxDepth, warn),
    doc: [],
  }));
  return { kind: 'object', members, index: members.length === 0 ? NEVER : undefined };
}
