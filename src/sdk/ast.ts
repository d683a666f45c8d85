/** A small TypeScript type AST with smart constructors and a printer (multi-line object literals). */
import { jsDoc } from './jsdoc.js';
import { propertyKey } from './names.js';

/** A property of an object type. */
export interface Member {
  /** The raw property name (quoted on print when needed). */
  name: string;
  optional: boolean;
  type: TypeNode;
  doc: string[];
}

/** A TypeScript type. `ref` points at a named declaration by key and is resolved when printed. */
export type TypeNode =
  | { kind: 'keyword'; text: string }
  | { kind: 'ref'; key: string; guarded: boolean }
  | { kind: 'union'; members: TypeNode[] }
  | { kind: 'intersection'; members: TypeNode[] }
  | { kind: 'array'; element: TypeNode }
  | { kind: 'tuple'; elements: TypeNode[]; required: number; rest: TypeNode | undefined }
  | { kind: 'object'; members: Member[]; index: TypeNode | undefined };

export const JSON_VALUE: TypeNode = { kind: 'keyword', text: 'JsonValue' };
export const UNKNOWN: TypeNode = { kind: 'keyword', text: 'unknown' };
export const NEVER: TypeNode = { kind: 'keyword', text: 'never' };
export const NULL: TypeNode = { kind: 'keyword', text: 'null' };
export const UNDEFINED: TypeNode = { kind: 'keyword', text: 'undefined' };

/** A keyword, literal or other atomic type text. */
export function keyword(text: string): TypeNode {
  return { kind: 'keyword', text };
}

function is(node: TypeNode, text: string): boolean {
  return node.kind === 'keyword' && node.text === text;
}

const keys = new WeakMap<TypeNode, string>();

/** A structural identity of a node (memoised: nodes are never mutated after construction). */
function nodeKey(node: TypeNode): string {
  let k = keys.get(node);
  if (k !== undefined) return k;
  switch (node.kind) {
    case 'keyword':
      k = `k${node.text}`;
      break;
    case 'ref':
      k = `r${node.guarded ? 'g' : 'u'}${node.key}`;
      break;
    case 'union':
    case 'intersection':
      k = `${node.kind[0] as string}(${node.members.map(nodeKey).join(',')})`;
      break;
    case 'array':
      k = `a(${nodeKey(node.element)})`;
      break;
    case 'tuple':
      k = `t${node.required}(${node.elements.map(nodeKey).join(',')}|${node.rest ? nodeKey(node.rest) : ''})`;
      break;
    case 'object':
      k = `o(${node.members.map((m) => `${JSON.stringify(m.name)}${m.optional ? '?' : ''}:${nodeKey(m.type)}:${JSON.stringify(m.doc)}`).join(',')}|${node.index ? nodeKey(node.index) : ''})`;
      break;
  }
  keys.set(node, k);
  return k;
}

function dedupe(nodes: TypeNode[]): TypeNode[] {
  const seen = new Set<string>();
  return nodes.filter((n) => {
    const k = nodeKey(n);
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

const JSON_SUBSUMED = new Set(['string', 'number', 'boolean', 'null']);

/** `A | B`: flattened and deduplicated; `unknown` absorbs, `never` vanishes, `JsonValue` absorbs primitives. */
export function union(nodes: readonly TypeNode[]): TypeNode {
  let flat = dedupe(
    nodes.flatMap((n) => (n.kind === 'union' ? n.members : [n])).filter((n) => !is(n, 'never')),
  );
  if (flat.some((n) => is(n, 'unknown'))) return UNKNOWN;
  if (flat.some((n) => is(n, 'JsonValue'))) {
    flat = flat.filter(
      (n) =>
        !(
          n.kind === 'keyword' &&
          (JSON_SUBSUMED.has(n.text) || /^["\d-]|^true$|^false$/.test(n.text))
        ),
    );
    flat.unshift(JSON_VALUE);
    flat = dedupe(flat);
  }
  if (flat.length === 0) return NEVER;
  return flat.length === 1 ? (flat[0] as TypeNode) : { kind: 'union', members: flat };
}

/**
 * `A & B`: flattened and deduplicated; unconstraining members (`JsonValue`, `unknown`) are dropped, so an
 * empty intersection is `JsonValue` (any JSON value); `never` absorbs.
 */
export function intersection(nodes: readonly TypeNode[]): TypeNode {
  const flat = dedupe(
    nodes
      .flatMap((n) => (n.kind === 'intersection' ? n.members : [n]))
      .filter((n) => !is(n, 'JsonValue') && !is(n, 'unknown')),
  );
  if (flat.some((n) => is(n, 'never'))) return NEVER;
  if (flat.length === 0)
    return nodes.length > 0 && nodes.every((n) => is(n, 'unknown')) ? UNKNOWN : JSON_VALUE;
  return flat.length === 1 ? (flat[0] as TypeNode) : { kind: 'intersection', members: flat };
}

/** Resolves a `ref` node to the text printed for it (a type name, or `unknown` for a broken cycle). */
export type RefResolver = (ref: { key: string; guarded: boolean }) => string;

function wrapped(
  node: TypeNode,
  indent: string,
  resolve: RefResolver,
  wrapIntersections: boolean,
): string {
  const text = printType(node, indent, resolve);
  const needs = node.kind === 'union' || (wrapIntersections && node.kind === 'intersection');
  return needs ? `(${text})` : text;
}

/** True when `node` refers to a named type anywhere inside. */
function hasRef(node: TypeNode): boolean {
  switch (node.kind) {
    case 'keyword':
      return false;
    case 'ref':
      return true;
    case 'union':
    case 'intersection':
      return node.members.some(hasRef);
    case 'array':
      return hasRef(node.element);
    case 'tuple':
      return node.elements.some(hasRef) || (node.rest !== undefined && hasRef(node.rest));
    case 'object':
      return (
        node.members.some((m) => hasRef(m.type)) || (node.index !== undefined && hasRef(node.index))
      );
  }
}

/**
 * A member-less object with value type text `value`: `Record<string, T>`, or `{ [key: string]: T }` when
 * `T` names a type, because a type alias may not reach itself through `Record` (TS2456) but may through
 * an object literal.
 */
function map(value: string, node: Extract<TypeNode, { kind: 'object' }>): string {
  return node.index !== undefined && hasRef(node.index)
    ? `{ [key: string]: ${value} }`
    : `Record<string, ${value}>`;
}

/** One level of indentation (one space: a second space costs a token on most lines). */
export const INDENT = ' ';
/**
 * An object literal is printed on one line when each member's JSDoc is one line and it fits in this
 * many characters (members then keep their doc inline: `{ /** The id. *\/ id: string; n?: number }`).
 */
export const ONE_LINE = 200;
/** A one-line member JSDoc up to this long shares the member's line (a longer one has its own). */
const SHARED_DOC = 80;

/**
 * Prints a type. An object literal without members is `Record<string, T>`; one whose members' JSDoc is
 * one line each and that fits in {@link ONE_LINE} characters is one line (`{ a: string; b?: number }`);
 * any other is multi-line, indented relative to `indent`.
 */
export function printType(node: TypeNode, indent: string, resolve: RefResolver): string {
  switch (node.kind) {
    case 'keyword':
      return node.text;
    case 'ref':
      return resolve(node);
    case 'union':
      return node.members.map((m) => printType(m, indent, resolve)).join(' | ');
    case 'intersection':
      return node.members.map((m) => wrapped(m, indent, resolve, false)).join(' & ');
    case 'array':
      return `${wrapped(node.element, indent, resolve, true)}[]`;
    case 'tuple': {
      const parts = node.elements.map((e, i) =>
        i < node.required ? printType(e, indent, resolve) : `${wrapped(e, indent, resolve, true)}?`,
      );
      if (node.rest !== undefined) parts.push(`...${wrapped(node.rest, indent, resolve, true)}[]`);
      return `[${parts.join(', ')}]`;
    }
    case 'object':
      if (node.members.length === 0)
        return map(printType(node.index ?? NEVER, indent, resolve), node);
      return (
        flat(node, resolve, ONE_LINE) ??
        `{\n${printMembers(node, indent + INDENT, resolve)}${indent}}`
      );
  }
}

/**
 * The one-line text of `node` when it fits in `budget` characters and no member of an object in it has
 * a multi-line JSDoc (a one-line JSDoc stays inline, before its member); else undefined. Gives up as
 * soon as the budget is spent, so trying it at every level stays linear.
 */
export function flat(node: TypeNode, resolve: RefResolver, budget: number): string | undefined {
  if (budget <= 0) return undefined;
  const one = (n: TypeNode, wrap: boolean, left: number): string | undefined => {
    const t = flat(n, resolve, wrap ? left - 2 : left);
    return t === undefined ? undefined : wrap ? `(${t})` : t;
  };
  const composite = (n: TypeNode): boolean => n.kind === 'union' || n.kind === 'intersection';
  const list = (items: readonly [TypeNode, boolean, string][], sep: string): string | undefined => {
    let out = '';
    for (const [i, [n, wrap, suffix]] of items.entries()) {
      const t = one(n, wrap, budget - out.length);
      if (t === undefined) return undefined;
      out += `${i === 0 ? '' : sep}${t}${suffix}`;
      if (out.length > budget) return undefined;
    }
    return out;
  };
  let text: string | undefined;
  switch (node.kind) {
    case 'keyword':
    case 'ref':
      text = printType(node, '', resolve);
      break;
    case 'union':
      text = list(
        node.members.map((m) => [m, false, '']),
        ' | ',
      );
      break;
    case 'intersection':
      text = list(
        node.members.map((m) => [m, m.kind === 'union', '']),
        ' & ',
      );
      break;
    case 'array': {
      const e = one(node.element, composite(node.element), budget - 2);
      text = e === undefined ? undefined : `${e}[]`;
      break;
    }
    case 'tuple': {
      const items: [TypeNode, boolean, string][] = node.elements.map((e, i) =>
        i < node.required ? [e, false, ''] : [e, composite(e), '?'],
      );
      const inner = list(items, ', ');
      const rest = node.rest === undefined ? '' : one(node.rest, composite(node.rest), budget - 6);
      text =
        inner === undefined || rest === undefined
          ? undefined
          : `[${[inner, ...(rest === '' ? [] : [`...${rest}[]`])].filter((p) => p !== '').join(', ')}]`;
      break;
    }
    case 'object': {
      if (node.members.some((m) => m.doc.length > 1)) return undefined;
      if (node.members.length === 0) {
        const v = flat(node.index ?? NEVER, resolve, budget - 16);
        text = v === undefined ? undefined : map(v, node);
        break;
      }
      const parts: string[] = [];
      let used = 4;
      for (const m of node.members) {
        const doc = jsDoc(m.doc, '').replace(/\n$/, '');
        const key = `${doc === '' ? '' : `${doc} `}${propertyKey(m.name)}${m.optional ? '?' : ''}: `;
        const t = flat(m.type, resolve, budget - used - key.length);
        if (t === undefined) return undefined;
        used += key.length + t.length + 2;
        if (used > budget) return undefined;
        parts.push(key + t);
      }
      if (node.index !== undefined) {
        const t = flat(node.index, resolve, budget - used - 15);
        if (t === undefined) return undefined;
        parts.push(`[key: string]: ${t}`);
      }
      text = `{ ${parts.join('; ')} }`;
      break;
    }
  }
  return text !== undefined && text.length <= budget && !text.includes('\n') ? text : undefined;
}

/** The member lines of an object type (each ending in a newline), at `indent`. */
export function printMembers(
  node: Extract<TypeNode, { kind: 'object' }>,
  indent: string,
  resolve: RefResolver,
): string {
  let out = '';
  for (const m of node.members) {
    const doc = jsDoc(m.doc, indent);
    const key = `${propertyKey(m.name)}${m.optional ? '?' : ''}: ${printType(m.type, indent, resolve)};`;
    // A short one-line JSDoc shares the member's line.
    if (
      doc !== '' &&
      doc.indexOf('\n') === doc.length - 1 &&
      doc.length <= SHARED_DOC + indent.length
    )
      out += `${doc.slice(0, -1)} ${key}\n`;
    else out += `${doc}${indent}${key}\n`;
  }
  if (node.index !== undefined)
    out += `${indent}[key: string]: ${printType(node.index, indent, resolve)};\n`;
  return out;
}

/** Rebuilds `node` with every `ref` replaced by `replace(ref)`, re-simplifying unions and intersections. */
export function mapRefs(
  node: TypeNode,
  replace: (ref: Extract<TypeNode, { kind: 'ref' }>) => TypeNode,
): TypeNode {
  const map = (n: TypeNode): TypeNode => mapRefs(n, replace);
  switch (node.kind) {
    case 'keyword':
      return node;
    case 'ref':
      return replace(node);
    case 'union':
      return union(node.members.map(map));
    case 'intersection':
      return intersection(node.members.map(map));
    case 'array':
      return { kind: 'array', element: map(node.element) };
    case 'tuple':
      return {
        ...node,
        elements: node.elements.map(map),
        rest: node.rest === undefined ? undefined : map(node.rest),
      };
    case 'object':
      return {
        kind: 'object',
        members: node.members.map((m) => ({ ...m, type: map(m.type) })),
        index: node.index === undefined ? undefined : map(node.index),
      };
  }
}
