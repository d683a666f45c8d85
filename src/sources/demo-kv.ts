/** The built-in demo key-value store: `kv.get`, `kv.set`, `kv.delete`, `kv.list`. */
import { z } from 'zod';
import { defineTool, IsocodeError } from '../index.js';
import type { JsonValue, ToolDefinition } from '../index.js';

/** Most keys one demo store holds. */
export const KV_MAX_ENTRIES = 10_000;
/** Largest stored value, as JSON text, in characters. */
export const KV_MAX_VALUE_CHARS = 65_536;
/** Longest key. */
export const KV_MAX_KEY_CHARS = 256;

const key = z
  .string()
  .min(1)
  .max(KV_MAX_KEY_CHARS)
  .describe(`The key: 1–${KV_MAX_KEY_CHARS} characters.`);
const value = z.json().describe('Any JSON value.');

const getInput = z.object({ key });
const getOutput = z.object({
  key: z.string(),
  found: z.boolean().describe('Whether the key exists.'),
  value: value.describe('The stored value, or null when the key does not exist.'),
});
const setInput = z.object({
  key,
  value: value.describe(
    `The JSON value to store (at most ${KV_MAX_VALUE_CHARS} characters as JSON).`,
  ),
});
const setOutput = z.object({
  key: z.string(),
  created: z
    .boolean()
    .describe('True when the key did not exist before; false when an existing value was replaced.'),
});
const deleteInput = z.object({ key });
const deleteOutput = z.object({
  key: z.string(),
  deleted: z.boolean().describe('False when the key did not exist.'),
});
const listInput = z.object({
  prefix: z
    .string()
    .max(KV_MAX_KEY_CHARS)
    .optional()
    .describe('Only keys starting with this prefix. Default: all keys.'),
  limit: z
    .number()
    .int()
    .min(1)
    .max(1000)
    .default(100)
    .describe('Most keys to return (1–1000). Default 100.'),
});
const listOutput = z.object({
  keys: z.array(z.string()).describe('Matching keys in ascending order, at most `limit`.'),
  total: z.number().int().describe('How many keys match, including those beyond `limit`.'),
  truncated: z.boolean().describe('True when more keys match than were returned.'),
});

/**
 * A fresh in-memory key-value store and its four tools. Each call makes its own store.
 * Values are copied in and out, so a caller never holds a reference into the store.
 */
export function kvTools(): ToolDefinition[] {
  const store = new Map<string, JsonValue>();
  const copy = (v: JsonValue): JsonValue => JSON.parse(JSON.stringify(v)) as JsonValue;
  return [
    defineTool({
      name: 'kv.get',
      description:
        'Reads the value stored under a key in the in-memory key-value store. Returns found: false and value: null for a missing key.',
      input: getInput,
      output: getOutput,
      isConcurrencySafe: true,
      execute: ({ key: k }) => {
        const stored = store.get(k);
        return stored === undefined
          ? { key: k, found: false, value: null }
          : { key: k, found: true, value: copy(stored) };
      },
    }),
    defineTool({
      name: 'kv.set',
      description: `Stores a JSON value under a key in the in-memory key-value store, replacing any existing value. Holds at most ${KV_MAX_ENTRIES} keys.`,
      input: setInput,
      output: setOutput,
      isConcurrencySafe: false,
      execute: ({ key: k, value: v }) => {
        const text = JSON.stringify(v);
        if (text.length > KV_MAX_VALUE_CHARS) {
          throw new IsocodeError(
            'TOOL_ERROR',
            `value too large: ${text.length} characters of JSON (limit ${KV_MAX_VALUE_CHARS})`,
          );
        }
        const created = !store.has(k);
        if (created && store.size >= KV_MAX_ENTRIES) {
          throw new IsocodeError(
            'TOOL_ERROR',
            `store full: ${KV_MAX_ENTRIES} keys (delete some first)`,
          );
        }
        store.set(k, JSON.parse(text) as JsonValue);
        return { key: k, created };
      },
    }),
    defineTool({
      name: 'kv.delete',
      description:
        'Deletes a key from the in-memory key-value store. Returns deleted: false when the key did not exist.',
      input: deleteInput,
      output: deleteOutput,
      isConcurrencySafe: false,
      execute: ({ key: k }) => ({ key: k, deleted: store.delete(k) }),
    }),
    defineTool({
      name: 'kv.list',
      description:
        'Lists the keys of the in-memory key-value store in ascending order, optionally only those starting with a prefix.',
      input: listInput,
      output: listOutput,
      isConcurrencySafe: true,
      execute: ({ prefix = '', limit = 100 }) => {
        const matching = [...store.keys()].filter((k) => k.startsWith(prefix)).sort();
        return {
          keys: matching.slice(0, limit),
          total: matching.length,
          truncated: matching.length > limit,
        };
      },
    }),
  ];
}
