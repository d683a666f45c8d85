/**
 * Folding JSON values into an inferred JSON Schema: the union of the shapes seen, a key optional
 * when some value lacks it, array elements merged, bounded in depth, keys and size. The schema
 * never holds a value: no `enum`, no `const`, no example, no string content; property names are
 * kept only when they look like identifiers and are few (otherwise the object is a map).
 */

/** The subset of JSON Schema an inferred schema uses. */
export type InferredSchema =
  | Record<string, never> // unknown: anything
  | { type: 'null' | 'boolean' | 'integer' | 'number' | 'string' }
  /** `items` absent: only empty arrays were seen. */
  | { type: 'array'; items?: InferredSchema }
  | { type: 'object'; properties: Record<string, InferredSchema>; required: string[] }
  | { type: 'object'; additionalProperties: InferredSchema }
  | { anyOf: InferredSchema[] };

/** Bounds of inference. */
export interface FoldLimits {
  /** Nesting depth; deeper parts become unknown. @default 6 */
  maxDepth?: number | undefined;
  /** Named properties of one object; more make it a map (`{ [key: string]: T }`). @default 32 */
  maxProperties?: number | undefined;
  /** Array elements (and map values) looked at per array. @default 20 */
  maxItems?: number | undefined;
  /** Schema nodes in a folded schema; larger schemas are cut shallower. @default 400 */
  maxNodes?: number | undefined;
  /** Values visited per sample; the rest of the sample is not looked at. @default 5000 */
  maxVisits?: number | undefined;
}

type Limits = Required<{ [K in keyof FoldLimits]-?: number }>;

/** The limits with their defaults. */
export function foldLimits(l: FoldLimits = {}): Limits {
  return {
    maxDepth: l.maxDepth ?? 6,
    maxProperties: l.maxProperties ?? 32,
    maxItems: l.maxItems ?? 20,
    maxNodes: l.maxNodes ?? 400,
    maxVisits: l.maxVisits ?? 5000,
  };
}

/** Property names kept as names; anything else (ids, e-mails, paths) makes the object a map. */
const NAME = /^[A-Za-z_$][A-Za-z0-9_$-]{0,63}$/;

const UNKNOWN: InferredSchema = {};
const isUnknown = (s: InferredSchema): boolean => Object.keys(s).length === 0;

/** The schema of one value. */
export function schemaOf(value: unknown, limits: FoldLimits = {}): InferredSchema {
  const l = foldLimits(limits);
  let visits = 0;
  const walk = (v: unknown, depth: number): InferredSchema | undefined => {
    if (++visits > l.maxVisits) return undefined; // not looked at: constrains nothing
    if (v === null) return { type: 'null' };
    switch (typeof v) {
      case 'boolean':
        return { type: 'boolean' };
      case 'number':
        return { type: Number.isInteger(v) ? 'integer' : 'number' };
      case 'string':
        return { type: 'string' };
      case 'object':
        break;
      default:
        return UNKNOWN;
    }
    if (depth >= l.maxDepth) return UNKNOWN;
    if (Array.isArray(v)) {
      let items: InferredSchema | undefined;
      for (const item of v.slice(0, l.maxItems) as unknown[]) {
        const s = walk(item, depth + 1);
        if (s !== undefined) items = items === undefined ? s : merge(items, s, l);
      }
      return items === undefined ? { type: 'array' } : { type: 'array', items };
    }
    const keys = Object.keys(v);
    if (keys.length > l.maxProperties || !keys.every((k) => NAME.test(k))) {
      let values: InferredSchema | undefined;
      for (const k of keys.slice(0, l.maxItems)) {
        const s = walk((v as Record<string, unknown>)[k], depth + 1);
        if (s !== undefined) values = values === undefined ? s : merge(values, s, l);
      }
      return { type: 'object', additionalProperties: values ?? UNKNOWN };
    }
    const properties: Record<string, InferredSchema> = {};
    for (const k of keys)
      properties[k] = walk((v as Record<string, unknown>)[k], depth + 1) ?? UNKNOWN;
    return { type: 'object', properties, required: keys.sort() };
  };
  return bound(walk(value, 0) ?? UNKNOWN, l);
}

const kindOf = (s: InferredSchema): string =>
  'type' in s ? (s.type === 'integer' ? 'number' : s.type) : 'anyOf' in s ? 'anyOf' : 'unknown';

const members = (s: InferredSchema): InferredSchema[] => ('anyOf' in s ? s.anyOf : [s]);

/** Merges two schemas of the same kind (objects, arrays, numbers) or makes a union of kinds. */
function merge(a: InferredSchema, b: InferredSchema, l: Limits): InferredSchema {
  if (isUnknown(a) || isUnknown(b)) return UNKNOWN;
  const byKind = new Map<string, InferredSchema>();
  for (const m of [...members(a), ...members(b)]) {
    const k = kindOf(m);
    const prior = byKind.get(k);
    byKind.set(k, prior === undefined ? m : mergeSame(prior, m, l));
  }
  const all = [...byKind.entries()].sort(([x], [y]) => (x < y ? -1 : 1)).map(([, s]) => s);
  return all.length === 1 ? (all[0] as InferredSchema) : { anyOf: all };
}

function mergeSame(a: InferredSchema, b: InferredSchema, l: Limits): InferredSchema {
  if (!('type' in a) || !('type' in b)) return a;
  if (a.type === 'array' && b.type === 'array') {
    const items = a.items && b.items ? merge(a.items, b.items, l) : (a.items ?? b.items);
    return items === undefined ? { type: 'array' } : { type: 'array', items };
  }
  if (a.type === 'object' && b.type === 'object') {
    const mapOf = (s: InferredSchema & { type: 'object' }): InferredSchema | undefined => {
      if ('additionalProperties' in s) return s.additionalProperties;
      return undefined;
    };
    const am = mapOf(a);
    const bm = mapOf(b);
    if (am !== undefined || bm !== undefined) {
      const values = [
        am,
        bm,
        ...[a, b].flatMap((s) => ('properties' in s ? Object.values(s.properties) : [])),
      ]
        .filter((s): s is InferredSchema => s !== undefined)
        .reduce((x, y) => merge(x, y, l));
      return { type: 'object', additionalProperties: values };
    }
    const ap = (a as { properties: Record<string, InferredSchema> }).properties;
    const bp = (b as { properties: Record<string, InferredSchema> }).properties;
    const keys = [...new Set([...Object.keys(ap), ...Object.keys(bp)])].sort();
    if (keys.length > l.maxProperties) {
      const values = [...Object.values(ap), ...Object.values(bp)].reduce((x, y) => merge(x, y, l));
      return { type: 'object', additionalProperties: values };
    }
    const properties: Record<string, InferredSchema> = {};
    for (const k of keys) {
      const x = Object.hasOwn(ap, k) ? ap[k] : undefined;
      const y = Object.hasOwn(bp, k) ? bp[k] : undefined;
      properties[k] = x && y ? merge(x, y, l) : ((x ?? y) as InferredSchema);
    }
    const ra = new Set((a as { required: string[] }).required);
    const required = (b as { required: string[] }).required.filter((k) => ra.has(k)).sort();
    return { type: 'object', properties, required };
  }
  // integer and number
  return a.type === b.type ? a : { type: 'number' };
}

/** Schema nodes of a schema. */
export function schemaNodes(s: InferredSchema): number {
  if ('anyOf' in s) return 1 + s.anyOf.reduce((n, m) => n + schemaNodes(m), 0);
  if (!('type' in s)) return 1;
  if (s.type === 'array') return 1 + (s.items ? schemaNodes(s.items) : 0);
  if (s.type === 'object')
    return (
      1 +
      ('additionalProperties' in s
        ? schemaNodes(s.additionalProperties)
        : Object.values(s.properties).reduce((n, m) => n + schemaNodes(m), 0))
    );
  return 1;
}

/** Cuts a schema at `depth` (deeper parts become unknown). */
function cut(s: InferredSchema, depth: number): InferredSchema {
  if (depth <= 0)
    return isUnknown(s) || !('type' in s) || ['array', 'object'].includes(s.type) ? UNKNOWN : s;
  if ('anyOf' in s) return { anyOf: s.anyOf.map((m) => cut(m, depth)) };
  if (!('type' in s)) return s;
  if (s.type === 'array') return s.items ? { type: 'array', items: cut(s.items, depth - 1) } : s;
  if (s.type === 'object') {
    if ('additionalProperties' in s)
      return { type: 'object', additionalProperties: cut(s.additionalProperties, depth - 1) };
    const properties: Record<string, InferredSchema> = {};
    for (const [k, v] of Object.entries(s.properties)) properties[k] = cut(v, depth - 1);
    return { type: 'object', properties, required: s.required };
  }
  return s;
}

/** Keeps a schema within `maxNodes` by cutting it shallower. */
function bound(s: InferredSchema, l: Limits): InferredSchema {
  let out = s;
  for (let depth = l.maxDepth; schemaNodes(out) > l.maxNodes && depth >= 0; depth--)
    out = cut(s, depth);
  return out;
}

/** Folds a new sample's schema into the schema so far (bounded). */
export function foldSchema(
  prior: InferredSchema | undefined,
  next: InferredSchema,
  limits: FoldLimits = {},
): InferredSchema {
  const l = foldLimits(limits);
  return prior === undefined ? next : bound(merge(prior, next, l), l);
}

/**
 * Whether an untrusted JSON value is an inferred schema within the limits (a store file is
 * validated with this before use): only the keywords above, names that pass the name rule.
 */
export function isInferredSchema(
  v: unknown,
  limits: FoldLimits = {},
  depth = 0,
): v is InferredSchema {
  const l = foldLimits(limits);
  if (depth > l.maxDepth + 1 || typeof v !== 'object' || v === null || Array.isArray(v))
    return false;
  const o = v as Record<string, unknown>;
  const keys = Object.keys(o).sort().join(',');
  if (keys === '') return true;
  if (keys === 'anyOf')
    return (
      Array.isArray(o.anyOf) &&
      o.anyOf.length <= 6 &&
      o.anyOf.every((m) => isInferredSchema(m, l, depth))
    );
  if (keys === 'type')
    return ['null', 'boolean', 'integer', 'number', 'string', 'array'].includes(o.type as string);
  if (keys === 'items,type') return o.type === 'array' && isInferredSchema(o.items, l, depth + 1);
  if (keys === 'additionalProperties,type')
    return o.type === 'object' && isInferredSchema(o.additionalProperties, l, depth + 1);
  if (keys !== 'properties,required,type' || o.type !== 'object') return false;
  const p = o.properties;
  if (typeof p !== 'object' || p === null || Array.isArray(p)) return false;
  const names = Object.keys(p);
  return (
    names.length <= l.maxProperties &&
    names.every(
      (k) => NAME.test(k) && isInferredSchema((p as Record<string, unknown>)[k], l, depth + 1),
    ) &&
    Array.isArray(o.required) &&
    o.required.every((k) => typeof k === 'string' && names.includes(k))
  );
}
