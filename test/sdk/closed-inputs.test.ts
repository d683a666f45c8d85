/**
 * Closed inputs through the runtime (decision 017): a misspelt optional key is a type error with the
 * checker's suggestion, and the program does not run; where the schema allows extra keys it type-checks
 * and the key reaches the tool. Runtime validation follows JSON Schema (extra keys of an object without
 * `additionalProperties` pass), so only a program that escapes the types can send one.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRuntime, defineTool, type Runtime, type ToolResult } from '../../src/index.js';

const received: unknown[] = [];
const query = { q: { type: 'string' }, limit: { type: 'number' } };

let rt: Runtime;
beforeAll(async () => {
  rt = await createRuntime({
    tools: [
      defineTool({
        name: 'search',
        description: 'Searches.',
        input: { type: 'object', properties: query, required: ['q'] },
        execute: (args: unknown) => {
          received.push(args);
          return { hits: 1 };
        },
      }),
      defineTool({
        name: 'search_open',
        description: 'Searches; passes extra keys on.',
        input: { type: 'object', properties: query, required: ['q'], additionalProperties: true },
        execute: (args: unknown) => {
          received.push(args);
          return { hits: 2 };
        },
      }),
    ],
    scopes: { default: { mode: 'code' } },
  });
});
afterAll(() => rt.close());

const run = (code: string): Promise<ToolResult> =>
  rt.execute({ name: 'run_code', args: { code, description: 'closed inputs' } });

describe('closed inputs through run_code', () => {
  it('a misspelt optional key is a typecheck failure with "did you mean", and nothing runs', async () => {
    received.length = 0;
    const r = await run(`return await tools.search({ q: 'x', limt: 5 });`);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    const details = r.error.details as { kind?: string } | undefined;
    expect(details?.kind).toBe('typecheck');
    expect(r.error.message).toContain("'limt' does not exist");
    expect(r.error.message).toContain("Did you mean to write 'limit'?");
    expect(received).toEqual([]);
  });

  it('the same key type-checks and reaches the tool where the schema allows extra keys', async () => {
    received.length = 0;
    const r = await run(`return await tools.search_open({ q: 'x', limt: 5 });`);
    expect(r.ok).toBe(true);
    expect(received).toEqual([{ q: 'x', limt: 5 }]);
  });

  it('the runtime validates JSON Schema: an extra key smuggled past the types is not refused', async () => {
    received.length = 0;
    const r = await run(
      `const args: Record<string, unknown> = { q: 'x', limt: 5 };\nreturn await tools.search(args as { q: string });`,
    );
    expect(r.ok).toBe(true);
    expect(received).toEqual([{ q: 'x', limt: 5 }]);
  });
});
