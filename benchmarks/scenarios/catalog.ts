/**
 * Synthetic tool catalogs of any size: five core tools the programs call (zod inputs, as a
 * tool author writes them) plus generated filler tools with JSON Schema inputs of realistic
 * shape, so a 1000-tool SDK weighs what a real one would.
 */
import { z } from 'zod';
import type { JsonSchema } from '../../src/tools/types.js';
import type { BenchCatalog, BenchTool } from '../engines/types.js';

const NAMESPACES = [
  'crm',
  'billing',
  'files',
  'calendar',
  'tickets',
  'inventory',
  'mail',
  'docs',
  'analytics',
  'hr',
];
const VERBS = ['get', 'list', 'create', 'update', 'delete', 'search', 'archive', 'export'];
const NOUNS = [
  'contact',
  'invoice',
  'folder',
  'event',
  'issue',
  'item',
  'message',
  'page',
  'report',
  'employee',
];

function hash(text: string): number {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619) >>> 0;
  return h;
}

function zodTool(
  name: string,
  description: string,
  input: z.ZodObject,
  output: JsonSchema,
  execute: (args: Record<string, unknown>) => unknown,
): BenchTool {
  const { $schema: _ignored, ...inputJsonSchema } = z.toJSONSchema(input) as JsonSchema;
  return { name, description, input, inputJsonSchema, output, isConcurrencySafe: true, execute };
}

const obj = (
  properties: Record<string, JsonSchema>,
  required: string[] = Object.keys(properties),
): JsonSchema => ({
  type: 'object',
  properties,
  required,
  additionalProperties: false,
});
const str: JsonSchema = { type: 'string' };
const num: JsonSchema = { type: 'number' };

/** The names of the tools the benchmark programs call. */
export const CORE_TOOL_NAMES = [
  'users.get',
  'orders.search',
  'kv.get',
  'kv.set',
  'math.add',
] as const;

function coreTools(): BenchTool[] {
  const kv = new Map<string, string>();
  return [
    zodTool(
      'users.get',
      'Fetches a user by id.',
      z.object({ id: z.string().min(1) }),
      obj({ id: str, name: str, email: str, tier: { type: 'string', enum: ['free', 'pro'] } }),
      (args) => {
        const id = String(args.id);
        return {
          id,
          name: `User ${id}`,
          email: `${id}@example.com`,
          tier: id.length % 2 === 0 ? 'pro' : 'free',
        };
      },
    ),
    zodTool(
      'orders.search',
      'Searches orders; returns the best matches first.',
      z.object({ query: z.string(), limit: z.number().int().min(1).max(100).optional() }),
      obj({
        items: { type: 'array', items: obj({ id: str, score: num, total: num }) },
        total: num,
      }),
      (args) => {
        const h = hash(String(args.query));
        const limit = typeof args.limit === 'number' ? args.limit : 10;
        const items = Array.from({ length: limit }, (_, i) => ({
          id: `o-${h % 1000}-${i}`,
          score: ((h + i * 37) % 100) / 100,
          total: ((h * 7 + i * 131) % 50000) / 100,
        }));
        return { items, total: limit * 3 };
      },
    ),
    zodTool(
      'kv.get',
      'Reads a key; `value` is null when absent.',
      z.object({ key: z.string() }),
      obj({ key: str, value: { type: ['string', 'null'] } }),
      (args) => ({ key: String(args.key), value: kv.get(String(args.key)) ?? null }),
    ),
    zodTool(
      'kv.set',
      'Writes a key.',
      z.object({ key: z.string(), value: z.string() }),
      obj({ ok: { type: 'boolean' } }),
      (args) => {
        kv.set(String(args.key), String(args.value));
        return { ok: true };
      },
    ),
    zodTool(
      'math.add',
      'Adds two numbers.',
      z.object({ a: z.number(), b: z.number() }),
      obj({ sum: num }),
      (args) => ({ sum: Number(args.a) + Number(args.b) }),
    ),
  ];
}

function syntheticInput(i: number): JsonSchema {
  const shapes: Array<[string, JsonSchema]> = [
    ['id', { type: 'string', description: 'The record id.' }],
    ['limit', { type: 'integer', minimum: 1, maximum: 500, description: 'Page size.' }],
    ['status', { type: 'string', enum: ['open', 'closed', 'pending', 'archived'] }],
    ['tags', { type: 'array', items: { type: 'string' }, maxItems: 20 }],
    ['include_deleted', { type: 'boolean', description: 'Include soft-deleted records.' }],
    [
      'range',
      obj(
        {
          from: { type: 'string', format: 'date-time' },
          to: { type: 'string', format: 'date-time' },
        },
        ['from'],
      ),
    ],
    [
      'fields',
      {
        type: 'array',
        items: { type: 'string', enum: ['name', 'owner', 'created', 'updated', 'size'] },
      },
    ],
  ];
  const count = 2 + (i % 5);
  const picked = Array.from(
    { length: count },
    (_, k): [string, JsonSchema] => shapes[(i + k * 3) % shapes.length] ?? ['id', str],
  );
  const properties = Object.fromEntries(picked);
  return obj(properties, Object.keys(properties).slice(0, 1));
}

const SYNTHETIC_OUTPUT = obj({
  id: str,
  status: { type: 'string', enum: ['ok', 'partial'] },
  items: { type: 'array', items: obj({ name: str, value: num }) },
});

function syntheticTool(i: number): BenchTool {
  const namespace = NAMESPACES[i % NAMESPACES.length] ?? 'misc';
  const verb = VERBS[Math.floor(i / NAMESPACES.length) % VERBS.length] ?? 'get';
  const noun = NOUNS[Math.floor(i / (NAMESPACES.length * VERBS.length)) % NOUNS.length] ?? 'thing';
  const name = `${namespace}.${verb}_${noun}_${i}`;
  const input = syntheticInput(i);
  return {
    name,
    description: `${verb[0]?.toUpperCase() ?? ''}${verb.slice(1)}s ${noun} records in ${namespace}. Synthetic tool ${i} of the benchmark catalog; returns a status and a short list of named values.`,
    input,
    inputJsonSchema: input,
    output: SYNTHETIC_OUTPUT,
    isConcurrencySafe: i % 3 !== 0,
    execute: (args) => ({
      id: typeof args.id === 'string' ? args.id : String(i),
      status: 'ok',
      items: [{ name: noun, value: i }],
    }),
  };
}

/**
 * A catalog of exactly `size` tools (at least the five core tools). Each call builds fresh
 * tool bodies (its own key-value store), so engines never share state.
 */
export function buildCatalog(size: number): BenchCatalog {
  const core = coreTools();
  const filler = Array.from({ length: Math.max(0, size - core.length) }, (_, i) =>
    syntheticTool(i),
  );
  return { id: `sdk-${Math.max(size, core.length)}`, tools: [...core, ...filler] };
}
