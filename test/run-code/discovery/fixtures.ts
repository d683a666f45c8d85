/** A runtime with a large scope (`big`, compact), a small one (`small`) and a native one. */
import { createRuntime, type Runtime, type ToolDefinition } from '../../../src/index.js';

const SUBJECTS = ['invoice', 'customer', 'order', 'shipment', 'refund', 'ticket'];
const VERBS = [
  'list',
  'get',
  'create',
  'update',
  'archive',
  'export',
  'count',
  'search',
  'tag',
  'merge',
];

/**
 * 60 tools `big.<verb>_<subject>`, each with a description and a small input schema of its own (the
 * `id` description names the verb, so no two tools share an input type in the SDK).
 */
export function bigTools(): ToolDefinition[] {
  return SUBJECTS.flatMap((subject) =>
    VERBS.map((verb) => ({
      name: `big.${verb}_${subject}`,
      description: `${verb[0]!.toUpperCase()}${verb.slice(1)} ${subject} records of the billing system. Returns the affected ${subject} records with their identifiers, owners and timestamps.`,
      input: {
        type: 'object',
        properties: {
          id: { type: 'string', description: `The ${subject} to ${verb}.` },
          limit: { type: 'integer', minimum: 1, maximum: 100, description: 'Most records.' },
        },
      },
      execute: (args: unknown) => ({ verb, subject, args: args as Record<string, string> }),
    })),
  );
}

/** Scopes `big` (code, big.*), `small` (code, small.*), `nat` (native); threshold 2,000 tokens. */
export function discoveryRuntime(options: { typecheck?: 'off' | 'error' } = {}): Promise<Runtime> {
  return createRuntime({
    tools: [
      ...bigTools(),
      {
        name: 'small.echo',
        description: 'Echoes a text.',
        input: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
        execute: (args: unknown) => args,
      },
    ],
    scopes: {
      default: { mode: 'code' },
      big: { mode: 'code', allow: ['big.*'] },
      small: { mode: 'code', allow: ['small.*'] },
      nat: { mode: 'native', allow: ['small.*'] },
    },
    codeMode: {
      warmup: false,
      typecheck: options.typecheck ?? 'off',
      discovery: { thresholdTokens: 2_000 },
    },
  });
}
