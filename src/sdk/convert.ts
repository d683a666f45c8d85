/**
 * JSON Schema → TypeScript type AST. Total: any input gives a type; what cannot be expressed becomes
 * `unknown` plus a warning. Local `$ref`s become named declarations (recursion included); everything
 * else is inlined.
 */
import {
  type Member,
  type TypeNode,
  JSON_VALUE,
  NEVER,
  NULL,
  UNDEFINED,
  UNKNOWN,
  intersection,
  keyword,
  union,
} from './ast.js';
import { schemaDocLines } from './jsdoc.js';
import { literalType } from './literal.js';
import { type NameAllocator, pascalCase } from './names.js';
import { child, escapeToken, parseLocalRef, resolvePointer } from './pointer.js';
import { type Schema, has, isPlainObject, matchesType, own } from './schema.js';
import type { SdkWarning } from './types.js';

/** One schema document (a tool's input or output schema); `$ref`s resolve inside it. */
export interface SchemaDoc {
  /** Distinguishes documents in named-type keys (`input`, `output`). */
  id: string;
  root: unknown;
  /** Prepended to warning pointers (`/inputSchema`). */
  pointerPrefix: string;
}

/** A declaration the converter produces: a document root or a `$ref` target. */
export interface NamedType {
  key: string;
  name: string;
  doc: SchemaDoc;
  pointer: string;
  schema: unknown;
  node: TypeNode | undefined;
  /** Keys of named types referenced outside any object/array structure (a possible alias cycle). */
  unguarded: Set<string>;
}

/** Conversion limits. */
export interface ConvertLimits {
  /** Nesting depth of inline subschemas before `unknown`. */
  maxDepth: number;
  /** Subschema visits per converter before `unknown` (guards against shared-subtree blow-up). */
  maxNodes: number;
}

const OBJECT_KEYWORDS = ['properties', 'additionalProperties', 'patternProperties', 'required'];
const ARRAY_KEYWORDS = ['items', 'prefixItems', 'additionalItems'];
/** Members of TypeScript's `Object` interface, which every object type has. */
const OBJECT_MEMBERS = new Set([
  'constructor',
  'toString',
  'toLocaleString',
  'valueOf',
  'hasOwnProperty',
  'isPrototypeOf',
  'propertyIsEnumerable',
]);

/** Converts the schemas of one tool (or one standalone schema), collecting named types and warnings. */
export class SchemaConverter {
  /** Named types in creation order. */
  readonly named = new Map<string, NamedType>();
  readonly warnings: SdkWarning[] = [];
  private readonly queue: NamedType[] = [];
  private readonly active = new Set<object>();
  private current: NamedType | undefined;
  private visits = 0;

  constructor(
    private readonly tool: string,
    /** Prefix of `$defs` type names (the tool's type-name stem). */
    private readonly prefix: string,
    private readonly names: NameAllocator,
    private readonly limits: ConvertLimits,
    /** Claims a name for a document root on its first `#` reference when it was not named up front. */
    private readonly rootName: (doc: SchemaDoc) => string = () => names.claim(`${prefix}Root`),
  ) {}

  /** Declares a document's root as the named type `name` (already claimed by the caller). */
  nameRoot(doc: SchemaDoc, name: string): NamedType {
    return this.declare(doc, [], doc.root, name);
  }

  /** Converts every pending named type (including those discovered while converting). */
  drain(): void {
    for (let next = this.queue.shift(); next !== undefined; next = this.queue.shift()) {
      this.current = next;
      next.node = this.convert(next.schema, next.doc, next.pointer, 0, false);
      this.current = undefined;
    }
  }

  /** Converts a schema in place (not as a named type); `$ref` targets still become named types. */
  inline(doc: SchemaDoc, schema: unknown, pointer = ''): TypeNode {
    return this.convert(schema, doc, pointer, 0, true);
  }

  private warn(doc: SchemaDoc, pointer: string, message: string): TypeNode {
    this.warnings.push({ tool: this.tool, pointer: doc.pointerPrefix + pointer, message });
    return UNKNOWN;
  }

  private declare(
    doc: SchemaDoc,
    tokens: readonly string[],
    schema: unknown,
    name: string,
  ): NamedType {
    const pointer = tokens.map((t) => `/${escapeToken(t)}`).join('');
    const named: NamedType = {
      key: `${doc.id}#${pointer}`,
      name,
      doc,
      pointer,
      schema,
      node: undefined,
      unguarded: new Set(),
    };
    this.named.set(named.key, named);
    this.queue.push(named);
    return named;
  }

  private convert(
    schema: unknown,
    doc: SchemaDoc,
    ptr: string,
    depth: number,
    guarded: boolean,
    /** The schema is an `allOf` member: its type is intersected with its siblings'. */
    conjunct = false,
  ): TypeNode {
    if (schema === true) return JSON_VALUE;
    if (schema === false) return NEVER;
    if (!isPlainObject(schema))
      return this.warn(doc, ptr, 'not a JSON Schema (expected an object or boolean)');
    if (depth > this.limits.maxDepth)
      return this.warn(doc, ptr, `nested deeper than ${this.limits.maxDepth}`);
    if (++this.visits > this.limits.maxNodes) return this.warn(doc, ptr, 'schema too large');
    if (this.active.has(schema))
      return this.warn(doc, ptr, 'cyclic schema object (use $ref for recursion)');
    this.active.add(schema);
    try {
      return this.convertObject(schema, doc, ptr, depth, guarded, conjunct);
    } finally {
      this.active.delete(schema);
    }
  }

  private convertObject(
    s: Schema,
    doc: SchemaDoc,
    ptr: string,
    depth: number,
    guarded: boolean,
    conjunct: boolean,
  ): TypeNode {
    const parts: TypeNode[] = [];
    // Its own object part is intersected with other parts: see `object`.
    const combined = conjunct || ['$ref', 'allOf', 'anyOf', 'oneOf'].some((k) => has(s, k));
    if (has(s, '$ref')) parts.push(this.ref(own(s, '$ref'), doc, child(ptr, '$ref'), guarded));
    if (has(s, '$dynamicRef') || has(s, '$recursiveRef')) {
      parts.push(this.warn(doc, ptr, '$dynamicRef/$recursiveRef are not supported'));
    }
    const types = this.types(s, doc, ptr);
    const literals = has(s, 'const')
      ? [own(s, 'const')]
      : Array.isArray(own(s, 'enum'))
        ? (own(s, 'enum') as unknown[])
        : undefined;
    if (has(s, 'enum') && !Array.isArray(own(s, 'enum')))
      this.warn(doc, child(ptr, 'enum'), 'enum is not an array');
    if (literals !== undefined) {
      const allowed =
        types === undefined
          ? literals
          : literals.filter((v) => types.some((t) => matchesType(v, t)));
      parts.push(
        union(
          allowed.map((v, i) =>
            literalType(
              v,
              child(ptr, has(s, 'const') ? 'const' : 'enum', i),
              depth + 1,
              this.limits.maxDepth,
              (p, m) => this.warn(doc, p, m),
            ),
          ),
        ),
      );
    } else if (types !== undefined) {
      parts.push(union(types.map((t) => this.typed(t, s, doc, ptr, depth, combined))));
    } else if (OBJECT_KEYWORDS.some((k) => has(s, k))) {
      parts.push(this.object(s, doc, ptr, depth, combined));
    } else if (ARRAY_KEYWORDS.some((k) => has(s, k))) {
      parts.push(this.array(s, doc, ptr, depth));
    }
    for (const key of ['anyOf', 'oneOf'] as const) {
      const members = this.subschemas(s, key, doc, ptr);
      if (members !== undefined) {
        parts.push(
          union(
            members.map((m, i) => this.convert(m, doc, child(ptr, key, i), depth + 1, guarded)),
          ),
        );
      }
    }
    const all = this.subschemas(s, 'allOf', doc, ptr);
    if (all !== undefined)
      all.forEach((m, i) =>
        parts.push(this.convert(m, doc, child(ptr, 'allOf', i), depth + 1, guarded, true)),
      );
    const result = intersection(parts);
    return own(s, 'nullable') === true ? union([result, NULL]) : result;
  }

  private subschemas(s: Schema, key: string, doc: SchemaDoc, ptr: string): unknown[] | undefined {
    if (!has(s, key)) return undefined;
    const v = own(s, key);
    if (Array.isArray(v) && v.length > 0) return v as unknown[];
    this.warn(doc, child(ptr, key), `${key} is not a non-empty array`);
    return undefined;
  }

  /** The `type` keyword as a list of known names, or undefined when absent or unusable. */
  private types(s: Schema, doc: SchemaDoc, ptr: string): string[] | undefined {
    if (!has(s, 'type')) return undefined;
    const t = own(s, 'type');
    const list = typeof t === 'string' ? [t] : Array.isArray(t) ? t : undefined;
    if (
      list === undefined ||
      list.length === 0 ||
      !list.every((x): x is string => typeof x === 'string')
    ) {
      this.warn(doc, child(ptr, 'type'), 'type is not a name or a non-empty array of names');
      return undefined;
    }
    return [...new Set(list)];
  }

  private typed(
    type: string,
    s: Schema,
    doc: SchemaDoc,
    ptr: string,
    depth: number,
    combined: boolean,
  ): TypeNode {
    switch (type) {
      case 'string':
      case 'number':
      case 'boolean':
      case 'null':
        return keyword(type);
      case 'integer':
        return keyword('number');
      case 'object':
        return this.object(s, doc, ptr, depth, combined);
      case 'array':
        return this.array(s, doc, ptr, depth);
      default:
        return this.warn(doc, child(ptr, 'type'), `unknown type ${JSON.stringify(type)}`);
    }
  }

  /**
   * An object type, closed unless the schema allows extra keys (decision 017): an object that declares
   * no `properties`, `required`, `additionalProperties` or `patternProperties` is a free-form map; any
   * other accepts only the keys it declares. When `combined` (intersected with an `allOf` sibling, a
   * `$ref` or an `anyOf`/`oneOf`), an object that declares no key adds no constraint, because
   * TypeScript checks an intersection's keys against all its members together.
   */
  private object(
    s: Schema,
    doc: SchemaDoc,
    ptr: string,
    depth: number,
    combined: boolean,
  ): TypeNode {
    const propsValue = own(s, 'properties');
    const props = isPlainObject(propsValue) ? propsValue : {};
    if (propsValue !== undefined && !isPlainObject(propsValue))
      this.warn(doc, child(ptr, 'properties'), 'properties is not an object');
    const requiredValue = own(s, 'required');
    const required = new Set(
      Array.isArray(requiredValue)
        ? requiredValue.filter((r): r is string => typeof r === 'string')
        : [],
    );
    const members: Member[] = Object.keys(props).map((name) => {
      const optional = !required.has(name);
      let type = this.convert(props[name], doc, child(ptr, 'properties', name), depth + 1, true);
      // TypeScript checks an omitted optional `toString`/`constructor`/… against Object's own member.
      if (optional && OBJECT_MEMBERS.has(name))
        type = union([type, keyword(`Object[${JSON.stringify(name)}]`)]);
      return { name, optional, type, doc: schemaDocLines(props[name], name) };
    });
    const extras: TypeNode[] = [];
    const ap = own(s, 'additionalProperties');
    if (ap !== undefined && ap !== false) {
      extras.push(this.convert(ap, doc, child(ptr, 'additionalProperties'), depth + 1, true));
    }
    const pp = own(s, 'patternProperties');
    if (isPlainObject(pp)) {
      for (const k of Object.keys(pp))
        extras.push(this.convert(pp[k], doc, child(ptr, 'patternProperties', k), depth + 1, true));
    }
    const free =
      ap === undefined && extras.length === 0 && propsValue === undefined && required.size === 0;
    if (
      combined &&
      ap === undefined &&
      extras.length === 0 &&
      members.length === 0 &&
      required.size === 0
    )
      return JSON_VALUE;
    const extraType = free ? JSON_VALUE : extras.length > 0 ? union(extras) : undefined;
    // A required key the schema does not declare: typed by the extra keys' schema, or any JSON when
    // extra keys are merely unmentioned (with `additionalProperties: false` it cannot be satisfied).
    for (const name of required) {
      if (!Object.prototype.hasOwnProperty.call(props, name)) {
        const type = extraType ?? (ap === undefined ? JSON_VALUE : undefined);
        if (type !== undefined) members.push({ name, optional: false, type, doc: [] });
      }
    }
    let index: TypeNode | undefined;
    if (extraType === undefined) index = members.length === 0 ? NEVER : undefined;
    else if (members.length === 0) index = extraType;
    else {
      index = union([
        extraType,
        ...members.map((m) => m.type),
        ...(members.some((m) => m.optional) ? [UNDEFINED] : []),
      ]);
    }
    return { kind: 'object', members, index };
  }

  private array(s: Schema, doc: SchemaDoc, ptr: string, depth: number): TypeNode {
    const prefixItems = own(s, 'prefixItems');
    const items = own(s, 'items');
    let tuple: unknown[];
    let restSchema: unknown;
    let restKey: string;
    if (Array.isArray(prefixItems)) {
      [tuple, restSchema, restKey] = [prefixItems, items, 'items'];
    } else if (Array.isArray(items)) {
      [tuple, restSchema, restKey] = [items, own(s, 'additionalItems'), 'additionalItems'];
    } else {
      if (items === undefined) return { kind: 'array', element: JSON_VALUE };
      if (items === false) return { kind: 'tuple', elements: [], required: 0, rest: undefined };
      return {
        kind: 'array',
        element: this.convert(items, doc, child(ptr, 'items'), depth + 1, true),
      };
    }
    const tupleKey = Array.isArray(prefixItems) ? 'prefixItems' : 'items';
    const maxItems = own(s, 'maxItems');
    const minItems = own(s, 'minItems');
    let closed = restSchema === false;
    if (typeof maxItems === 'number' && maxItems >= 0 && maxItems <= tuple.length) {
      tuple = tuple.slice(0, Math.floor(maxItems));
      closed = true;
    }
    const elements = tuple.map((e, i) =>
      this.convert(e, doc, child(ptr, tupleKey, i), depth + 1, true),
    );
    const required =
      typeof minItems === 'number' && minItems > 0
        ? Math.min(Math.floor(minItems), elements.length)
        : 0;
    const rest = closed
      ? undefined
      : restSchema === undefined
        ? JSON_VALUE
        : this.convert(restSchema, doc, child(ptr, restKey), depth + 1, true);
    if (elements.length === 0)
      return rest === undefined
        ? { kind: 'tuple', elements, required, rest }
        : { kind: 'array', element: rest };
    return { kind: 'tuple', elements, required, rest };
  }

  private ref(ref: unknown, doc: SchemaDoc, ptr: string, guarded: boolean): TypeNode {
    if (typeof ref !== 'string') return this.warn(doc, ptr, '$ref is not a string');
    const tokens = parseLocalRef(ref);
    if (tokens === undefined)
      return this.warn(
        doc,
        ptr,
        `unsupported $ref ${JSON.stringify(ref)} (only local JSON pointers)`,
      );
    const pointer = tokens.map((t) => `/${escapeToken(t)}`).join('');
    let named = this.named.get(`${doc.id}#${pointer}`);
    if (named === undefined) {
      const target = resolvePointer(doc.root, tokens);
      if (!target.found) return this.warn(doc, ptr, `unresolvable $ref ${JSON.stringify(ref)}`);
      named = this.declare(
        doc,
        tokens,
        target.value,
        tokens.length === 0 ? this.rootName(doc) : this.names.claim(this.defName(tokens)),
      );
    }
    if (!guarded && this.current !== undefined) this.current.unguarded.add(named.key);
    return { kind: 'ref', key: named.key, guarded };
  }

  private defName(tokens: readonly string[]): string {
    const last =
      tokens.length === 2 && (tokens[0] === '$defs' || tokens[0] === 'definitions')
        ? [tokens[1] as string]
        : tokens;
    return this.prefix + (pascalCase(last.join(' ')) || 'Def');
  }
}
