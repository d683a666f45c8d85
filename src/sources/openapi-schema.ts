/**
 * OpenAPI schema objects → self-contained JSON Schema (2020-12) documents, one per tool input or
 * output. The bundled OpenAPI document has only local `$ref`s; a reference to
 * `#/components/schemas/X` becomes `#/$defs/X` of the tool's document (so a recursive schema stays a
 * named, recursive type for the SDK generator and ajv, never an endless expansion); any other local
 * reference is inlined, and becomes a `$defs` entry only when it is part of a cycle. OpenAPI 3.0's
 * `nullable`, boolean `exclusiveMinimum`/`exclusiveMaximum` and `example` become their JSON Schema
 * forms; OpenAPI-only keywords (`discriminator`, `xml`, `externalDocs`) are dropped.
 */
import type { JsonSchema } from '../index.js';
import { escapeToken, parseLocalRef, resolvePointer } from '../sdk/pointer.js';

/** The dialect of every document this module makes. */
export const JSON_SCHEMA_2020 = 'https://json-schema.org/draft/2020-12/schema';
/** Inline nesting (schemas inside schemas, references inlined) before a subschema becomes `{}`. */
const MAX_INLINE_DEPTH = 64;
/** Subschemas converted per document before the rest become `{}` (shared-subtree blow-up). */
const MAX_NODES = 20_000;

type Rec = Record<string, unknown>;
/** A plain object (not an array). */
export const isRec = (v: unknown): v is Rec =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

const MAP_KEYWORDS = new Set(['properties', 'patternProperties', 'dependentSchemas']);
const ONE_KEYWORDS = new Set([
  'additionalProperties',
  'not',
  'if',
  'then',
  'else',
  'contains',
  'propertyNames',
  'unevaluatedProperties',
  'unevaluatedItems',
]);
const LIST_KEYWORDS = new Set(['allOf', 'anyOf', 'oneOf', 'prefixItems']);
const DROPPED = new Set([
  'nullable',
  'discriminator',
  'xml',
  'externalDocs',
  'example',
  '$schema',
  '$id',
  '$anchor',
  '$dynamicRef',
  '$dynamicAnchor',
  '$defs',
  'definitions',
  '$comment',
  'additionalItems',
]);

/** Which side of a call a document describes: `readOnly` members are not required in inputs, `writeOnly` ones not in outputs. */
export type SchemaSide = 'input' | 'output';

/** Builds one tool document: converts schemas and collects the `$defs` they reference. */
export class SchemaDocBuilder {
  private readonly defs = new Map<string, unknown>();
  private readonly defOf = new Map<string, string>();
  private readonly inlining = new Set<string>();
  private nodes = 0;

  constructor(
    /** The bundled OpenAPI document (local `$ref`s resolve in it). */
    private readonly openapi: unknown,
    /** An OpenAPI 3.0 document (3.0 conversions apply; `$ref` siblings are ignored). */
    private readonly v30: boolean,
    private readonly side: SchemaSide,
  ) {}

  /** Converts one schema object (references become `$defs` of this document). */
  convert(schema: unknown, depth = 0): JsonSchema | boolean {
    if (typeof schema === 'boolean') return schema;
    if (!isRec(schema) || depth > MAX_INLINE_DEPTH || ++this.nodes > MAX_NODES) return {};
    if (typeof schema.$ref === 'string') {
      const target = this.ref(schema.$ref, depth);
      if (this.v30) return target;
      const siblings = this.keywords({ ...schema, $ref: undefined }, depth);
      return Object.keys(siblings).length === 0 ? target : { ...siblings, allOf: [target] };
    }
    return this.keywords(schema, depth);
  }

  /** The document: `root` with the dialect and the collected `$defs`. */
  document(root: JsonSchema | boolean): JsonSchema {
    const base = typeof root === 'boolean' ? (root ? {} : { not: {} }) : root;
    const out: JsonSchema = { $schema: JSON_SCHEMA_2020, ...base };
    if (this.defs.size > 0) out.$defs = Object.fromEntries(this.defs);
    return out;
  }

  private ref(ref: string, depth: number): JsonSchema | boolean {
    const tokens = parseLocalRef(ref);
    const target = tokens === undefined ? undefined : resolvePointer(this.openapi, tokens);
    if (tokens === undefined || !target?.found) return {};
    const component = tokens.length === 3 && tokens[0] === 'components' && tokens[1] === 'schemas';
    if (component || this.inlining.has(ref) || this.defOf.has(ref))
      return this.defRef(ref, tokens.at(-1) ?? 'Schema', target.value);
    this.inlining.add(ref);
    try {
      return this.convert(target.value, depth + 1);
    } finally {
      this.inlining.delete(ref);
    }
  }

  private defRef(ref: string, name: string, target: unknown): JsonSchema {
    let key = this.defOf.get(ref);
    if (key === undefined) {
      key = name;
      for (let n = 2; this.defs.has(key); n++) key = `${name}${n}`;
      this.defOf.set(ref, key);
      this.defs.set(key, {}); // reserved: a reference to itself inside resolves to this entry
      // A chain of references that comes back to itself describes nothing (and would overflow ajv).
      this.defs.set(key, this.aliasCycle(ref) ? {} : this.convert(target, 0));
    }
    return { $ref: `#/$defs/${escapeToken(key)}` };
  }

  /** True when following `$ref` after `$ref` from `ref` comes back to one already followed. */
  private aliasCycle(ref: string): boolean {
    const seen = new Set<string>();
    for (let r: unknown = ref; typeof r === 'string';) {
      if (seen.has(r)) return true;
      seen.add(r);
      const tokens = parseLocalRef(r);
      const target = tokens === undefined ? undefined : resolvePointer(this.openapi, tokens);
      r = target?.found && isRec(target.value) ? target.value.$ref : undefined;
    }
    return false;
  }

  private keywords(schema: Rec, depth: number): JsonSchema {
    const entries: [string, unknown][] = [];
    for (const [k, v] of Object.entries(schema)) {
      if (v === undefined || DROPPED.has(k)) continue;
      if (k === 'pattern' && !validPattern(v)) continue;
      if (MAP_KEYWORDS.has(k) && isRec(v)) {
        const members = Object.entries(v)
          .filter(([name]) => k !== 'patternProperties' || validPattern(name))
          .map(([name, s]) => [name, this.convert(s, depth + 1)]);
        entries.push([k, Object.fromEntries(members)]);
      } else if (ONE_KEYWORDS.has(k)) entries.push([k, this.convert(v, depth + 1)]);
      else if (LIST_KEYWORDS.has(k) && Array.isArray(v))
        entries.push([k, v.map((s) => this.convert(s, depth + 1))]);
      else if (k === 'items')
        entries.push(
          Array.isArray(v)
            ? ['prefixItems', v.map((s) => this.convert(s, depth + 1))]
            : [k, this.convert(v, depth + 1)],
        );
      else if ((k === 'exclusiveMinimum' || k === 'exclusiveMaximum') && typeof v === 'boolean') {
        const bound = schema[k === 'exclusiveMinimum' ? 'minimum' : 'maximum'];
        if (v && typeof bound === 'number') entries.push([k, bound]);
      } else if (k === 'required' && Array.isArray(v)) entries.push([k, this.required(schema, v)]);
      else entries.push([k, v]);
    }
    const out: JsonSchema = Object.fromEntries(entries);
    // A 3.0 exclusive bound replaced its `minimum`/`maximum`.
    if (schema.exclusiveMinimum === true) delete out.minimum;
    if (schema.exclusiveMaximum === true) delete out.maximum;
    if (schema.example !== undefined && out.examples === undefined) out.examples = [schema.example];
    return this.v30 && schema.nullable === true ? nullable(out) : out;
  }

  /** `required` without the members this side never carries (`readOnly` in inputs, `writeOnly` in outputs). */
  private required(schema: Rec, names: unknown[]): string[] {
    const props = isRec(schema.properties) ? schema.properties : {};
    const flag = this.side === 'input' ? 'readOnly' : 'writeOnly';
    return names.filter((n): n is string => {
      if (typeof n !== 'string') return false;
      const p = Object.hasOwn(props, n) ? props[n] : undefined;
      return !(isRec(p) && p[flag] === true);
    });
  }
}

/** A `pattern` the validator can compile (ajv uses the `u` flag); a bad one is dropped, not fatal. */
function validPattern(pattern: unknown): boolean {
  if (typeof pattern !== 'string') return false;
  try {
    new RegExp(pattern, 'u');
    return true;
  } catch {
    return false;
  }
}

/** OpenAPI 3.0 `nullable: true` in JSON Schema: `null` added to the type (or the enum), else a union with null. */
function nullable(schema: JsonSchema): JsonSchema {
  const out = { ...schema };
  if (Array.isArray(out.enum) && !out.enum.includes(null))
    out.enum = [...(out.enum as unknown[]), null];
  if (typeof out.type === 'string') return { ...out, type: [out.type, 'null'] };
  if (Array.isArray(out.type))
    return out.type.includes('null') ? out : { ...out, type: [...(out.type as unknown[]), 'null'] };
  return { anyOf: [out, { type: 'null' }] };
}
