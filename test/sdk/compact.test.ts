/**
 * The compact rendering (decision 017, round 2): what it leaves out must not change what a program
 * may write. Tools without inputs, member docs on one line, input and output types several tools
 * share, and the prelude under the DOM library a plain `tsc --strict` would add.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { renderSdk } from '../../src/sdk/index.js';
import type { ToolSchema } from '../../src/tools/types.js';
import { typecheck } from './helpers/typecheck.js';

const fixture = (name: string): ToolSchema[] =>
  JSON.parse(
    readFileSync(new URL(`../fixtures/catalogs/${name}.json`, import.meta.url), 'utf8'),
  ) as ToolSchema[];

const errors = (sdk: string, program: string): string =>
  typecheck(sdk, `${program}\nexport {};`).join('\n');

describe('a tool without inputs', () => {
  const { text } = renderSdk([
    { name: 'ping', description: 'Pings.', inputSchema: { type: 'object', properties: {} } },
  ]);

  it('accepts no argument and {}, and refuses an unknown key or a non-object', () => {
    expect(text).toContain(' ping(input?: Record<string, never>): Promise<JsonValue>;');
    expect(errors(text, 'await tools.ping(); await tools.ping({});')).toBe('');
    expect(errors(text, 'await tools.ping({ verbose: true });')).toMatch(/not assignable/);
    expect(errors(text, 'await tools.ping(5);')).toMatch(/not assignable/);
  });
});

describe('object types on one line', () => {
  const { text } = renderSdk([
    {
      name: 'get',
      description: 'Gets.',
      inputSchema: {
        type: 'object',
        properties: {
          id: { type: 'string', description: 'The id.' },
          n: { type: 'integer', minimum: 1, default: 3 },
          note: { type: 'string', description: 'First line.\nSecond line.' },
        },
        required: ['id'],
      },
      outputSchema: {
        type: 'object',
        properties: { v: { type: 'number', description: 'The value.' } },
        required: ['v'],
      },
    },
  ]);

  it('keeps one-line member docs inline and breaks lines only for a multi-line doc', () => {
    expect(text).toContain('Promise<{ /** The value. */ v: number }>;');
    expect(text).toContain(
      ' get(input: {\n  /** The id. */ id: string;\n  /** @default 3 @integer @minimum 1 */ n?: number;\n  /**\n   * First line.\n   * Second line.\n   */\n  note?: string;\n }): Promise<',
    );
    expect(
      errors(text, 'const r = await tools.get({ id: "a", n: 2 }); const v: number = r.v;'),
    ).toBe('');
    expect(errors(text, 'await tools.get({ id: "a", m: 2 });')).toMatch(/'m' does not exist/);
  });
});

describe('types several tools share', () => {
  const input = {
    type: 'object',
    properties: {
      path: { type: 'string', description: 'Where the file is.' },
      head: { type: 'number', description: 'Only the first N lines.' },
    },
    required: ['path'],
  };
  const output = {
    type: 'object',
    properties: { content: { type: 'string', description: 'The text.' } },
    required: ['content'],
  };
  const catalog: ToolSchema[] = [
    { name: 'read_file', description: 'Reads.', inputSchema: input, outputSchema: output },
    {
      name: 'read_text_file',
      description: 'Reads text.',
      inputSchema: input,
      outputSchema: output,
    },
    {
      name: 'stat',
      description: 'Stats.',
      inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
      outputSchema: output,
    },
  ];
  const { text } = renderSdk(catalog);

  it('declares a repeated type once, descriptions included, and names it by its members', () => {
    expect(text).toContain(' read_file(input: PathHeadInput): Promise<ContentOutput>;');
    expect(text).toContain(' read_text_file(input: PathHeadInput): Promise<ContentOutput>;');
    expect(text).toContain(' stat(input: { path: string }): Promise<ContentOutput>;');
    expect(text).toContain(
      'type PathHeadInput = { /** Where the file is. */ path: string; /** Only the first N lines. */ head?: number };',
    );
    expect(text).toContain('type ContentOutput = { /** The text. */ content: string };');
    expect(text.split('Where the file is.').length - 1).toBe(1);
  });

  it('names a type after the words its tools share when that name is free', () => {
    const shared = renderSdk(
      ['list_invoice', 'count_invoice', 'get_customer'].map((name) => ({
        name,
        description: '',
        inputSchema: input,
      })),
    ).text;
    expect(shared).toContain(' count_invoice(input: PathHeadInput)');
    const byTools = renderSdk(
      ['list_invoice', 'count_invoice'].map((name) => ({
        name,
        description: '',
        inputSchema: input,
      })),
    ).text;
    expect(byTools).toContain(' count_invoice(input: InvoiceInput)');
    expect(byTools).toContain(' list_invoice(input: InvoiceInput)');
  });

  it('type-checks programs exactly as the inline types did', () => {
    const good =
      'const r = await tools.read_text_file({ path: "a", head: 2 }); const s: string = r.content; await tools.read_file({ path: "b" });';
    expect(errors(text, good)).toBe('');
    expect(errors(text, 'await tools.read_file({ path: "a", haed: 2 });')).toMatch(
      /'haed' does not exist in type 'PathHeadInput'/,
    );
    expect(errors(text, 'await tools.read_file({});')).toMatch(/'path' is missing/);
    expect(errors(text, 'const r = await tools.stat({ path: "a" }); r.contents;')).toMatch(
      /'contents' does not exist/,
    );
  });

  it('leaves a type used once, or too small to pay for a name, inline', () => {
    const single = renderSdk([catalog[0] as ToolSchema]).text;
    expect(single).toContain(' read_file(input: {');
    expect(single).not.toMatch(/^type (?!JsonValue|ToolErrorCode)/m);
    const small = renderSdk(
      ['a', 'b'].map((name) => ({
        name,
        description: '',
        inputSchema: { type: 'object', properties: { x: { type: 'string' } } },
      })),
    ).text;
    expect(small).toContain(' a(input?: { x?: string }): Promise<JsonValue>;');
    expect(small).toContain(' b(input?: { x?: string }): Promise<JsonValue>;');
  });
});

describe('the prelude and the fixture SDKs', () => {
  it.each(['filesystem', 'everything', 'constructs'])(
    '%s compiles strict under es2022 and under es2022 + DOM (console merges)',
    (name) => {
      const { text } = renderSdk(fixture(name));
      const program =
        'console.log(1); console.debug("x"); try { await Promise.resolve(); } catch (e) { if (e instanceof ToolCallError && e.code === "DENIED") console.warn(e.toolName); }';
      expect(errors(text, program)).toBe('');
      expect(
        typecheck(text, `${program}\nexport {};`, {
          lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
          exactOptionalPropertyTypes: true,
          noUncheckedIndexedAccess: true,
        }),
      ).toEqual([]);
      expect(
        errors(
          text,
          'try {} catch (e) { if (e instanceof ToolCallError && e.code === "DENY") {} }',
        ),
      ).toMatch(/no overlap/);
    },
  );
});
