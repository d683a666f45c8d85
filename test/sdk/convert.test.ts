import { describe, expect, it } from 'vitest';
import { jsonSchemaToTs } from '../../src/sdk/index.js';
import { typecheck } from './helpers/typecheck.js';
import { PRELUDE } from './helpers/prelude.js';

/** Schema → expected type text (no warnings). */
const TYPE_CASES: [string, unknown, string][] = [
  ['string', { type: 'string' }, 'string'],
  ['number', { type: 'number' }, 'number'],
  ['integer', { type: 'integer' }, 'number'],
  ['boolean', { type: 'boolean' }, 'boolean'],
  ['null', { type: 'null' }, 'null'],
  ['empty schema', {}, 'JsonValue'],
  ['true schema', true, 'JsonValue'],
  ['false schema', false, 'never'],
  ['type array', { type: ['string', 'null'] }, 'string | null'],
  ['type array of three', { type: ['integer', 'boolean', 'null'] }, 'number | boolean | null'],
  ['string enum', { type: 'string', enum: ['a', 'b'] }, '"a" | "b"'],
  [
    'enum escaping',
    { enum: ['say "hi"', 'back\\slash', 'two\nlines', "it's", ' '] },
    '"say \\"hi\\"" | "back\\\\slash" | "two\\nlines" | "it\'s" | " "',
  ],
  ['mixed enum', { enum: [1, -2.5, true, null, 'x'] }, '1 | -2.5 | true | null | "x"'],
  ['enum filtered by type', { type: 'integer', enum: [1, 1.5, 'x'] }, '1'],
  ['empty enum', { enum: [] }, 'never'],
  ['const string', { const: 'resource' }, '"resource"'],
  ['const number with type', { type: 'number', const: 3 }, '3'],
  ['const array', { const: [1, 'a'] }, '[1, "a"]'],
  ['const object', { const: { kind: 'x' } }, '{ kind: "x" }'],
  ['anyOf', { anyOf: [{ type: 'string' }, { type: 'number' }] }, 'string | number'],
  ['oneOf', { oneOf: [{ const: 'a' }, { const: 'b' }] }, '"a" | "b"'],
  ['anyOf with an unconstrained member', { anyOf: [{ type: 'string' }, {}] }, 'JsonValue'],
  [
    'anyOf + nullable member (zod style)',
    { anyOf: [{ type: 'string' }, { type: 'null' }] },
    'string | null',
  ],
  ['allOf of primitives', { allOf: [{ type: 'string' }, { minLength: 1 }] }, 'string'],
  ['OpenAPI nullable', { type: 'string', nullable: true }, 'string | null'],
  ['nullable enum', { type: 'string', enum: ['a'], nullable: true }, '"a" | null'],
  ['array of strings', { type: 'array', items: { type: 'string' } }, 'string[]'],
  ['array without items', { type: 'array' }, 'JsonValue[]'],
  [
    'array of a union',
    { type: 'array', items: { type: ['string', 'number'] } },
    '(string | number)[]',
  ],
  [
    'array of arrays',
    { type: 'array', items: { type: 'array', items: { type: 'boolean' } } },
    'boolean[][]',
  ],
  ['items: false', { type: 'array', items: false }, '[]'],
  [
    'prefixItems closed',
    {
      type: 'array',
      prefixItems: [{ type: 'string' }, { type: 'number' }],
      items: false,
      minItems: 2,
    },
    '[string, number]',
  ],
  [
    'prefixItems open',
    { type: 'array', prefixItems: [{ type: 'string' }], minItems: 1 },
    '[string, ...JsonValue[]]',
  ],
  [
    'prefixItems + items',
    { type: 'array', prefixItems: [{ type: 'string' }], items: { type: 'number' }, minItems: 1 },
    '[string, ...number[]]',
  ],
  [
    'prefixItems without minItems',
    { type: 'array', prefixItems: [{ type: 'string' }, { type: 'number' }], items: false },
    '[string?, number?]',
  ],
  [
    'prefixItems capped by maxItems',
    {
      type: 'array',
      prefixItems: [{ type: 'string' }, { type: 'number' }],
      minItems: 1,
      maxItems: 1,
    },
    '[string]',
  ],
  [
    'draft-07 tuple items',
    {
      type: 'array',
      items: [{ type: 'string' }, { type: 'null' }],
      additionalItems: false,
      minItems: 2,
    },
    '[string, null]',
  ],
  [
    'draft-07 additionalItems',
    {
      type: 'array',
      items: [{ type: 'string' }],
      additionalItems: { type: 'boolean' },
      minItems: 1,
    },
    '[string, ...boolean[]]',
  ],
  [
    'tuple of a union element',
    { type: 'array', prefixItems: [{ type: ['string', 'null'] }], items: false },
    '[(string | null)?]',
  ],
  ['array implied by items', { items: { type: 'string' } }, 'string[]'],
  [
    'object with required and optional keys',
    {
      type: 'object',
      properties: { a: { type: 'string' }, b: { type: 'number' } },
      required: ['a'],
      additionalProperties: false,
    },
    '{ a: string; b?: number }',
  ],
  [
    'object without additionalProperties is closed',
    { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] },
    '{ a: string }',
  ],
  ['bare object', { type: 'object' }, 'Record<string, JsonValue>'],
  ['closed empty object', { type: 'object', additionalProperties: false }, 'Record<string, never>'],
  [
    'additionalProperties schema',
    { type: 'object', additionalProperties: { type: 'string' } },
    'Record<string, string>',
  ],
  [
    'additionalProperties: true',
    { type: 'object', additionalProperties: true },
    'Record<string, JsonValue>',
  ],
  [
    'additionalProperties schema with declared keys',
    {
      type: 'object',
      properties: { n: { type: 'number' } },
      additionalProperties: { type: 'string' },
    },
    '{ n?: number; [key: string]: string | number | undefined }',
  ],
  [
    'patternProperties',
    {
      type: 'object',
      patternProperties: { '^x-': { type: 'string' }, '^n-': { type: 'integer' } },
      additionalProperties: false,
    },
    'Record<string, string | number>',
  ],
  ['required key not declared', { type: 'object', required: ['id'] }, '{ id: JsonValue }'],
  [
    'object implied by properties',
    { properties: { a: { type: 'boolean' } }, additionalProperties: false },
    '{ a?: boolean }',
  ],
  [
    'quoted property names',
    {
      type: 'object',
      properties: {
        '0': {},
        'a-b': {},
        class: {},
        'has space': {},
        $ok: {},
        _ok: {},
        type: {},
        default: {},
        ünï: {},
      },
      additionalProperties: false,
    },
    '{ "0"?: JsonValue; "a-b"?: JsonValue; "class"?: JsonValue; "has space"?: JsonValue; $ok?: JsonValue; _ok?: JsonValue; type?: JsonValue; "default"?: JsonValue; "ünï"?: JsonValue }',
  ],
  [
    'nested objects fit on one line',
    {
      type: 'object',
      properties: {
        outer: {
          type: 'object',
          properties: { inner: { type: 'string' } },
          required: ['inner'],
          additionalProperties: false,
        },
      },
      additionalProperties: false,
    },
    '{ outer?: { inner: string } }',
  ],
  [
    'union of objects in an array',
    {
      type: 'array',
      items: {
        anyOf: [
          {
            type: 'object',
            properties: { t: { const: 'a' } },
            required: ['t'],
            additionalProperties: false,
          },
          {
            type: 'object',
            properties: { t: { const: 'b' } },
            required: ['t'],
            additionalProperties: false,
          },
        ],
      },
    },
    '({ t: "a" } | { t: "b" })[]',
  ],
  [
    'allOf of objects',
    {
      allOf: [
        { type: 'object', properties: { a: { type: 'string' } }, additionalProperties: false },
        { type: 'object', properties: { b: { type: 'number' } }, additionalProperties: false },
      ],
    },
    '{ a?: string } & { b?: number }',
  ],
  [
    'allOf intersected with a union',
    {
      allOf: [
        { anyOf: [{ type: 'string' }, { type: 'number' }] },
        { type: 'object', additionalProperties: false },
      ],
    },
    '(string | number) & Record<string, never>',
  ],
  [
    'type with anyOf refinements',
    {
      type: 'object',
      properties: { a: { type: 'string' } },
      additionalProperties: false,
      anyOf: [{ required: ['a'] }, { required: ['b'] }],
    },
    '{ a?: string } & ({ a: JsonValue } | { b: JsonValue })',
  ],
  ['not is ignored (looser, sound)', { type: 'string', not: { const: 'x' } }, 'string'],
  [
    'if/then/else are ignored',
    { type: 'number', if: { minimum: 0 }, then: {}, else: {} },
    'number',
  ],
  [
    'nullable object',
    { type: 'object', additionalProperties: false, nullable: true },
    'Record<string, never> | null',
  ],
];

describe('jsonSchemaToTs: constructs', () => {
  it.each(TYPE_CASES)('%s', (_name, schema, expected) => {
    const r = jsonSchemaToTs(schema);
    expect(r.type).toBe(expected);
    expect(r.warnings).toEqual([]);
    expect(r.declarations).toBe('');
  });

  it('every table case type-checks as a declaration', () => {
    const sdk = `${PRELUDE}\n${TYPE_CASES.map((c, i) => `type T${i} = ${jsonSchemaToTs(c[1]).type};`).join('\n')}\n`;
    expect(typecheck(sdk, 'export {};')).toEqual([]);
  });
});

describe('jsonSchemaToTs: JSDoc', () => {
  it('renders description, title and annotation tags on properties', () => {
    const r = jsonSchemaToTs({
      type: 'object',
      additionalProperties: false,
      properties: {
        when: {
          type: 'string',
          title: 'When it happens',
          description: 'First line.\nSecond line with */ inside.',
          format: 'date-time',
          default: '2024-01-01T00:00:00Z',
          examples: ['2025-02-03T04:05:06Z', 'x*/y'],
          pattern: '^\\d{4}-',
          minLength: 20,
          maxLength: 40,
          deprecated: true,
        },
        count: { type: 'integer', minimum: 1, maximum: 10, exclusiveMaximum: 11 },
        items: { type: 'array', minItems: 1, maxItems: 3, items: { type: 'string' } },
        same: { type: 'string', title: 'Same' },
        spaced: { type: 'string', pattern: 'a b', format: 'x' },
      },
    });
    // Each constraint once; the tags share one line unless a free-text tag holds a space or an `@`.
    expect(r.type).toBe(
      [
        '{',
        ' /**',
        '  * When it happens',
        '  * First line.',
        '  * Second line with *\\/ inside.',
        '  * @deprecated @default "2024-01-01T00:00:00Z" @format date-time @minLength 20 @maxLength 40 @pattern ^\\d{4}- @example "2025-02-03T04:05:06Z" @example "x*\\/y"',
        '  */',
        ' when?: string;',
        ' /** @integer @minimum 1 @maximum 10 @exclusiveMaximum 11 */ count?: number;',
        ' /** @minItems 1 @maxItems 3 */ items?: string[];',
        ' same?: string;',
        ' /**',
        '  * @format x',
        '  * @pattern a b',
        '  */',
        ' spaced?: string;',
        '}',
      ].join('\n'),
    );
  });

  it('keeps a hostile description inside the comment', () => {
    const sdk = `${PRELUDE}\ntype T = ${jsonSchemaToTs({ type: 'object', properties: { a: { description: '*/ type Boom = ; /*\r\nnext\u2028line' } } }).type};\n`;
    expect(typecheck(sdk, 'export {};')).toEqual([]);
  });
});

describe('jsonSchemaToTs: $ref', () => {
  it('names $defs and definitions targets', () => {
    const r = jsonSchemaToTs({
      type: 'object',
      properties: { a: { $ref: '#/$defs/Address' }, b: { $ref: '#/definitions/postal_code' } },
      additionalProperties: false,
      $defs: {
        Address: {
          type: 'object',
          description: 'Where.',
          properties: { street: { type: 'string' } },
          additionalProperties: false,
        },
      },
      definitions: { postal_code: { type: 'string' } },
    });
    expect(r.type).toBe('{ a?: Address; b?: PostalCode }');
    expect(r.declarations).toBe(
      '/** Where. */\ninterface Address { street?: string }\n\ntype PostalCode = string;',
    );
    expect(r.warnings).toEqual([]);
  });

  it('renders recursive types through names', () => {
    const schema = {
      $ref: '#/$defs/Node',
      $defs: {
        Node: {
          type: 'object',
          properties: {
            value: { type: 'number' },
            children: { type: 'array', items: { $ref: '#/$defs/Node' } },
          },
          required: ['value'],
          additionalProperties: false,
        },
      },
    };
    const r = jsonSchemaToTs(schema);
    expect(r.type).toBe('Node');
    expect(r.declarations).toBe('interface Node { value: number; children?: Node[] }');
    const sdk = `${PRELUDE}\n${r.declarations}\n`;
    expect(
      typecheck(
        sdk,
        'const n: Node = { value: 1, children: [{ value: 2, children: [] }] }; export {};',
      ),
    ).toEqual([]);
  });

  it('handles mutually recursive aliases behind arrays and self references via "#"', () => {
    const r = jsonSchemaToTs(
      {
        anyOf: [
          { type: 'string' },
          { type: 'array', items: { $ref: '#' } },
          { $ref: '#/$defs/Obj' },
        ],
        $defs: { Obj: { type: 'object', additionalProperties: { $ref: '#' } } },
      },
      { rootName: 'Json' },
    );
    expect(r.type).toBe('Json');
    expect(r.declarations).toBe(
      'type Json = string | Json[] | Obj;\n\ninterface Obj {\n [key: string]: Json;\n}',
    );
    expect(
      typecheck(
        `${PRELUDE}\n${r.declarations}\n`,
        'const j: Json = ["a", { k: ["b"] }]; export {};',
      ),
    ).toEqual([]);
  });

  it('turns an alias cycle TypeScript cannot express into unknown, with warnings', () => {
    const r = jsonSchemaToTs({
      $ref: '#/$defs/A',
      $defs: {
        A: { anyOf: [{ $ref: '#/$defs/B' }, { type: 'string' }] },
        B: { anyOf: [{ $ref: '#/$defs/A' }, { type: 'null' }] },
      },
    });
    expect(r.declarations).toBe('type A = unknown;\n\ntype B = unknown;');
    expect(r.warnings.map((w) => w.pointer)).toEqual(['/$defs/A', '/$defs/B']);
    expect(typecheck(`${PRELUDE}\n${r.declarations}\n`, 'export {};')).toEqual([]);
  });

  it('resolves other local pointers and escaped tokens', () => {
    const r = jsonSchemaToTs({
      type: 'object',
      properties: {
        a: { type: 'string', enum: ['x'] },
        b: { $ref: '#/properties/a' },
        c: { $ref: '#/$defs/a~1b%20c' },
      },
      additionalProperties: false,
      $defs: { 'a/b c': { type: 'boolean' } },
    });
    expect(r.type).toBe('{ a?: "x"; b?: PropertiesA; c?: ABC }');
    expect(r.declarations).toBe('type PropertiesA = "x";\n\ntype ABC = boolean;');
  });

  it('keeps sibling keywords of a $ref', () => {
    const r = jsonSchemaToTs({
      $ref: '#/$defs/S',
      nullable: true,
      description: 'doc',
      $defs: { S: { type: 'string' } },
    });
    expect(r.type).toBe('S | null');
  });

  it('does not let $defs names shadow library or prelude globals', () => {
    const r = jsonSchemaToTs({
      anyOf: [
        { $ref: '#/$defs/Promise' },
        { $ref: '#/$defs/JsonValue' },
        { $ref: '#/$defs/Tools' },
      ],
      $defs: {
        Promise: { type: 'string' },
        JsonValue: { type: 'number' },
        Tools: { type: 'boolean' },
      },
    });
    expect(r.type).toBe('Promise2 | JsonValue2 | Tools2');
  });
});

describe('jsonSchemaToTs: totality', () => {
  const GARBAGE: [string, unknown, string, string][] = [
    ['a number', 42, 'unknown', ''],
    ['a string', 'string', 'unknown', ''],
    ['null', null, 'unknown', ''],
    ['an array', [{ type: 'string' }], 'unknown', ''],
    ['an unknown type name', { type: 'frob' }, 'unknown', '/type'],
    ['a bad type value', { type: 7 }, 'JsonValue', '/type'],
    ['an empty type array', { type: [] }, 'JsonValue', '/type'],
    ['an external $ref', { $ref: 'https://example.com/s.json' }, 'unknown', '/$ref'],
    ['an anchor $ref', { $ref: '#thing' }, 'unknown', '/$ref'],
    ['an unresolvable $ref', { $ref: '#/$defs/Missing' }, 'unknown', '/$ref'],
    ['a non-string $ref', { $ref: 5 }, 'unknown', '/$ref'],
    ['$dynamicRef', { $dynamicRef: '#meta' }, 'unknown', ''],
    ['a non-array anyOf', { anyOf: { type: 'string' } }, 'JsonValue', '/anyOf'],
    ['a non-array enum', { enum: 'a' }, 'JsonValue', '/enum'],
    [
      'non-object properties',
      { type: 'object', properties: [1], additionalProperties: false },
      'Record<string, never>',
      '/properties',
    ],
    [
      'garbage inside properties',
      { type: 'object', properties: { a: 3 }, additionalProperties: false },
      '{ a?: unknown }',
      '/properties/a',
    ],
  ];

  it.each(GARBAGE)('%s becomes a type plus a warning', (_name, schema, type, pointer) => {
    const r = jsonSchemaToTs(schema);
    expect(r.type).toBe(type);
    expect(r.warnings.length).toBeGreaterThan(0);
    expect(r.warnings[0]?.pointer).toBe(pointer);
  });

  it('stops at the depth limit', () => {
    let schema: unknown = { type: 'string' };
    for (let i = 0; i < 10; i++) schema = { type: 'array', items: schema };
    expect(jsonSchemaToTs(schema, { maxDepth: 4 }).type).toBe('unknown[][][][][]');
    expect(jsonSchemaToTs(schema, { maxDepth: 4 }).warnings).toEqual([
      { tool: '', pointer: '/items/items/items/items/items', message: 'nested deeper than 4' },
    ]);
    expect(jsonSchemaToTs(schema).type).toBe(`string${'[]'.repeat(10)}`);
  });

  it('survives a cyclic object graph', () => {
    const schema: Record<string, unknown> = { type: 'object', additionalProperties: false };
    schema.properties = { self: schema };
    const r = jsonSchemaToTs(schema);
    expect(r.type).toBe('{ self?: unknown }');
    expect(r.warnings[0]?.pointer).toBe('/properties/self');
  });

  it('survives a throwing getter', () => {
    const schema = {
      type: 'object',
      get properties(): never {
        throw new Error('boom');
      },
    };
    const r = jsonSchemaToTs(schema);
    expect(r.type).toBe('unknown');
    expect(r.warnings.at(-1)?.message).toMatch(/boom/);
  });

  it('reads only own properties', () => {
    const inherited = Object.create({ type: 'string' }) as object;
    expect(jsonSchemaToTs(inherited).type).toBe('JsonValue');
    const r = jsonSchemaToTs({
      type: 'object',
      properties: { constructor: { type: 'string' } },
      required: ['toString'],
      additionalProperties: false,
    });
    expect(r.type).toBe('{ constructor?: string | Object["constructor"] }');
  });

  it('lets an optional property named like an Object member be omitted', () => {
    const r = jsonSchemaToTs({
      type: 'object',
      properties: {
        toString: { type: 'string' },
        valueOf: { type: 'number' },
        hasOwnProperty: { type: 'boolean' },
      },
      required: ['valueOf'],
    });
    expect(r.type).toBe(
      '{ toString?: string | Object["toString"]; valueOf: number; hasOwnProperty?: boolean | Object["hasOwnProperty"] }',
    );
    expect(
      typecheck(
        `${PRELUDE}\ntype T = ${r.type};\n`,
        'const t: T = { valueOf: 1 }; const s: T = { valueOf: 1, toString: "x" }; export {};',
      ),
    ).toEqual([]);
  });

  it('closes objects without additionalProperties; a misspelt key is an error with a suggestion', () => {
    const closed = jsonSchemaToTs({ type: 'object', properties: { limit: { type: 'number' } } });
    expect(closed.type).toBe('{ limit?: number }');
    const sdk = `${PRELUDE}\ntype T = ${closed.type};\n`;
    expect(typecheck(sdk, 'const t: T = { limt: 5 }; export {};').join('\n')).toMatch(
      /'limt' does not exist in type 'T'. Did you mean to write 'limit'\?/,
    );
    // Extra keys stay allowed where the schema allows them, typed by it.
    const open = jsonSchemaToTs({
      type: 'object',
      properties: { limit: { type: 'number' } },
      additionalProperties: true,
    });
    expect(
      typecheck(`${PRELUDE}\ntype T = ${open.type};\n`, 'const t: T = { limt: 5 }; export {};'),
    ).toEqual([]);
  });

  it('an allOf member or a $ref sibling that declares no key adds no constraint', () => {
    const r = jsonSchemaToTs({
      allOf: [
        { type: 'object', properties: {} },
        { type: 'object', properties: { a: { type: 'string' } } },
      ],
    });
    expect(r.type).toBe('{ a?: string }');
    expect(
      jsonSchemaToTs({
        type: 'object',
        properties: {},
        anyOf: [{ type: 'object', properties: { a: { type: 'string' } }, required: ['a'] }],
      }).type,
    ).toBe('{ a: string }');
  });
});
