/** Own-property reads of JSON Schema objects (never the prototype chain) and JSON type tests. */

/** A JSON Schema object. */
export type Schema = Record<string, unknown>;

/** The own property `key` of a schema (undefined when absent or inherited). */
export function own(schema: Schema, key: string): unknown {
  return Object.prototype.hasOwnProperty.call(schema, key) ? schema[key] : undefined;
}

/** True when the schema has its own property `key`. */
export function has(schema: Schema, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(schema, key);
}

/** True for a non-null, non-array object. */
export function isPlainObject(v: unknown): v is Schema {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** True when `value` is an instance of the JSON Schema type `type` (unknown names match). */
export function matchesType(value: unknown, type: string): boolean {
  switch (type) {
    case 'null':
      return value === null;
    case 'boolean':
      return typeof value === 'boolean';
    case 'string':
      return typeof value === 'string';
    case 'number':
      return typeof value === 'number';
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value);
    case 'array':
      return Array.isArray(value);
    case 'object':
      return isPlainObject(value);
    default:
      return true;
  }
}
