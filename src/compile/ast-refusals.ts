/**
 * The refusals decided from a real parse (oxc-parser) of the program as the transpiler and the
 * checker see it: a real parser cannot be walked past by regex/division ambiguity, so what it finds
 * is what the checker would have resolved (docs/decisions/029-host-work.md). Runs where the
 * program is transpiled — the sandbox worker process, where a parser crash on absurd nesting costs
 * a worker, never the host — after the lexical scan (`refusals.ts`) has turned the common cases into
 * one friendly diagnostic, and before the checker ever sees the program.
 *
 * Refused: any module reference (`import()`, `import.meta`, `typeof import("…")`, `import x =
 * require("…")`, `require("…")`, `export`), a module or file declaration (`declare module "…"`,
 * `/// <reference …>`), and syntax nested deeper than {@link MAX_AST_DEPTH} (expressions, blocks and
 * types alike: nested generics cost the checker as much as nested brackets).
 */
import { LineMap } from './positions.js';
import { parseSyncRaw } from './oxc-bindings.js';
import { DEPTH_MESSAGE, MAX_AST_DEPTH, MODULE_MESSAGES } from './refusals.js';
import { SOURCE_PREFIX as PREFIX, SOURCE_SUFFIX as SUFFIX } from './transpile.js';
import type { Diagnostic } from './types.js';

const TRIPLE_SLASH = /^\/\s*<\s*(reference|amd-module|amd-dependency)\b/i;

interface Node {
  type: string;
  start: number;
  [key: string]: unknown;
}

function isNode(value: unknown): value is Node {
  return typeof value === 'object' && value !== null && typeof (value as Node).type === 'string';
}

/** Why a node is refused (a module message), or undefined. */
function refusedNode(node: Node): string | undefined {
  switch (node.type) {
    case 'ImportExpression':
    case 'TSImportType':
    case 'ImportDeclaration':
      return MODULE_MESSAGES.import;
    case 'MetaProperty':
      return isNode(node.meta) && node.meta.name === 'import' ? MODULE_MESSAGES.import : undefined;
    case 'ExportNamedDeclaration':
    case 'ExportDefaultDeclaration':
    case 'ExportAllDeclaration':
    case 'TSExportAssignment':
    case 'TSNamespaceExportDeclaration':
      return MODULE_MESSAGES.export;
    case 'TSImportEqualsDeclaration':
      return isNode(node.moduleReference) &&
        node.moduleReference.type === 'TSExternalModuleReference'
        ? MODULE_MESSAGES.require
        : undefined;
    case 'TSModuleDeclaration':
      return isNode(node.id) && node.id.type === 'Literal' ? MODULE_MESSAGES.file : undefined;
    case 'CallExpression': {
      const callee = node.callee;
      const first = Array.isArray(node.arguments) ? (node.arguments[0] as unknown) : undefined;
      return isNode(callee) &&
        callee.type === 'Identifier' &&
        callee.name === 'require' &&
        isNode(first) &&
        (first.type === 'Literal' || first.type === 'TemplateLiteral')
        ? MODULE_MESSAGES.require
        : undefined;
    }
    default:
      return undefined;
  }
}

/**
 * Where a node {@link refusedNode} refuses can be in the AST's JSON text: the type of every node it
 * looks at, and the identifier `require`. The serializer writes keys and values without spaces, and a
 * quote inside any string the program holds is escaped (`\"`), so program text cannot spell these.
 */
const REFUSABLE =
  /"type":"(?:Import|Export|MetaProperty|TSImport|TSExport|TSNamespaceExport|TSModuleDeclaration)|"name":"require"/;

/**
 * Deepest nesting of objects and arrays in JSON text (brackets inside strings skipped). Every node of
 * the AST is an object inside its parent's, so a tree whose JSON nests no deeper than
 * {@link MAX_AST_DEPTH} cannot be refused for depth.
 */
function jsonDepth(json: string): number {
  let depth = 0;
  let deepest = 0;
  for (let i = 0; i < json.length; i++) {
    const c = json.charCodeAt(i);
    if (c === 0x22) {
      // a string: skip to its closing quote, over escapes
      for (i++; i < json.length; i++) {
        const d = json.charCodeAt(i);
        if (d === 0x5c) i++;
        else if (d === 0x22) break;
      }
    } else if (c === 0x7b || c === 0x5b) {
      if (++depth > deepest) deepest = depth;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return deepest;
}

/**
 * Why `program` is refused, from its syntax tree; `undefined` when it is not, or when it does not
 * parse (the transpiler reports syntax errors). Linear in the program's size; no recursion. The tree
 * is built and walked only when its JSON text holds a node that could be refused or nests deeper
 * than the limit (decision 034 §7): most programs are answered from the text (~80 µs instead of
 * ~240 µs for a 35-line program).
 */
export function astRefusal(program: string): Diagnostic | undefined {
  return refusal(program, false);
}

/** {@link astRefusal}, always from the walk of the whole tree (what the text check stands in for). */
export function astRefusalByWalk(program: string): Diagnostic | undefined {
  return refusal(program, true);
}

function refusal(program: string, walkAlways: boolean): Diagnostic | undefined {
  const source = PREFIX + program + SUFFIX;
  const parsed = parseSyncRaw('program.ts', source, {
    lang: 'ts',
    sourceType: 'script',
    preserveParens: true,
  });
  if (parsed.errors.some((e) => (e.severity as string) === 'Error')) return undefined;
  const at = (offset: number, message: string): Diagnostic => {
    const position = new LineMap(program).position(
      Math.min(program.length, Math.max(0, offset - PREFIX.length)),
    );
    return {
      kind: 'syntax',
      category: 'error',
      message,
      line: position.line,
      column: position.column,
    };
  };
  for (const comment of parsed.comments) {
    if (comment.type === 'Line' && TRIPLE_SLASH.test(comment.value))
      return at(comment.start, MODULE_MESSAGES.file);
  }
  // The JSON text of `{ node, fixes }`.
  const json = parsed.program;
  if (!walkAlways && !REFUSABLE.test(json) && jsonDepth(json) <= MAX_AST_DEPTH) return undefined;
  const tree = (JSON.parse(json) as { node: unknown }).node;
  // Iterative pre-order walk in source order (children pushed in reverse): [value, depth of the
  // nearest node above it].
  const stack: [unknown, number][] = [[tree, 0]];
  while (stack.length > 0) {
    const [value, depth] = stack.pop() as [unknown, number];
    if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) stack.push([value[i] as unknown, depth]);
      continue;
    }
    if (!isNode(value)) continue;
    const here = depth + 1;
    if (here > MAX_AST_DEPTH) return at(value.start, DEPTH_MESSAGE);
    const refused = refusedNode(value);
    if (refused !== undefined) return at(value.start, refused);
    const keys = Object.keys(value);
    for (let i = keys.length - 1; i >= 0; i--) {
      const child = value[keys[i] ?? ''];
      if (typeof child === 'object' && child !== null) stack.push([child, here]);
    }
  }
  return undefined;
}
