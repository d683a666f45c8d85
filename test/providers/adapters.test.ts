import { describe, expect, it } from 'vitest';
import {
  createRuntime,
  defineTool,
  fromAnthropicToolUse,
  fromOpenAiToolCall,
  isIsocodeError,
  toAnthropicToolResult,
  toOpenAiToolMessage,
  type ToolResult,
} from '../../src/index.js';

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
  try {
    f();
  } catch (error) {
    return isIsocodeError(error) ? error.code : 'not an IsocodeError';
  }
  return undefined;
}

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
