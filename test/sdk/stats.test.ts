/**
 * The SDK against the JSON wire it replaces (MCP `tools/list` JSON of the same catalog), in o200k
 * tokens, for every fixture catalog; and odd schemas a hidden catalog may hold still render, total and
 * strict-clean.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { renderSdk, sdkStats, wireText } from '../../src/sdk/index.js';
import { countTokens } from '../../src/tokens.js';
import { toMcpTools } from '../../src/tools/wire.js';
import type { ToolSchema } from '../../src/tools/types.js';
import { typecheck } from './helpers/typecheck.js';

const dir = new URL('../fixtures/catalogs/', import.meta.url);
const catalogs = readdirSync(dir)
  .filter((f) => f.endsWith('.json'))
  .map(
    (f) => [f.replace(/\.json$/, ''), JSON.parse(readFileSync(new URL(f, dir), 'utf8'))] as const,
  );

/** The target (issue 12): the whole SDK, prelude included, at most 60 % of the catalog's wire tokens. */
const TARGET = 0.6;
/**
 * Catalogs that cannot meet the target losslessly, with the ceiling they are held to so they cannot
 * regress: `everything`'s descriptions plus its bare typed signatures already exceed 60 % of its wire
 * before any prelude; `constructs` is a hand-written edge-case catalog, not a server (decision 017).
 */
const MISSED: Record<string, number> = { everything: 0.82, constructs: 0.96 };

describe('SDK vs JSON wire', () => {
  it('has every fixture catalog', () => {
    expect(catalogs.map(([name]) => name)).toEqual(
      expect.arrayContaining(['constructs', 'everything', 'filesystem']),
    );
  });

  it.each(catalogs)('%s: the SDK is within its token ratio of the wire', (name, catalog) => {
    const s = sdkStats(catalog as ToolSchema[]);
    expect(s.wire.tokens).toBe(countTokens(JSON.stringify(toMcpTools(catalog as ToolSchema[]))));
    expect(s.sdk.tokens).toBe(countTokens(renderSdk(catalog as ToolSchema[]).text));
    expect(s.prelude.tokens + s.catalog.tokens).toBeGreaterThanOrEqual(s.sdk.tokens - 1);
    expect(s.ratio.sdk.tokens).toBeLessThanOrEqual(MISSED[name] ?? TARGET);
  });

  it('the wire of a hostile catalog leaves out what cannot be serialised', () => {
    const cyclic: Record<string, unknown> = { type: 'object' };
    cyclic.self = cyclic;
    const text = wireText([
      { name: 'ok', description: 'd', inputSchema: { type: 'object' } },
      { name: 'cyclic', description: '', inputSchema: cyclic },
      null as unknown as ToolSchema,
    ]);
    expect(JSON.parse(text)).toEqual([
      { name: 'ok', description: 'd', inputSchema: { type: 'object' } },
    ]);
    expect(sdkStats([]).tools).toBe(0);
  });
});

const odd: ToolSchema[] = [
  {
    name: 'tree',
    description: 'Recursive through the root.',
    inputSchema: {
      type: 'object',
      properties: { name: { type: 'string' }, children: { type: 'array', items: { $ref: '#' } } },
      required: ['name'],
    },
  },
  {
    name: 'mixed',
    description: '',
    inputSchema: {
      type: 'object',
      properties: {
        pick: { oneOf: [{ type: 'string' }, { anyOf: [{ type: 'number' }, { type: 'null' }] }] },
        both: {
          anyOf: [{ type: 'object', properties: { a: { type: 'string' } } }, { type: 'array' }],
        },
        any: {},
        never: false,
        enumMixed: { enum: [1, 'one', true, null, { x: 1 }, [2]] },
      },
    },
  },
  { name: 'empty', description: '', inputSchema: {} },
  {
    // zod's z.json(): a recursive alias through a map (must not print as Record<string, Self>, TS2456).
    name: 'json',
    description: '',
    inputSchema: {
      type: 'object',
      properties: { v: { $ref: '#/$defs/J' } },
      required: ['v'],
      $defs: {
        J: {
          anyOf: [
            { type: 'string' },
            { type: 'null' },
            { type: 'array', items: { $ref: '#/$defs/J' } },
            { type: 'object', additionalProperties: { $ref: '#/$defs/J' } },
          ],
        },
      },
    },
  },
  {
    name: 'quoted-keys',
    description: '',
    inputSchema: {
      type: 'object',
      properties: {
        'a-b': { type: 'string' },
        class: { type: 'number' },
        '0x': { type: 'boolean' },
        é: { type: 'string' },
      },
      required: ['a-b'],
    },
  },
  {
    name: 'huge.description',
    description: `${'A very long description line. '.repeat(400)}\n*/ declare const boom: 1; /*`,
    inputSchema: {
      type: 'object',
      properties: { q: { type: 'string', description: 'x'.repeat(5000), pattern: 'a b @c' } },
    },
  },
];

describe('odd schemas', () => {
  const sdk = renderSdk(odd);

  it('render without warnings and type-check strictly, with working programs', () => {
    expect(sdk.warnings).toEqual([]);
    const program = `export {};
await tools.tree({ name: 'r', children: [{ name: 'c', children: [] }] });
await tools.mixed({ pick: null, both: { a: 'x' }, any: [1], enumMixed: { x: 1 } });
await tools.mixed({ pick: 'x', both: [], enumMixed: [2] });
await tools.empty(1);
await tools.json({ v: { a: [null, 'x', { b: [] }] } });
await tools['quoted-keys']({ 'a-b': 'x', class: 1, '0x': true, é: 'y' });
await tools.huge.description({ q: 'a' });`;
    expect(typecheck(sdk.text, program)).toEqual([]);
    expect(
      typecheck(sdk.text, program, {
        exactOptionalPropertyTypes: true,
        noUncheckedIndexedAccess: true,
      }),
    ).toEqual([]);
  });

  it('still rejects what the schemas forbid', () => {
    const bad = (body: string): string => typecheck(sdk.text, `export {};\n${body}`).join('\n');
    expect(bad(`await tools.tree({ name: 'r', childen: [] });`)).toMatch(
      /Did you mean to write 'children'/,
    );
    expect(bad(`await tools.mixed({ enumMixed: 'two' });`)).toMatch(/not assignable/);
    expect(bad(`await tools.mixed({ never: 1 });`)).toMatch(
      /not assignable to type 'undefined'|never/,
    );
    expect(bad(`await tools['quoted-keys']({});`)).toMatch(
      /Property '"a-b"' is missing|not assignable/,
    );
  });

  it('keeps a hostile description inside its comment and each pattern once', () => {
    expect(sdk.text.match(/@pattern a b @c/g)).toHaveLength(1);
    expect(sdk.text).not.toMatch(/^declare const boom/m);
  });
});
