/**
 * The LangChain.js adapter against the real `@langchain/core`, driven by its FakeChatModel (here
 * answering from the messages it is sent): the model's first program has a type error, it reads
 * the error from the ToolMessage and sends a corrected `Promise.all` program, then answers.
 * StructuredTools go in (zod, JSON Schema, approvals through isocode's approver), run_code comes
 * out as a StructuredTool streaming its progress as tool events.
 */
import { AIMessage, HumanMessage, type BaseMessage, ToolMessage } from '@langchain/core/messages';
import type { ChatResult } from '@langchain/core/outputs';
import { DynamicStructuredTool, tool, type StructuredToolInterface } from '@langchain/core/tools';
import { convertToOpenAITool } from '@langchain/core/utils/function_calling';
import type { JsonSchema7Type } from '@langchain/core/utils/json_schema';
import { FakeChatModel } from '@langchain/core/utils/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  fromLangChainTools,
  runCodeTool,
  toLangChainTools,
  type ProgressEventData,
} from '../../src/adapters/langchain.js';
import { createRuntime, type ApprovalRequest, type Runtime } from '../../src/index.js';

/** LangChain's FakeChatModel, answering from the last ToolMessage it reads. */
class ScriptedChatModel extends FakeChatModel {
  readonly boundTools: unknown[] = [];
  readonly received: BaseMessage[][] = [];
  #reply: (last: ToolMessage | undefined) => AIMessage;

  constructor(reply: (last: ToolMessage | undefined) => AIMessage) {
    super({});
    this.#reply = reply;
  }

  override bindTools(tools: StructuredToolInterface[]): this {
    this.boundTools.push(...tools.map((t) => convertToOpenAITool(t)));
    return this;
  }

  override _generate(messages: BaseMessage[]): Promise<ChatResult> {
    this.received.push(messages);
    const last = [...messages].reverse().find((m): m is ToolMessage => ToolMessage.isInstance(m));
    const message = this.#reply(last);
    return Promise.resolve({ generations: [{ text: '', message }] });
  }
}

const BROKEN = `const t: boolean = (await tools.weather.forecast({ city: 'Oslo' })).celsius;\nreturn t;`;
const FIXED = `const cities = ['Oslo', 'Lisbon', 'Nairobi'];
const all = await Promise.all(cities.map((city) => tools.weather.forecast({ city })));
console.log('checked', all.length);
const unit = await tools.weather.units({ system: 'metric' });
return { city: all.sort((a, b) => b.celsius - a.celsius)[0]!.city, unit };`;

const callRunCode = (id: string, code: string): AIMessage =>
  new AIMessage({
    content: '',
    tool_calls: [{ id, name: 'run_code', args: { description: 'warmest city', code } }],
  });

const forecast = tool(({ city }) => ({ city, celsius: city.length * 3 }), {
  name: 'forecast',
  description: 'Current temperature of a city, in °C.',
  schema: z.object({ city: z.string() }),
});
// A JSON Schema tool, as MCP adapters and hand-written tools build them.
const units = new DynamicStructuredTool<JsonSchema7Type>({
  name: 'units',
  description: 'The unit symbol of a measurement system.',
  schema: {
    type: 'object',
    properties: { system: { type: 'string', enum: ['metric', 'imperial'] } },
    required: ['system'],
  },
  func: (input) =>
    Promise.resolve({ symbol: (input as { system?: string }).system === 'metric' ? '°C' : '°F' }),
});

let runtime: Runtime | undefined;
afterEach(async () => {
  await runtime?.close();
  runtime = undefined;
});

/** The usual LangChain core loop: invoke the bound model, answer its tool calls, repeat. */
async function loop(
  model: ScriptedChatModel,
  tools: StructuredToolInterface[],
  onToolEvent?: (chunk: unknown) => void,
): Promise<BaseMessage[]> {
  const byName = new Map(tools.map((t) => [t.name, t]));
  const bound = model.bindTools(tools);
  const messages: BaseMessage[] = [new HumanMessage('Which city is warmest?')];
  for (let turn = 0; turn < 5; turn++) {
    const ai = await bound.invoke(messages);
    messages.push(ai);
    const calls = ai.tool_calls ?? [];
    if (calls.length === 0) break;
    for (const call of calls) {
      const answer: unknown = await byName.get(call.name)?.invoke(
        { ...call, type: 'tool_call' },
        {
          callbacks: [{ handleToolEvent: (chunk: unknown) => onToolEvent?.(chunk) }],
        },
      );
      if (!ToolMessage.isInstance(answer)) throw new Error('expected a ToolMessage');
      messages.push(answer);
    }
  }
  return messages;
}

describe('LangChain adapter (@langchain/core, FakeChatModel)', () => {
  it('a whole loop: type error read and corrected, then a Promise.all program', async () => {
    runtime = await createRuntime({
      ...fromLangChainTools([forecast, units], {
        namespace: 'weather',
        outputs: { forecast: z.object({ city: z.string(), celsius: z.number() }) },
      }),
      scopes: { default: { mode: 'code' } },
    });
    const seen: string[] = [];
    const model = new ScriptedChatModel((last) => {
      if (last === undefined) return callRunCode('c1', BROKEN);
      const text = typeof last.content === 'string' ? last.content : JSON.stringify(last.content);
      seen.push(text);
      if (text.startsWith('Error')) return callRunCode('c2', FIXED);
      return new AIMessage(`warmest: ${text}`);
    });
    const events: unknown[] = [];
    const messages = await loop(model, toLangChainTools(runtime), (chunk) => events.push(chunk));
    expect(model.received).toHaveLength(3);
    expect(
      model.boundTools.map((t) => (t as { function: { name: string } }).function.name),
    ).toEqual(['run_code']);
    expect(JSON.stringify(model.boundTools)).toContain(
      'units(input: { system: \\"metric\\" | \\"imperial\\" }): Promise<JsonValue>',
    );
    expect(seen[0]).toMatch(/^Error CODE_RUN_FAILED/);
    expect(seen[0]).toContain("Type 'number' is not assignable to type 'boolean'");
    expect(seen[1]).toContain('Nairobi');
    expect(seen[1]).toContain('°C');
    expect(seen[1]).toContain('checked 3');
    const answer = messages.at(-1);
    expect(answer?.content).toContain('warmest:');
    expect(answer?.content).toContain('Nairobi');
    // run_code streamed its progress as LangChain tool events.
    expect(events).toContainEqual({
      toolCallId: 'c2',
      event: { type: 'log', level: 'log', text: 'checked 3' },
    } satisfies ProgressEventData);
    expect(events.filter((e) => (e as ProgressEventData).event.type === 'call-end')).toHaveLength(
      4,
    );
  }, 90_000);

  it('approvals of imported tools go to isocode’s approver', async () => {
    const asked: ApprovalRequest[] = [];
    const send = tool(({ to }) => ({ sent: to }), {
      name: 'send',
      description: 'Sends a message.',
      schema: z.object({ to: z.string() }),
    });
    runtime = await createRuntime({
      ...fromLangChainTools([send], {
        namespace: 'mail',
        needsApproval: { send: (args) => JSON.stringify(args) !== '{"to":"me"}' },
      }),
      scopes: { default: { mode: 'code' } },
      approver: (request) => {
        asked.push(request);
        return JSON.stringify(request.args).includes('boss') ? 'rejected' : 'allowed-once';
      },
    });
    const run = runCodeTool(runtime);
    const text = await run.invoke({
      description: 'send',
      code: `const out: string[] = [];
for (const to of ['me', 'ann', 'boss']) {
  try { out.push(JSON.stringify(await tools.mail.send({ to }))); } catch (e) { out.push((e as Error).message); }
}
return out;`,
    });
    expect(asked.map((r) => r.args)).toEqual([{ to: 'ann' }, { to: 'boss' }]);
    expect(text).toContain('\\"sent\\":\\"me\\"');
    expect(text).toContain('\\"sent\\":\\"ann\\"');
    expect(text).toMatch(/denied|rejected/i);
  }, 60_000);

  it('run_code itself is gated by a preExecute ask, resolved by the approver given to the tool', async () => {
    runtime = await createRuntime({
      ...fromLangChainTools([forecast], { namespace: 'weather' }),
      scopes: { default: { mode: 'code' } },
      hooks: {
        preExecute: ({ tool: t }) => (t.name === 'run_code' ? { action: 'ask' } : undefined),
      },
    });
    const asked: string[] = [];
    const run = runCodeTool(runtime, {
      approver: (request) => {
        asked.push(request.name);
        return 'rejected';
      },
    });
    const text = await run.invoke({ description: 'x', code: 'return 1;' });
    expect(asked).toEqual(['run_code']);
    expect(text).toMatch(/^Error DENIED/);
  }, 60_000);

  it('refuses names that do not fit', () => {
    expect(() => fromLangChainTools([forecast], { namespace: 'bad space' })).toThrow(
      expect.objectContaining({ code: 'INVALID_TOOL_DEFINITION' }),
    );
  });
});
