import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../src/errors.js';
import { renderInstructions, renderSdk, renderSdkPrompt } from '../../src/sdk/index.js';
import type { ToolSchema } from '../../src/tools/types.js';
import { typecheck } from './helpers/typecheck.js';

const fixture = (name: string): ToolSchema[] =>
  JSON.parse(
    readFileSync(new URL(`../fixtures/catalogs/${name}.json`, import.meta.url), 'utf8'),
  ) as ToolSchema[];

const tool = (
  name: string,
  inputSchema: Record<string, unknown> = { type: 'object' },
  outputSchema?: Record<string, unknown>,
): ToolSchema =>
  outputSchema === undefined
    ? { name, description: '', inputSchema }
    : { name, description: '', inputSchema, outputSchema };

/** The `interface Name { … }` or `type Name = …;` declaration in an SDK text. */
function declaration(text: string, name: string): string {
  const m = new RegExp(
    `^(?:interface ${name} \\{ .* \\}|interface ${name} \\{\\n[\\s\\S]*?^\\}|type ${name} = [\\s\\S]*?;)$`,
    'm',
  ).exec(text);
  if (!m) throw new Error(`no declaration of ${name}`);
  return m[0];
}

describe('renderSdk: shape', () => {
  it('starts with the prelude and declares Tools and tools', () => {
    const { text } = renderSdk([tool('read_file')]);
    const prelude = readFileSync(
      new URL('../../sdk-templates/prelude.d.ts', import.meta.url),
      'utf8',
    );
    expect(text.startsWith(prelude.replace(/^\/\/ (?:eslint-|prettier-ignore).*\n/gm, ''))).toBe(
      true,
    );
    expect(text).not.toContain('prettier');
    expect(text).not.toContain('eslint');
    expect(text).toMatch(/^interface Tools \{$/m);
    expect(text).toMatch(/^declare const tools: Tools;$/m);
    expect(text).not.toMatch(/^\s*(import|export)\b/m);
    expect(text).not.toMatch(/\bany\b/);
  });

  it('renders one method per tool: its doc once, input and output types inline', () => {
    const { text } = renderSdk([
      {
        name: 'get_user',
        description: 'Fetches a user.\nSecond line.',
        inputSchema: {
          type: 'object',
          properties: {
            id: { type: 'string', description: 'The user id.\nMore detail.' },
            verbose: { type: 'boolean' },
          },
          required: ['id'],
        },
        outputSchema: {
          type: 'object',
          description: 'The user.',
          properties: { name: { type: 'string' } },
        },
      },
    ]);
    expect(declaration(text, 'Tools')).toBe(
      [
        'interface Tools {',
        ' /**',
        '  * Fetches a user.',
        '  * Second line.',
        '  * @returns The user.',
        '  */',
        ' get_user(input: {',
        '  /**',
        '   * The user id.',
        '   * More detail.',
        '   */',
        '  id: string;',
        '  verbose?: boolean;',
        ' }): Promise<{ name?: string }>;',
        '}',
      ].join('\n'),
    );
    // No empty tags, no @returns restating the signature, no index signature the schema does not allow.
    expect(text).not.toMatch(/@param input\.|@returns \w+Output|\[key: string\]: unknown/);
  });

  it('writes a one-line description and root docs on one JSDoc line', () => {
    const { text } = renderSdk([
      {
        name: 'f',
        description: 'Does f.',
        inputSchema: { type: 'object', description: 'The query.', properties: {} },
        outputSchema: { type: 'object', description: 'The answer.' },
      },
    ]);
    expect(text).toContain(
      ' /** Does f. @param input The query. @returns The answer. */\n f(input?: Record<string, never>): Promise<Record<string, JsonValue>>;',
    );
  });

  it('returns Promise<JsonValue> without an output schema and makes an all-optional input optional', () => {
    const { text } = renderSdk([
      tool('ping', { type: 'object', properties: { n: { type: 'number' } } }),
    ]);
    expect(text).toContain(' ping(input?: { n?: number }): Promise<JsonValue>;');
    expect(text).not.toContain('@returns');
  });

  it('quotes tool names that are not identifiers', () => {
    const { text } = renderSdk([
      tool('get-user', { type: 'object', required: ['id'] }),
      tool('delete'),
      tool('3d'),
    ]);
    expect(text).toContain(' "get-user"(input: { id: JsonValue }): Promise<JsonValue>;');
    expect(text).toContain(' "delete"(input?: Record<string, JsonValue>): Promise<JsonValue>;');
    expect(text).toContain(' "3d"(input?: Record<string, JsonValue>): Promise<JsonValue>;');
  });

  it('nests dotted names in namespace interfaces', () => {
    const { text, bindings } = renderSdk([
      tool('github.create_issue'),
      tool('github.issues.list'),
      tool('x'),
      tool('x.y'),
    ]);
    expect(declaration(text, 'Tools')).toContain(' github: ToolsGithub;');
    expect(declaration(text, 'ToolsGithub')).toContain(' issues: ToolsGithubIssues;');
    expect(declaration(text, 'ToolsGithubIssues')).toContain(
      ' list(input?: Record<string, JsonValue>): Promise<JsonValue>;',
    );
    expect(declaration(text, 'Tools')).toContain(
      ' "x.y"(input?: Record<string, JsonValue>): Promise<JsonValue>;',
    );
    expect(bindings).toEqual([
      { path: ['github', 'create_issue'], tool: 'github.create_issue' },
      { path: ['github', 'issues', 'list'], tool: 'github.issues.list' },
      { path: ['x'], tool: 'x' },
      { path: ['x.y'], tool: 'x.y' },
    ]);
    const program =
      'await tools.github.create_issue(); await tools.github.issues.list({}); await tools.x(); await tools["x.y"](); export {};';
    expect(typecheck(text, program)).toEqual([]);
  });

  it('can render every tool flat', () => {
    const { text, bindings } = renderSdk([tool('github.create_issue')], { namespaces: false });
    expect(text).toContain(' "github.create_issue"(input?: Record<string, JsonValue>)');
    expect(bindings).toEqual([{ path: ['github.create_issue'], tool: 'github.create_issue' }]);
  });
});

describe('renderSdk: names', () => {
  const selfRef = { type: 'object', properties: { next: { $ref: '#' } } };

  it('names a root only when it refers to itself, from the tool name, suffixing clashes', () => {
    const { text } = renderSdk([
      tool('get-user', selfRef, selfRef),
      tool('get_user', selfRef, selfRef),
      tool('getUser', selfRef),
    ]);
    expect(text).toContain('"get-user"(input?: GetUserInput): Promise<GetUserOutput>;');
    expect(text).toContain('getUser(input?: GetUser2Input): Promise<JsonValue>;');
    expect(text).toContain('get_user(input?: GetUser3Input): Promise<GetUser3Output>;');
    expect(declaration(text, 'GetUserInput')).toBe(
      'interface GetUserInput { next?: GetUserInput }',
    );
    expect(typecheck(text, 'await tools.getUser({ next: { next: {} } }); export {};')).toEqual([]);
  });

  it('never reuses prelude, namespace or library names', () => {
    const { text } = renderSdk([
      tool('tools.github.x'),
      tool('tools_github', selfRef, selfRef),
      tool('json', { $ref: '#/$defs/Value', $defs: { Value: { type: 'string' } } }),
      tool('array', { $ref: '#/$defs/buffer', $defs: { buffer: { type: 'string' } } }),
      tool('tool_call', { $ref: '#/$defs/Error', $defs: { Error: { type: 'string' } } }),
    ]);
    expect(text).toContain('interface ToolsTools {');
    expect(text).toContain('interface ToolsToolsGithub {');
    expect(text).toContain('tools_github(input?: ToolsGithubInput): Promise<ToolsGithubOutput>;');
    expect(text).toContain('type JsonValue2 = string;');
    expect(text).toContain('type ArrayBuffer2 = string;');
    expect(text).toContain('type ToolCallError2 = string;');
    expect(typecheck(text, 'export {};')).toEqual([]);
  });

  it('prefixes $defs names per tool so two tools can both define User', () => {
    const user = {
      type: 'object',
      properties: { id: { type: 'string' } },
      additionalProperties: false,
    };
    const { text } = renderSdk([
      tool('a', { $ref: '#/$defs/User', $defs: { User: user } }),
      tool('b', {
        $ref: '#/$defs/User',
        $defs: { User: { ...user, properties: { id: { type: 'number' } } } },
      }),
    ]);
    expect(declaration(text, 'AUser')).toBe('interface AUser { id?: string }');
    expect(declaration(text, 'BUser')).toBe('interface BUser { id?: number }');
    expect(text).toContain(' a(input: AUser): Promise<JsonValue>;');
  });

  it('resolves $ref inside each schema separately (input and output)', () => {
    const { text } = renderSdk([
      tool(
        'f',
        {
          type: 'object',
          properties: { x: { $ref: '#/$defs/X' } },
          $defs: { X: { type: 'string' } },
        },
        {
          type: 'object',
          properties: { x: { $ref: '#/$defs/X' } },
          $defs: { X: { type: 'number' } },
        },
      ),
    ]);
    expect(declaration(text, 'FX')).toBe('type FX = string;');
    expect(declaration(text, 'FX2')).toBe('type FX2 = number;');
    expect(text).toContain(' f(input?: { x?: FX }): Promise<{ x?: FX2 }>;');
  });

  it('closes objects without additionalProperties (inputs and outputs); open where the schema allows', () => {
    const { text } = renderSdk([
      tool(
        'f',
        { type: 'object', properties: { a: { type: 'string' } } },
        { type: 'object', properties: { b: { type: 'string' } } },
      ),
      tool(
        'g',
        { type: 'object', properties: { a: { type: 'string' } }, additionalProperties: true },
        { type: 'object', properties: { b: { type: 'string' } }, additionalProperties: true },
      ),
    ]);
    expect(text).toContain(' f(input?: { a?: string }): Promise<{ b?: string }>;');
    expect(text).toContain(
      ' g(input?: { a?: string; [key: string]: JsonValue | undefined }): Promise<{ b?: string; [key: string]: JsonValue | undefined }>;',
    );
    expect(typecheck(text, 'await tools.f({ a: "x", typo: 1 }); export {};').join('\n')).toMatch(
      /'typo' does not exist/,
    );
    expect(typecheck(text, 'const r = await tools.f(); r.c; export {};').join('\n')).toMatch(
      /Property 'c' does not exist/,
    );
    expect(
      typecheck(
        text,
        'await tools.g({ a: "x", typo: 1 }); const r = await tools.g(); r.c; export {};',
      ),
    ).toEqual([]);
  });
});

describe('renderSdk: determinism', () => {
  const catalog = [
    ...fixture('filesystem'),
    ...fixture('everything').map((t) => ({ ...t, name: `everything.${t.name}` })),
  ];

  it('gives byte-identical text and hash for the same catalog, in any order', () => {
    const a = renderSdk(catalog);
    const b = renderSdk(structuredClone(catalog));
    const shuffled = [...catalog].reverse();
    shuffled.push(shuffled.shift() as ToolSchema);
    const c = renderSdk(shuffled);
    expect(b.text).toBe(a.text);
    expect(c.text).toBe(a.text);
    expect(c.hash).toBe(a.hash);
    expect(a.hash).toBe(createHash('sha256').update(a.text).digest('hex'));
  });

  it('changes the hash when the catalog changes', () => {
    const changed = catalog.map((t, i) =>
      i === 0 ? { ...t, description: `${t.description}!` } : t,
    );
    expect(renderSdk(changed).hash).not.toBe(renderSdk(catalog).hash);
  });

  it('keeps one entry of a duplicated name regardless of order', () => {
    const a = tool('dup', { type: 'object', properties: { a: { type: 'string' } } });
    const b = tool('dup', { type: 'object', properties: { b: { type: 'string' } } });
    const x = renderSdk([a, b]);
    expect(renderSdk([b, a]).text).toBe(x.text);
    expect(x.warnings).toEqual([
      { tool: 'dup', pointer: '', message: 'duplicate tool name; one entry kept' },
    ]);
  });
});

describe('renderSdk: totality', () => {
  it('never throws on garbage catalogs and reports warnings', () => {
    const hostile = {
      name: 'hostile',
      get inputSchema(): never {
        throw new Error('getter');
      },
    };
    const garbage: unknown[] = [
      null,
      42,
      { name: '' },
      { name: 7 },
      { name: 'no_schema' },
      { name: 'bad_schema', inputSchema: 'nope', outputSchema: [1] },
      { name: 'ok', inputSchema: { type: 'object' }, description: 99 },
      hostile,
    ];
    const r = renderSdk(garbage as ToolSchema[]);
    expect(r.bindings.map((b) => b.tool)).toEqual(['bad_schema', 'hostile', 'no_schema', 'ok']);
    expect(r.warnings.map((w) => `${w.tool}${w.pointer}`)).toEqual(
      expect.arrayContaining([
        '',
        'bad_schema/inputSchema',
        'bad_schema/outputSchema',
        'no_schema/inputSchema',
        'hostile/inputSchema',
      ]),
    );
    expect(typecheck(r.text, 'export {};')).toEqual([]);
    expect(renderSdk('nope' as unknown as ToolSchema[]).warnings).toEqual([
      { tool: '', pointer: '', message: 'the catalog is not an array' },
    ]);
  });

  it('prefixes warning pointers with the schema they point into', () => {
    const r = renderSdk([
      tool('f', { type: 'object', properties: { a: { type: 'frob' } } }, { $ref: '#/nowhere' }),
    ]);
    expect(r.warnings).toEqual([
      { tool: 'f', pointer: '/inputSchema/properties/a/type', message: 'unknown type "frob"' },
      { tool: 'f', pointer: '/outputSchema/$ref', message: 'unresolvable $ref "#/nowhere"' },
    ]);
  });
});

describe('prelude', () => {
  const prelude = readFileSync(
    new URL('../../sdk-templates/prelude.d.ts', import.meta.url),
    'utf8',
  );

  it('lists only codes that errors.ts defines', () => {
    const union = /type ToolErrorCode =([^;]*);/.exec(prelude)?.[1] ?? '';
    const codes = [...union.matchAll(/"([A-Z_]+)"/g)].map((m) => m[1]);
    expect(codes.length).toBeGreaterThan(5);
    for (const code of codes) expect(ERROR_CODES).toContain(code);
  });

  it('types ToolCallError and console for programs', () => {
    const program = [
      'try { await tools.f(); } catch (e) {',
      '  if (e instanceof ToolCallError) { const c: ToolErrorCode = e.code; const t: string = e.toolName; const n: "ToolCallError" = e.name; console.log(c, t, n, e.message); }',
      '}',
      'console.info(1); console.warn(2); console.error(3); console.debug(4);',
      'export {};',
    ].join('\n');
    expect(typecheck(renderSdk([tool('f')]).text, program)).toEqual([]);
  });

  it('declares nothing else a program could reach', () => {
    const text = renderSdk([]).text;
    for (const absent of [
      'new ToolCallError()',
      'setTimeout(() => 1, 1)',
      'fetch("x")',
      'process.env',
      'require("fs")',
      'document.title',
      'console.table([])',
    ]) {
      expect(typecheck(text, `${absent};\nexport {};`), absent).not.toEqual([]);
    }
  });
});

describe('instructions and prompt', () => {
  it('tells the model how to write a program and what is unavailable', () => {
    const text = renderInstructions();
    for (const phrase of [
      'async function',
      'await',
      'return',
      'Promise.all',
      'ToolCallError',
      'console.log',
      'require',
      'import',
      'process',
      'fetch',
      'filesystem',
      'setTimeout',
      'eval',
      'WebAssembly',
      'SharedArrayBuffer',
    ]) {
      expect(text).toContain(phrase);
    }
  });

  it('wraps the SDK in a ts block after the instructions', () => {
    const sdk = renderSdk(fixture('filesystem'));
    const prompt = renderSdkPrompt(sdk);
    expect(prompt.startsWith(renderInstructions())).toBe(true);
    expect(prompt).toContain(`\`\`\`ts\n${sdk.text}\`\`\`\n`);
  });

  it('has an example that type-checks against the filesystem SDK', () => {
    const example = /```ts\n([\s\S]*?)```/.exec(renderInstructions())?.[1] ?? '';
    const program = `export {};\nasync function main(): Promise<JsonValue> {\n${example}}\nvoid main;\n`;
    expect(typecheck(renderSdk(fixture('filesystem')).text, program)).toEqual([]);
  });
});
