/**
 * Agent loops through the official clients (`openai`: Chat Completions and Responses;
 * `@anthropic-ai/sdk`: Messages) against a scripted model API on 127.0.0.1: the SDK's own values go
 * into the adapters without narrowing or casts, the adapters' answers go back as the SDK sends them,
 * and the test reads what the model received.
 */
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  answerAnthropicToolUse,
  answerOpenAiFunctionCall,
  answerOpenAiToolCall,
  createRuntime,
  defineTool,
  type Runtime,
} from '../../src/index.js';
import { fakeModel, type FakeModel } from './fake-model.js';

const add = defineTool({
  name: 'math.add',
  description: 'Adds two numbers.',
  input: {
    type: 'object',
    properties: { a: { type: 'number' }, b: { type: 'number' } },
    required: ['a', 'b'],
  },
  isConcurrencySafe: true,
  execute: (args: { a: number; b: number }) => ({ sum: args.a + args.b }),
});

const WRONG = 'const n: number = "five";\nreturn n;';
const FIXED =
  'return await Promise.all([tools.math.add({ a: 1, b: 2 }), tools.math.add({ a: 3, b: 4 })]);';
const args = (code: string): string => JSON.stringify({ description: 'sums', code });

let rt: Runtime;
let model: FakeModel | undefined;
beforeAll(async () => {
  rt = await createRuntime({ tools: [add], scopes: { default: { mode: 'both' } }, codeMode: {} });
});
afterAll(async () => {
  await model?.close();
  await rt.close();
});

/** The text a request sent for each tool answer, by call id. */
function answers(
  body: Record<string, unknown>,
  key: string,
  pick: (m: Record<string, unknown>) => [id: unknown, text: unknown] | undefined,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const m of body[key] as Record<string, unknown>[]) {
    const entry = pick(m);
    if (entry) out[String(entry[0])] = entry[1];
  }
  return out;
}

describe('Chat Completions through the openai client', () => {
  it('function, run_code and custom tool calls; a type error corrected; Promise.all', async () => {
    const completion = (toolCalls: unknown[] | null, content: string | null = null): unknown => ({
      id: 'chatcmpl-1',
      object: 'chat.completion',
      created: 0,
      model: 'fake',
      choices: [
        {
          index: 0,
          finish_reason: toolCalls ? 'tool_calls' : 'stop',
          logprobs: null,
          message: {
            role: 'assistant',
            content,
            refusal: null,
            tool_calls: toolCalls ?? undefined,
          },
        },
      ],
    });
    model = await fakeModel([
      () =>
        completion([
          {
            id: 'c_add',
            type: 'function',
            function: { name: 'math__add', arguments: '{"a":2,"b":3}' },
          },
          {
            id: 'c_code',
            type: 'function',
            function: { name: 'run_code', arguments: args(WRONG) },
          },
          { id: 'c_custom', type: 'custom', custom: { name: 'grammar', input: 'free text' } },
        ]),
      () =>
        completion([
          {
            id: 'c_fixed',
            type: 'function',
            function: { name: 'run_code', arguments: args(FIXED) },
          },
        ]),
      () => completion(null, 'done'),
    ]);
    const client = new OpenAI({ apiKey: 'test', baseURL: `${model.url}/v1`, maxRetries: 0 });
    const messages: OpenAI.Chat.Completions.ChatCompletionMessageParam[] = [
      { role: 'user', content: 'sum things' },
    ];
    for (let step = 0; step < 5; step++) {
      const reply = await client.chat.completions.create({
        model: 'fake',
        messages,
        tools: rt.wireTools('openai'),
      });
      const message = reply.choices[0]?.message;
      if (!message) break;
      messages.push(message);
      if (!message.tool_calls?.length) break;
      for (const call of message.tool_calls) messages.push(await answerOpenAiToolCall(rt, call));
    }
    expect(model.requests).toHaveLength(3);
    const [first, second, third] = model.requests.map((r) => r.body);
    expect((first?.tools as { function: { name: string } }[]).map((t) => t.function.name)).toEqual([
      'run_code',
      'math__add',
    ]);
    const toolText = (m: Record<string, unknown>): [unknown, unknown] | undefined =>
      m.role === 'tool' ? [m.tool_call_id, m.content] : undefined;
    const turn1 = answers(second ?? {}, 'messages', toolText);
    expect(Object.keys(turn1)).toEqual(['c_add', 'c_code', 'c_custom']);
    expect(turn1.c_add).toBe(JSON.stringify({ sum: 5 }, null, 2));
    expect(turn1.c_code).toMatch(/^Error CODE_RUN_FAILED: typecheck/);
    expect(String(turn1.c_code).match(/Error /g)).toHaveLength(1);
    expect(turn1.c_custom).toBe(
      'Error INVALID_ARGS: the OpenAI tool call "grammar" is a custom tool call (free-form input); isocode tools are function tools with JSON arguments, so answer this call in your own loop',
    );
    const turn2 = answers(third ?? {}, 'messages', toolText);
    expect(JSON.parse(String(turn2.c_fixed))).toEqual([{ sum: 3 }, { sum: 7 }]);
  });
});

describe('the Responses API through the openai client', () => {
  it('function_call items in, function_call_output items out, a custom call answered', async () => {
    await model?.close();
    const response = (output: unknown[]): unknown => ({
      id: 'resp_1',
      object: 'response',
      created_at: 0,
      model: 'fake',
      status: 'completed',
      output,
      parallel_tool_calls: true,
      tool_choice: 'auto',
      tools: [],
    });
    const fnCall = (id: string, name: string, a: string): unknown => ({
      type: 'function_call',
      id: `fc_${id}`,
      call_id: id,
      name,
      arguments: a,
      status: 'completed',
    });
    model = await fakeModel([
      () =>
        response([
          { type: 'reasoning', id: 'rs_1', summary: [] },
          fnCall('c_add', 'math__add', '{"a":2,"b":3}'),
          fnCall('c_code', 'run_code', args(WRONG)),
          { type: 'custom_tool_call', call_id: 'c_custom', name: 'grammar', input: 'free text' },
        ]),
      () => response([fnCall('c_fixed', 'run_code', args(FIXED))]),
      () =>
        response([
          {
            type: 'message',
            id: 'm',
            role: 'assistant',
            status: 'completed',
            content: [{ type: 'output_text', text: 'done', annotations: [] }],
          },
        ]),
    ]);
    const client = new OpenAI({ apiKey: 'test', baseURL: `${model.url}/v1`, maxRetries: 0 });
    const input: OpenAI.Responses.ResponseInputItem[] = [{ role: 'user', content: 'sum things' }];
    for (let step = 0; step < 5; step++) {
      const reply = await client.responses.create({
        model: 'fake',
        input,
        tools: rt.wireTools('openai-responses'),
      });
      const calls = reply.output.filter(
        (item) => item.type === 'function_call' || item.type === 'custom_tool_call',
      );
      if (calls.length === 0) break;
      for (const item of calls) input.push(item, await answerOpenAiFunctionCall(rt, item));
    }
    expect(model.requests.map((r) => r.path)).toEqual([
      '/v1/responses',
      '/v1/responses',
      '/v1/responses',
    ]);
    const [first, second, third] = model.requests.map((r) => r.body);
    expect(first?.tools).toEqual([
      expect.objectContaining({ type: 'function', name: 'run_code', strict: false }),
      {
        type: 'function',
        name: 'math__add',
        description: 'Adds two numbers.',
        parameters: add.input,
        strict: false,
      },
    ]);
    const outputText = (m: Record<string, unknown>): [unknown, unknown] | undefined =>
      m.type === 'function_call_output' ? [m.call_id, m.output] : undefined;
    const turn1 = answers(second ?? {}, 'input', outputText);
    expect(Object.keys(turn1)).toEqual(['c_add', 'c_code', 'c_custom']);
    expect(turn1.c_add).toBe(JSON.stringify({ sum: 5 }, null, 2));
    expect(turn1.c_code).toMatch(/^Error CODE_RUN_FAILED: typecheck/);
    expect(String(turn1.c_code).match(/Error /g)).toHaveLength(1);
    expect(turn1.c_custom).toMatch(
      /^Error INVALID_ARGS: the OpenAI item "grammar" is a custom tool call/,
    );
    expect(JSON.parse(String(answers(third ?? {}, 'input', outputText).c_fixed))).toEqual([
      { sum: 3 },
      { sum: 7 },
    ]);
  });
});

describe('Anthropic Messages through the @anthropic-ai/sdk client', () => {
  it('tool_use blocks in, tool_result blocks out, is_error on failures', async () => {
    await model?.close();
    const message = (content: unknown[], stop: string): unknown => ({
      id: 'msg_1',
      type: 'message',
      role: 'assistant',
      model: 'fake',
      content,
      stop_reason: stop,
      stop_sequence: null,
      usage: { input_tokens: 1, output_tokens: 1 },
    });
    const use = (id: string, name: string, input: unknown): unknown => ({
      type: 'tool_use',
      id,
      name,
      input,
      caller: { type: 'direct' },
    });
    model = await fakeModel([
      () =>
        message(
          [
            { type: 'text', text: 'let me add', citations: null },
            use('t_add', 'math__add', { a: 2, b: 3 }),
            use('t_code', 'run_code', JSON.parse(args(WRONG)) as unknown),
            use('t_bad', 'math__add', 'a=2'),
          ],
          'tool_use',
        ),
      () => message([use('t_fixed', 'run_code', JSON.parse(args(FIXED)) as unknown)], 'tool_use'),
      () => message([{ type: 'text', text: 'done', citations: null }], 'end_turn'),
    ]);
    const client = new Anthropic({ apiKey: 'test', baseURL: model.url, maxRetries: 0 });
    const messages: Anthropic.MessageParam[] = [{ role: 'user', content: 'sum things' }];
    for (let step = 0; step < 5; step++) {
      const reply = await client.messages.create({
        model: 'fake',
        max_tokens: 1000,
        messages,
        tools: rt.wireTools('anthropic'),
      });
      messages.push({ role: 'assistant', content: reply.content });
      const results: Anthropic.ToolResultBlockParam[] = [];
      for (const block of reply.content)
        if (block.type === 'tool_use') results.push(await answerAnthropicToolUse(rt, block));
      if (results.length === 0) break;
      messages.push({ role: 'user', content: results });
    }
    expect(model.requests.map((r) => r.path)).toEqual([
      '/v1/messages',
      '/v1/messages',
      '/v1/messages',
    ]);
    const [first, second, third] = model.requests.map((r) => r.body);
    expect((first?.tools as { input_schema: unknown }[])[1]).toEqual({
      name: 'math__add',
      description: 'Adds two numbers.',
      input_schema: add.input,
    });
    const lastResults = (body: Record<string, unknown> | undefined): Record<string, unknown> => {
      const msgs = (body?.messages ?? []) as { content: unknown }[];
      const out: Record<string, unknown> = {};
      for (const b of msgs[msgs.length - 1]?.content as Record<string, unknown>[])
        out[String(b.tool_use_id)] = { content: b.content, is_error: b.is_error };
      return out;
    };
    const turn1 = lastResults(second);
    expect(turn1.t_add).toEqual({
      content: [{ type: 'text', text: JSON.stringify({ sum: 5 }, null, 2) }],
      is_error: false,
    });
    const code = turn1.t_code as { content: { text: string }[]; is_error: boolean };
    expect(code.is_error).toBe(true);
    expect(code.content).toHaveLength(1);
    expect(code.content[0]?.text).toMatch(/^Error CODE_RUN_FAILED: typecheck/);
    expect(turn1.t_bad).toEqual({
      content: [
        { type: 'text', text: 'Error INVALID_ARGS: the input of "math__add" must be an object' },
      ],
      is_error: true,
    });
    const fixed = lastResults(third).t_fixed as { content: { text: string }[] };
    expect(JSON.parse(fixed.content[0]?.text ?? '')).toEqual([{ sum: 3 }, { sum: 7 }]);
  });
});
