import { describe, expect, it } from 'vitest';
import {
  answerAnthropicToolUse,
  answerOpenAiFunctionCall,
  answerOpenAiToolCall,
  createRuntime,
  defineTool,
  fromAnthropicToolUse,
  fromOpenAiFunctionCall,
  fromOpenAiToolCall,
  isIsocodeError,
  toAnthropicToolResult,
  toAnthropicTools,
  toOpenAiFunctionCallOutput,
  toOpenAiResponsesTools,
  toOpenAiToolMessage,
  toOpenAiTools,
  type ToolResult,
} from '../../src/index.js';
import { providerSchema } from '../../src/tools/wire.js';

// Shapes as the providers document them (OpenAI Chat Completions `tool_calls`, Anthropic Messages `tool_use`).
const openAiCall = {
  id: 'call_abc123',
  type: 'function',
  function: { name: 'math__add', arguments: '{"a":2,"b":3}' },
};
const anthropicUse = {
  type: 'tool_use',
  id: 'toolu_01A09q90qw90lq917835lq9',
  name: 'math__add',
  input: { a: 2, b: 3 },
};

const add = defineTool({
  name: 'math.add',
  description: 'Adds.',
  input: {
    type: 'object',
    properties: { a: { type: 'number' }, b: { type: 'number' } },
    required: ['a', 'b'],
  },
  execute: (args: { a: number; b: number }) => ({ sum: args.a + args.b }),
});

function thrownCode(f: () => unknown): string | undefined {
  return thrown(f)?.code;
}

function thrown(
  f: () => unknown,
): { code: string; message: string; details?: unknown } | undefined {
  try {
    f();
  } catch (error) {
    return isIsocodeError(error)
      ? { code: error.code, message: error.message, details: error.details }
      : { code: 'not an IsocodeError', message: String(error) };
  }
  return undefined;
}

const imageResult: ToolResult = {
  ok: true,
  value: null,
  content: [
    { type: 'text', text: 'a chart' },
    { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' },
    { type: 'image', data: 'PHN2Zz4=', mimeType: 'image/svg+xml' },
  ],
  meta: {} as ToolResult['meta'],
};

describe('OpenAI adapters', () => {
  it('a tool_calls entry runs through execute and answers as a tool message', async () => {
    const rt = await createRuntime({ tools: [add], codeMode: false });
    const call = fromOpenAiToolCall(openAiCall);
    expect(call).toEqual({ name: 'math__add', args: { a: 2, b: 3 }, id: 'call_abc123' });
    const result = await rt.execute(call);
    expect(toOpenAiToolMessage(openAiCall.id, result)).toEqual({
      role: 'tool',
      tool_call_id: 'call_abc123',
      content: JSON.stringify({ sum: 5 }, null, 2),
    });
    const failed = await rt.execute(
      fromOpenAiToolCall({
        ...openAiCall,
        function: { name: 'math__add', arguments: '{"a":"x"}' },
      }),
    );
    const message = toOpenAiToolMessage(openAiCall.id, failed);
    expect(message.content).toMatch(/^Error INVALID_ARGS: /);
    await rt.close();
  });

  it('empty arguments mean {}', () => {
    const call = fromOpenAiToolCall({ ...openAiCall, function: { name: 'x', arguments: '' } });
    expect(call.args).toEqual({});
  });

  it('malformed entries are INVALID_ARGS errors', () => {
    const bad: unknown[] = [
      null,
      'call',
      { id: 'c', type: 'function' },
      { id: 'c', function: { name: '', arguments: '{}' } },
      { id: 1, function: { name: 'x', arguments: '{}' } },
      { id: 'c', function: { name: 'x', arguments: '{not json' } },
      { id: 'c', function: { name: 'x', arguments: '[1,2]' } },
      { id: 'c', function: { name: 'x', arguments: { a: 1 } } },
    ];
    for (const entry of bad)
      expect(thrownCode(() => fromOpenAiToolCall(entry))).toBe('INVALID_ARGS');
  });
});

describe('Anthropic adapters', () => {
  it('a tool_use block runs through execute and answers as a tool_result block', async () => {
    const rt = await createRuntime({ tools: [add], codeMode: false });
    const call = fromAnthropicToolUse(anthropicUse);
    expect(call).toEqual({ name: 'math__add', args: { a: 2, b: 3 }, id: anthropicUse.id });
    const ok = toAnthropicToolResult(anthropicUse.id, await rt.execute(call));
    expect(ok).toEqual({
      type: 'tool_result',
      tool_use_id: anthropicUse.id,
      content: [{ type: 'text', text: JSON.stringify({ sum: 5 }, null, 2) }],
      is_error: false,
    });
    const failed = toAnthropicToolResult(
      anthropicUse.id,
      await rt.execute(fromAnthropicToolUse({ ...anthropicUse, name: 'nope' })),
    );
    expect(failed.is_error).toBe(true);
    expect(failed.content).toEqual([
      { type: 'text', text: 'Error UNKNOWN_TOOL: unknown tool "nope" in scope "default"' },
    ]);
    await rt.close();
  });

  it('image content becomes a base64 image block, resources their text', () => {
    const result: ToolResult = {
      ok: true,
      value: null,
      content: [
        { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' },
        { type: 'resource', resource: { uri: 'file:///a.txt', text: 'hello' } },
        { type: 'resource', resource: { uri: 'file:///b.bin' } },
      ],
      meta: {} as ToolResult['meta'],
    };
    expect(toAnthropicToolResult('t', result).content).toEqual([
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } },
      { type: 'text', text: 'hello' },
      { type: 'text', text: 'file:///b.bin' },
    ]);
    expect(toOpenAiToolMessage('c', result).content).toBe(
      '[image image/png, 12 base64 characters]\n\nhello\n\nfile:///b.bin',
    );
  });

  it('malformed blocks are INVALID_ARGS errors', () => {
    const bad: unknown[] = [
      undefined,
      { ...anthropicUse, type: 'text' },
      { ...anthropicUse, id: '' },
      { ...anthropicUse, name: 7 },
      { ...anthropicUse, input: 'a=1' },
      { ...anthropicUse, input: [1] },
    ];
    for (const block of bad)
      expect(thrownCode(() => fromAnthropicToolUse(block))).toBe('INVALID_ARGS');
  });
});

describe('OpenAI custom tool calls', () => {
  const custom = { id: 'call_c', type: 'custom', custom: { name: 'grammar', input: 'x' } };

  it('are refused with a typed INVALID_ARGS naming the tool (Chat Completions and Responses)', () => {
    expect(thrown(() => fromOpenAiToolCall(custom))).toEqual({
      code: 'INVALID_ARGS',
      message: expect.stringContaining('"grammar" is a custom tool call') as string,
      details: { type: 'custom', name: 'grammar' },
    });
    const item = { type: 'custom_tool_call', call_id: 'c', name: 'grammar', input: 'x' };
    expect(thrown(() => fromOpenAiFunctionCall(item))?.details).toEqual({
      type: 'custom',
      name: 'grammar',
    });
    for (const bad of [
      { ...custom, custom: null },
      { ...custom, custom: { name: 7 } },
    ])
      expect(thrown(() => fromOpenAiToolCall(bad))?.details).toEqual({ type: 'custom' });
  });

  it('are answered, not thrown, by the answer helpers; a value with no id to answer throws', async () => {
    const rt = await createRuntime({ tools: [add], codeMode: false });
    try {
      const message = await answerOpenAiToolCall(rt, custom);
      expect(message.tool_call_id).toBe('call_c');
      expect(message.content).toMatch(/^Error INVALID_ARGS: the OpenAI tool call "grammar"/);
      const bad = await answerOpenAiToolCall(rt, {
        ...openAiCall,
        function: { name: 'math__add', arguments: '{oops' },
      });
      expect(bad.content).toBe(
        'Error INVALID_ARGS: the arguments of "math__add" are not valid JSON',
      );
      const ok = await answerOpenAiToolCall(rt, openAiCall);
      expect(ok.content).toBe(JSON.stringify({ sum: 5 }, null, 2));
      for (const hostile of [null, 'call', 42, [], { type: 'function' }, { id: '' }]) {
        await expect(answerOpenAiToolCall(rt, hostile)).rejects.toMatchObject({
          code: 'INVALID_ARGS',
        });
        await expect(answerOpenAiFunctionCall(rt, hostile)).rejects.toMatchObject({
          code: 'INVALID_ARGS',
        });
        await expect(answerAnthropicToolUse(rt, hostile)).rejects.toMatchObject({
          code: 'INVALID_ARGS',
        });
      }
      const notObject = await answerAnthropicToolUse(rt, { ...anthropicUse, input: [1] });
      expect(notObject).toEqual({
        type: 'tool_result',
        tool_use_id: anthropicUse.id,
        content: [
          { type: 'text', text: 'Error INVALID_ARGS: the input of "math__add" must be an object' },
        ],
        is_error: true,
      });
    } finally {
      await rt.close();
    }
  });
});

describe('OpenAI Responses API adapters', () => {
  const item = {
    type: 'function_call',
    id: 'fc_1',
    call_id: 'call_1',
    name: 'math__add',
    arguments: '{"a":2,"b":3}',
    status: 'completed',
  };

  it('a function_call item runs through execute and answers as a function_call_output', async () => {
    const rt = await createRuntime({ tools: [add], codeMode: false });
    try {
      const call = fromOpenAiFunctionCall(item);
      expect(call).toEqual({ name: 'math__add', args: { a: 2, b: 3 }, id: 'call_1' });
      expect(toOpenAiFunctionCallOutput('call_1', await rt.execute(call))).toEqual({
        type: 'function_call_output',
        call_id: 'call_1',
        output: JSON.stringify({ sum: 5 }, null, 2),
      });
      expect(await answerOpenAiFunctionCall(rt, { ...item, name: 'nope' })).toEqual({
        type: 'function_call_output',
        call_id: 'call_1',
        output: 'Error UNKNOWN_TOOL: unknown tool "nope" in scope "default"',
      });
    } finally {
      await rt.close();
    }
  });

  it('images go out as input_image parts (data URLs) next to input_text', () => {
    expect(toOpenAiFunctionCallOutput('c', imageResult).output).toEqual([
      { type: 'input_text', text: 'a chart' },
      { type: 'input_image', image_url: 'data:image/png;base64,iVBORw0KGgo=' },
      { type: 'input_image', image_url: 'data:image/svg+xml;base64,PHN2Zz4=' },
    ]);
  });

  it('malformed items are INVALID_ARGS errors', () => {
    const bad: unknown[] = [
      null,
      [],
      { ...item, type: 'message' },
      { ...item, type: undefined },
      { ...item, call_id: '' },
      { ...item, name: 3 },
      { ...item, arguments: '{' },
      { ...item, arguments: '"a"' },
      { ...item, arguments: { a: 1 } },
    ];
    for (const entry of bad)
      expect(thrownCode(() => fromOpenAiFunctionCall(entry))).toBe('INVALID_ARGS');
  });
});

describe('wire tools for the providers', () => {
  const bare = defineTool({
    name: 'ns.bare',
    description: 'No schema.',
    input: {},
    execute: () => 1,
  });
  const anyOf = defineTool({
    name: 'either',
    description: 'One of two.',
    input: {
      anyOf: [
        { type: 'object', required: ['a'] },
        { type: 'object', required: ['b'] },
      ],
    },
    execute: () => 1,
  });

  it('every provider input schema is an object schema; an object schema is kept as it is', async () => {
    const rt = await createRuntime({ tools: [add, bare, anyOf], codeMode: false });
    try {
      const schemas = rt.schemas();
      const byName = <T>(list: T[], name: (t: T) => string): Record<string, T> =>
        Object.fromEntries(list.map((t) => [name(t), t]));
      // A top-level union is flattened: neither variant's `required` holds in both.
      const params = { type: 'object' };
      expect(byName(toOpenAiTools(schemas), (t) => t.function.name)).toEqual({
        math__add: {
          type: 'function',
          function: { name: 'math__add', description: 'Adds.', parameters: add.input },
        },
        ns__bare: {
          type: 'function',
          function: { name: 'ns__bare', description: 'No schema.', parameters: { type: 'object' } },
        },
        either: {
          type: 'function',
          function: { name: 'either', description: 'One of two.', parameters: params },
        },
      });
      expect(byName(toAnthropicTools(schemas), (t) => t.name)).toEqual({
        math__add: { name: 'math__add', description: 'Adds.', input_schema: add.input },
        ns__bare: { name: 'ns__bare', description: 'No schema.', input_schema: { type: 'object' } },
        either: { name: 'either', description: 'One of two.', input_schema: params },
      });
      expect(byName(toOpenAiResponsesTools(schemas), (t) => t.name)).toEqual({
        math__add: {
          type: 'function',
          name: 'math__add',
          description: 'Adds.',
          parameters: add.input,
          strict: false,
        },
        ns__bare: {
          type: 'function',
          name: 'ns__bare',
          description: 'No schema.',
          parameters: { type: 'object' },
          strict: false,
        },
        either: {
          type: 'function',
          name: 'either',
          description: 'One of two.',
          parameters: params,
          strict: false,
        },
      });
      expect(rt.wireTools('openai-responses')).toEqual(toOpenAiResponsesTools(schemas));
      // MCP keeps the union (its clients take one) and adds the object type.
      expect(Object.fromEntries(rt.wireTools('mcp').map((t) => [t.name, t.inputSchema]))).toEqual({
        'math.add': add.input,
        'ns.bare': { type: 'object' },
        either: { ...anyOf.input, type: 'object' },
      });
      // A tool whose schema was shown with an added type still validates with its own schema.
      const r = await rt.execute(
        fromOpenAiFunctionCall({
          ...{ type: 'function_call', call_id: 'c', name: 'either', arguments: '{"c":1}' },
        }),
      );
      expect(r.ok ? 'ok' : r.error.code).toBe('INVALID_ARGS');
    } finally {
      await rt.close();
    }
  });
});

describe("a top-level union, intersection or enum on the providers' wires", () => {
  it("is one object schema with every variant's properties; what all variants require stays required", () => {
    const shape = {
      properties: { id: { type: 'string' } },
      required: ['id'],
      anyOf: [
        {
          type: 'object',
          properties: { url: { type: 'string' }, tag: { const: 'u' } },
          required: ['url', 'tag'],
        },
        {
          type: 'object',
          properties: { path: { type: 'string' }, tag: { const: 'p' } },
          required: ['path', 'tag'],
        },
      ],
      allOf: [{ properties: { force: { type: 'boolean' } }, required: ['force'] }],
      not: { required: ['both'] },
      $defs: { kept: { type: 'string' } },
    };
    expect(providerSchema(shape)).toEqual({
      type: 'object',
      properties: {
        id: { type: 'string' },
        force: { type: 'boolean' },
        url: { type: 'string' },
        tag: { const: 'u' },
        path: { type: 'string' },
      },
      required: ['id', 'force', 'tag'],
      $defs: { kept: { type: 'string' } },
    });
    for (const key of ['anyOf', 'oneOf', 'allOf', 'enum', 'const', 'not'])
      expect(providerSchema({ type: 'object', [key]: [] })).toEqual({ type: 'object' });
    // An object schema without those keywords is shown as it is.
    const plain = { type: 'object', properties: { a: { anyOf: [{ type: 'string' }] } } };
    expect(providerSchema(plain)).toBe(plain);
  });
});

describe('Anthropic image types', () => {
  it('a type the API takes is an image block; another one is described in text', () => {
    expect(toAnthropicToolResult('t', imageResult).content).toEqual([
      { type: 'text', text: 'a chart' },
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } },
      { type: 'text', text: '[image image/svg+xml, 8 base64 characters]' },
    ]);
  });
});
