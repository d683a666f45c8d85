import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createRuntime, defineTool, isIsocodeError } from '../src/index.js';
import { scriptedRunner } from '../src/testing.js';

const t = (name: string) =>
  defineTool({
    name,
    description: `the ${name} tool`,
    input: z.object({ a: z.string().optional() }),
    execute: () => name,
  });

async function expectCode(p: Promise<unknown> | (() => unknown), code: string, text?: string) {
  try {
    await (typeof p === 'function' ? p() : p);
  } catch (err) {
    expect(isIsocodeError(err)).toBe(true);
    if (isIsocodeError(err)) {
      expect(err.code).toBe(code);
      if (text) expect(err.message).toContain(text);
    }
    return;
  }
  throw new Error(`expected ${code}`);
}

describe('tool registration', () => {
  it.each(['', 'a b', 'x'.repeat(65), '.lead', 'trail.', 'a..b', 'ünï', 'a/b'])(
    'refuses the bad name %j',
    async (name) => {
      await expectCode(
        createRuntime({ tools: [t(name)] }),
        'INVALID_TOOL_DEFINITION',
        'invalid tool name',
      );
    },
  );

  it('accepts letters, digits, _, - and . up to 64 characters', async () => {
    const rt = await createRuntime({
      tools: [t('fs.read_file'), t('get-user'), t('A9'), t('x'.repeat(64))],
    });
    expect(rt.schemas().length).toBe(4);
  });

  it('refuses duplicates and the reserved run_code', async () => {
    await expectCode(
      createRuntime({ tools: [t('a'), t('a')] }),
      'INVALID_TOOL_DEFINITION',
      'duplicate',
    );
    await expectCode(
      createRuntime({ tools: [t('run_code')] }),
      'INVALID_TOOL_DEFINITION',
      'reserved',
    );
    const rt = await createRuntime({ tools: [t('a')] });
    await expectCode(() => rt.register([t('a')]), 'INVALID_TOOL_DEFINITION', 'duplicate');
  });

  it('refuses malformed definitions with the field named', async () => {
    await expectCode(
      createRuntime({
        tools: [{ name: 'x', description: 1, input: {}, execute: () => 1 } as never],
      }),
      'INVALID_TOOL_DEFINITION',
      'description',
    );
    await expectCode(
      createRuntime({ tools: [{ name: 'x', description: '', input: {} } as never] }),
      'INVALID_TOOL_DEFINITION',
      'execute',
    );
    await expectCode(
      createRuntime({
        tools: [{ name: 'x', description: '', input: { type: 'nonsense' }, execute: () => 1 }],
      }),
      'INVALID_TOOL_DEFINITION',
      'invalid JSON Schema',
    );
  });

  it('a schema whose references go round without end is refused, or each call says it could not be checked', async () => {
    const $defs = {
      A: { anyOf: [{ $ref: '#/$defs/B' }, { type: 'string' }] },
      B: { anyOf: [{ $ref: '#/$defs/A' }, { type: 'number' }] },
    };
    // At the top: every value goes round, so the definition is refused.
    await expectCode(
      createRuntime({
        tools: [
          { name: 'top', description: '', input: { $ref: '#/$defs/A', $defs }, execute: () => 1 },
        ],
      }),
      'INVALID_TOOL_DEFINITION',
      'without end',
    );
    // Under a property: a call that reaches it is INVALID_ARGS with why, never INTERNAL_ERROR.
    const rt = await createRuntime({
      tools: [
        {
          name: 'deep',
          description: '',
          input: { type: 'object', properties: { a: { $ref: '#/$defs/A' } }, $defs },
          execute: () => 1,
        },
      ],
    });
    const reached = await rt.execute({ name: 'deep', args: { a: 'x' } });
    expect(!reached.ok && reached.error).toMatchObject({
      code: 'INVALID_ARGS',
      message: expect.stringContaining('recursed too deep') as unknown,
    });
    expect((await rt.execute({ name: 'deep', args: {} })).ok).toBe(true);
    await rt.close();
  });

  it('a schema with no $schema that uses 2020-12 keywords is validated as 2020-12, as the SDK types it', async () => {
    const rt = await createRuntime({
      tools: [
        {
          name: 'point',
          description: '',
          input: {
            type: 'object',
            properties: {
              point: {
                type: 'array',
                prefixItems: [{ type: 'number' }, { type: 'number' }],
                items: false,
              },
            },
            required: ['point'],
          },
          execute: (a: unknown) => a,
        },
      ],
    });
    expect((await rt.execute({ name: 'point', args: { point: [1, 2] } })).ok).toBe(true);
    const extra = await rt.execute({ name: 'point', args: { point: [1, 2, 3] } });
    expect(!extra.ok && extra.error.code).toBe('INVALID_ARGS');
    await rt.close();
  });

  it('exports zod schemas to JSON Schema and keeps plain JSON Schemas as given', async () => {
    const plain = { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] };
    const rt = await createRuntime({
      tools: [
        defineTool({
          name: 'z',
          description: 'd',
          input: z.object({ n: z.number().int() }),
          output: z.object({ ok: z.boolean() }),
          execute: () => ({ ok: true }),
        }),
        { name: 'j', description: 'd', input: plain, execute: () => 1 },
      ],
    });
    const [j, zz] = rt.schemas();
    expect(j?.inputSchema).toBe(plain);
    expect(zz?.inputSchema).toMatchObject({
      type: 'object',
      properties: { n: { type: 'integer' } },
      required: ['n'],
    });
    expect(zz?.outputSchema).toMatchObject({ properties: { ok: { type: 'boolean' } } });
  });
});

describe('scopes and modes', () => {
  const tools = [t('fs.read'), t('fs.write'), t('kv.get'), t('net.fetch')];

  it('nested scopes narrow visibility and the nearest mode declaration wins', async () => {
    const rt = await createRuntime({
      tools,
      scopes: {
        team: { allow: ['fs.*', 'kv.*'], mode: 'code' },
        agent: { parent: 'team', deny: ['fs.write'] },
        widened: { parent: 'agent', allow: ['*'], mode: 'both' },
      },
      codeMode: { runner: scriptedRunner(() => 1) },
    });
    expect(rt.schemas().map((s) => s.name)).toEqual(['fs.read', 'fs.write', 'kv.get', 'net.fetch']);
    expect(rt.schemas('agent').map((s) => s.name)).toEqual(['fs.read', 'kv.get']);
    expect(rt.mode('agent')).toBe('code');
    expect(rt.schemas('widened').map((s) => s.name)).toEqual(['fs.read', 'kv.get']); // a child never sees more than its parent
    expect(rt.mode('widened')).toBe('both');
    const hidden = await rt.execute({ name: 'net.fetch', args: {} }, { scope: 'widened' });
    expect(!hidden.ok && hidden.error.code).toBe('UNKNOWN_TOOL');
  });

  it('wireSchemas: native shows tools, code only run_code, both run_code plus tools', async () => {
    const rt = await createRuntime({
      tools: [t('a'), t('b')],
      scopes: { c: { mode: 'code' }, b2: { mode: 'both' } },
      codeMode: { runner: scriptedRunner(() => 1) },
    });
    expect(rt.wireSchemas().map((s) => s.name)).toEqual(['a', 'b']);
    expect(rt.wireSchemas('c').map((s) => s.name)).toEqual(['run_code']);
    expect(rt.wireSchemas('b2').map((s) => s.name)).toEqual(['run_code', 'a', 'b']);
    expect(rt.wireTools('openai', 'b2')[1]).toEqual({
      type: 'function',
      function: { name: 'a', description: 'the a tool', parameters: expect.any(Object) as object },
    });
    expect(rt.wireTools('anthropic', 'c')[0]).toMatchObject({
      name: 'run_code',
      input_schema: { type: 'object', required: ['code', 'description'] },
    });
    expect(rt.wireTools('mcp')[0]).toMatchObject({ name: 'a', inputSchema: { type: 'object' } });
  });

  it('scopes may be declared children first: the registry defines them in dependency order', async () => {
    const rt = await createRuntime({
      tools,
      scopes: {
        leaf: { parent: 'middle', deny: ['kv.*'] },
        middle: { parent: 'top' },
        top: { allow: ['fs.*', 'kv.*'], mode: 'code' },
        default: { deny: ['fs.write'] },
      },
      codeMode: { runner: scriptedRunner(() => 1) },
    });
    expect(rt.schemas('leaf').map((s) => s.name)).toEqual(['fs.read']);
    expect(rt.mode('leaf')).toBe('code');
    expect(rt.schemas('middle').map((s) => s.name)).toEqual(['fs.read', 'kv.get']);
  });

  it('run_code cannot be denied or allowed by name, and bad scope declarations are refused', async () => {
    await expectCode(
      createRuntime({ scopes: { x: { deny: ['run_code'] } } }),
      'INVALID_SCOPE',
      'reserved',
    );
    await expectCode(
      createRuntime({ scopes: { x: { allow: ['run_code'] } } }),
      'INVALID_SCOPE',
      'reserved',
    );
    await expectCode(
      createRuntime({ scopes: { x: { mode: 'hybrid' as never } } }),
      'INVALID_SCOPE',
      'mode',
    );
    await expectCode(
      createRuntime({ scopes: { x: { parent: 'nowhere' } } }),
      'INVALID_SCOPE',
      'unknown parent',
    );
    await expectCode(
      createRuntime({ scopes: { x: { parent: 'y' }, y: { parent: 'x' } } }),
      'INVALID_SCOPE',
    );
    await expectCode(
      createRuntime({ scopes: { x: { colour: 'red' } as never } }),
      'INVALID_SCOPE',
      'colour',
    );
  });

  it('a wildcard never hides run_code in a code scope', async () => {
    const rt = await createRuntime({
      tools,
      scopes: { locked: { mode: 'code', deny: ['*'] } },
      codeMode: { runner: scriptedRunner(() => 'ok') },
    });
    expect(rt.wireSchemas('locked').map((s) => s.name)).toEqual(['run_code']);
    expect(rt.schemas('locked')).toEqual([]);
    const res = await rt.execute(
      { name: 'run_code', args: { code: 'x', description: 'd' } },
      { scope: 'locked' },
    );
    expect(res.ok).toBe(true);
  });

  it('run_code rejects a blank description and an empty program as INVALID_ARGS', async () => {
    const rt = await createRuntime({
      scopes: { default: { mode: 'code' } },
      codeMode: { runner: scriptedRunner(() => 1) },
    });
    const blank = await rt.execute({
      name: 'run_code',
      args: { code: 'return 1', description: '   ' },
    });
    expect(!blank.ok && blank.error.code).toBe('INVALID_ARGS');
    expect(!blank.ok && blank.error.message).toContain('description');
    const empty = await rt.execute({ name: 'run_code', args: { code: '', description: 'x' } });
    expect(!empty.ok && empty.error.code).toBe('INVALID_ARGS');
  });
});

describe('validation issues are bounded', () => {
  it('a call with thousands of bad fields and long keys gets a short INVALID_ARGS (zod and JSON Schema inputs)', async () => {
    const zodTool = defineTool({
      name: 'strict.zod',
      description: 'strict zod input',
      input: z.strictObject({ n: z.array(z.number()) }),
      execute: () => 1,
    });
    const jsonTool = defineTool({
      name: 'strict.json',
      description: 'strict JSON Schema input',
      input: {
        type: 'object',
        properties: { n: { type: 'array', items: { type: 'number' } } },
        additionalProperties: false,
      },
      execute: () => 1,
    });
    const rt = await createRuntime({ tools: [zodTool, jsonTool] });
    const long = 'k'.repeat(5_000);
    // 2,000 wrong items and an unknown key of 5,000 characters (and a lone surrogate at the cut).
    const args = {
      n: Array.from({ length: 2_000 }, () => 'x'),
      [`${'𝒳'.repeat(150)}${long}`]: 1,
    };
    for (const name of ['strict.zod', 'strict.json']) {
      const r = await rt.execute({ name, args });
      expect(r.ok, name).toBe(false);
      if (r.ok) continue;
      expect(r.error.code).toBe('INVALID_ARGS');
      const issues = (r.error.details as { issues: { path: string; message: string }[] }).issues;
      expect(issues.length, name).toBeLessThanOrEqual(21);
      expect(issues.at(-1)?.message, name).toMatch(/more issues not shown/);
      for (const i of issues) {
        expect(i.path.length + i.message.length, name).toBeLessThan(600);
        // Clipped text never ends in half a surrogate pair.
        expect(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/.test(i.path + i.message), name).toBe(false);
      }
      expect(r.error.message.length, name).toBeLessThan(12_000);
    }
    await rt.close();
  });
});

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

describe('error text is clipped whole', () => {
  it("a body's long error message is capped once, within 4,000 characters, never between the halves of a surrogate pair", async () => {
    let sent = '';
    const rt = await createRuntime({
      tools: [
        defineTool({
          name: 'fail.long',
          description: 'throws a long message',
          input: z.object({ k: z.number() }),
          execute: ({ k }: { k: number }) => {
            sent = `${'a'.repeat(k)}${'\u{1F600}'.repeat(300)}`;
            throw new Error(sent);
          },
        }),
      ],
    });
    // Every position of the cut around the cap, on either half of a pair.
    for (let k = 3_960; k < 3_990; k++) {
      const r = await rt.execute({ name: 'fail.long', args: { k } });
      expect(r.ok).toBe(false);
      if (r.ok) continue;
      expect(r.error.code).toBe('TOOL_ERROR');
      const m = /^([^]*)… \((\d+) more characters\)$/.exec(r.error.message);
      expect(m, `k=${k}`).not.toBeNull();
      const [, head = '', more = ''] = m ?? [];
      expect(r.error.message.length, `k=${k}`).toBeLessThanOrEqual(4_000);
      expect(sent.startsWith(head), `k=${k}`).toBe(true);
      expect(head.length + Number(more), `k=${k}`).toBe(sent.length);
      expect(LONE_SURROGATE.test(r.error.message), `k=${k}`).toBe(false);
    }
    await rt.close();
  });
});
