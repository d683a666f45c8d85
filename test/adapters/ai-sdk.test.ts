/**
 * The AI SDK adapter against the real `ai` package, driven by its own MockLanguageModelV4: the
 * model's first program has a type error, it reads the error from the tool result and sends a
 * corrected `Promise.all` program, then answers from the result. AI SDK tools go in (zod, JSON
 * Schema, needsApproval), run_code comes out (generateText and streamText with preliminary results).
 */
import {
  generateText,
  isStepCount,
  jsonSchema,
  simulateReadableStream,
  streamText,
  tool,
} from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import * as zm from 'zod/mini';
import { fromAiSdkTools, runCodeTool, toAiSdkTools } from '../../src/adapters/ai-sdk.js';
import { createRuntime, type ApprovalRequest, type Runtime } from '../../src/index.js';

type CallOptions = Parameters<MockLanguageModelV4['doGenerate']>[0];
type Content = Awaited<ReturnType<MockLanguageModelV4['doGenerate']>>['content'];
type StreamPart =
  Awaited<ReturnType<MockLanguageModelV4['doStream']>>['stream'] extends ReadableStream<infer P>
    ? P
    : never;

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: 1, reasoning: undefined },
};

/** The text of the last tool result the model was sent, and whether it was an error. */
function lastToolResult(
  prompt: CallOptions['prompt'],
): { text: string; error: boolean } | undefined {
  for (const message of [...prompt].reverse()) {
    if (message.role !== 'tool') continue;
    for (const part of message.content) {
      if (part.type !== 'tool-result') continue;
      const out = part.output;
      if (out.type === 'text' || out.type === 'error-text')
        return { text: out.value, error: out.type === 'error-text' };
      return { text: JSON.stringify(out), error: false };
    }
  }
  return undefined;
}

const BROKEN = `const t: string = await tools.weather.forecast({ city: 'Oslo' });\nreturn t;`;
const FIXED = `const cities = ['Oslo', 'Lisbon', 'Nairobi'];
const all = await Promise.all(cities.map((city) => tools.weather.forecast({ city })));
console.log('checked', all.length);
const units = await tools.weather.units({ system: 'metric' });
return all.sort((a, b) => b.celsius - a.celsius)[0]!.city + ' ' + units.symbol;`;

/** A scripted model that reacts to what it reads: a broken program, the fix after an error, then text. */
function script(seen: string[]): (options: CallOptions) => Content {
  return ({ prompt }) => {
    const last = lastToolResult(prompt);
    if (last === undefined) return [runCode('c1', BROKEN)];
    seen.push(last.text);
    if (last.error) return [runCode('c2', FIXED)];
    return [{ type: 'text', text: `answer: ${last.text}` }];
  };
}

function runCode(id: string, code: string): Content[number] {
  return {
    type: 'tool-call',
    toolCallId: id,
    toolName: 'run_code',
    input: JSON.stringify({ description: 'warmest city', code }),
  };
}

const forecast = tool({
  description: 'Current temperature of a city, in °C.',
  inputSchema: z.object({ city: z.string() }),
  outputSchema: z.object({ city: z.string(), celsius: z.number() }),
  execute: ({ city }) => Promise.resolve({ city, celsius: city.length * 3 }),
});
const units = tool({
  description: 'The unit symbol of a measurement system.',
  inputSchema: jsonSchema<{ system: 'metric' | 'imperial' }>({
    type: 'object',
    properties: { system: { type: 'string', enum: ['metric', 'imperial'] } },
    required: ['system'],
    additionalProperties: false,
  }),
  outputSchema: z.object({ symbol: z.string() }),
  execute: ({ system }) => ({ symbol: system === 'metric' ? '°C' : '°F' }),
});

let runtime: Runtime | undefined;
afterEach(async () => {
  await runtime?.close();
  runtime = undefined;
});

async function weatherRuntime(approver?: (r: ApprovalRequest) => 'allowed-once' | 'rejected') {
  const imported = await fromAiSdkTools({ forecast, units }, { namespace: 'weather' });
  runtime = await createRuntime({
    ...imported,
    scopes: { default: { mode: 'code' } },
    ...(approver === undefined ? {} : { approver }),
  });
  return runtime;
}

describe('AI SDK adapter (ai v7, MockLanguageModelV4)', () => {
  it('imports a ToolSet: bindings typed from zod and JSON Schema, validated, run', async () => {
    const rt = await weatherRuntime();
    const sdk = rt.sdk().text;
    expect(sdk).toContain('forecast');
    expect(sdk).toContain('"metric" | "imperial"');
    const bad = await rt.execute({
      name: 'run_code',
      args: {
        description: 'x',
        code: `return await tools.weather.units({ system: 'kelvin' as never });`,
      },
    });
    expect(bad.ok).toBe(false);
    expect(bad.ok ? '' : JSON.stringify(bad.error)).toMatch(/INVALID_ARGS|system/);
  }, 60_000);

  it('generateText: a type error, read and corrected, then a Promise.all program', async () => {
    const rt = await weatherRuntime();
    const seen: string[] = [];
    const reply = script(seen);
    const model = new MockLanguageModelV4({
      doGenerate: (options) =>
        Promise.resolve({
          content: reply(options),
          finishReason: { unified: 'stop', raw: undefined },
          usage,
          warnings: [],
        }),
    });
    const result = await generateText({
      model,
      tools: toAiSdkTools(rt),
      stopWhen: isStepCount(5),
      prompt: 'Which city is warmest?',
    });
    expect(model.doGenerateCalls).toHaveLength(3);
    // The model saw one tool, run_code, whose description carries the SDK.
    const offered = model.doGenerateCalls[0]?.tools?.map((t) => t.name);
    expect(offered).toEqual(['run_code']);
    expect(JSON.stringify(model.doGenerateCalls[0]?.tools)).toContain(
      'forecast(input: { city: string }): Promise<{ city: string; celsius: number }>',
    );
    // First program: the type error, in the text the model read.
    expect(seen[0]).toMatch(/typecheck/);
    expect(seen[0]).toMatch(/not assignable to type 'string'/);
    // Second: the Promise.all program ran (three nested calls and one more).
    expect(seen[1]).toContain('Nairobi °C');
    expect(seen[1]).toContain('checked 3');
    expect(result.text).toContain('Nairobi °C');
    const [first, second] = result.steps.map((s): unknown => s.toolResults[0]?.output);
    expect(first).toMatchObject({ status: 'done', ok: false, code: 'CODE_RUN_FAILED' });
    expect(second).toMatchObject({ status: 'done', ok: true, value: { result: 'Nairobi °C' } });
  }, 90_000);

  it('streamText: run_code streams its progress as preliminary tool results', async () => {
    const rt = await weatherRuntime();
    const seen: string[] = [];
    const reply = script(seen);
    const model = new MockLanguageModelV4({
      doStream: (options) => {
        const parts: StreamPart[] = reply(options).flatMap((part): StreamPart[] =>
          part.type === 'text'
            ? [
                { type: 'text-start', id: 't' },
                { type: 'text-delta', id: 't', delta: part.text },
                { type: 'text-end', id: 't' },
              ]
            : part.type === 'tool-call'
              ? [part]
              : [],
        );
        parts.push({ type: 'finish', finishReason: { unified: 'stop', raw: undefined }, usage });
        return Promise.resolve({ stream: simulateReadableStream({ chunks: parts }) });
      },
    });
    const stream = streamText({
      model,
      tools: { run_code: runCodeTool(rt) },
      stopWhen: isStepCount(5),
      prompt: 'Which city is warmest?',
    });
    const preliminary: unknown[] = [];
    for await (const part of stream.fullStream) {
      if (part.type === 'tool-result' && part.preliminary === true) preliminary.push(part.output);
    }
    expect(await stream.text).toContain('Nairobi °C');
    expect(preliminary).toContainEqual({
      status: 'running',
      event: { type: 'log', level: 'log', text: 'checked 3' },
    });
    expect(preliminary).toContainEqual({
      status: 'running',
      event: expect.objectContaining({
        type: 'call-start',
        name: 'weather.forecast',
        args: { city: 'Oslo' },
        seq: 1,
      }) as unknown,
    });
  }, 90_000);

  it("a tool's needsApproval asks isocode's approver for the nested call", async () => {
    const asked: ApprovalRequest[] = [];
    const send = tool({
      description: 'Sends a message.',
      inputSchema: z.object({ to: z.string() }),
      outputSchema: z.object({ sent: z.string() }),
      needsApproval: ({ to }) => Promise.resolve(to !== 'me'),
      execute: ({ to }) => ({ sent: to }),
    });
    const imported = await fromAiSdkTools({ send }, { namespace: 'mail' });
    runtime = await createRuntime({
      ...imported,
      scopes: { default: { mode: 'code' } },
      approver: (request) => {
        asked.push(request);
        return request.args !== null && JSON.stringify(request.args).includes('boss')
          ? 'rejected'
          : 'allowed-once';
      },
    });
    const out = await runtime.execute({
      name: 'run_code',
      args: {
        description: 'send',
        code: `const a = await tools.mail.send({ to: 'me' });
const b = await tools.mail.send({ to: 'ann' });
let c = 'sent';
try { await tools.mail.send({ to: 'boss' }); } catch (e) { c = (e as Error).message; }
return [a.sent, b.sent, c];`,
      },
    });
    expect(out.ok).toBe(true);
    expect(asked.map((r) => r.args)).toEqual([{ to: 'ann' }, { to: 'boss' }]);
    expect(asked[0]?.messages[0]).toContain('mail.send needs approval');
    const value = out.ok ? (out.value as { result: string[] }).result : [];
    expect(value.slice(0, 2)).toEqual(['me', 'ann']);
    expect(value[2]).toMatch(/DENIED|denied|rejected/);
  }, 60_000);

  it('needsApproval on run_code stops the step with the AI SDK approval request', async () => {
    const rt = await weatherRuntime();
    const model = new MockLanguageModelV4({
      doGenerate: {
        content: [runCode('c9', FIXED)],
        finishReason: { unified: 'tool-calls', raw: undefined },
        usage,
        warnings: [],
      },
    });
    const result = await generateText({
      model,
      tools: toAiSdkTools(rt, { needsApproval: true }),
      stopWhen: isStepCount(3),
      prompt: 'go',
    });
    expect(result.content.some((p) => p.type === 'tool-approval-request')).toBe(true);
    expect(result.toolResults).toEqual([]);
    expect(rt.stats().liveRuns).toBe(0);
  }, 60_000);

  it("AI SDK 7's toolApproval for run_code holds the program until the approval response", async () => {
    const rt = await weatherRuntime();
    const seen: string[] = [];
    const reply = script(seen);
    const model = new MockLanguageModelV4({
      doGenerate: (options) =>
        Promise.resolve({
          content:
            lastToolResult(options.prompt) === undefined ? [runCode('c7', FIXED)] : reply(options),
          finishReason: { unified: 'stop', raw: undefined },
          usage,
          warnings: [],
        }),
    });
    const tools = toAiSdkTools(rt);
    const first = await generateText({
      model,
      tools,
      toolApproval: { run_code: 'user-approval' },
      stopWhen: isStepCount(3),
      prompt: 'go',
    });
    const request = first.content.find((p) => p.type === 'tool-approval-request');
    expect(request).toBeDefined();
    expect(seen).toEqual([]);
    const second = await generateText({
      model,
      tools,
      toolApproval: { run_code: 'user-approval' },
      stopWhen: isStepCount(3),
      messages: [
        { role: 'user', content: 'go' },
        ...first.responseMessages,
        {
          role: 'tool',
          content: [
            { type: 'tool-approval-response', approvalId: request!.approvalId, approved: true },
          ],
        },
      ],
    });
    expect(seen[0]).toContain('Nairobi °C');
    expect(second.text).toContain('Nairobi °C');
  }, 60_000);

  it('zod mini inputs go through the AI SDK schema; a non-JSON result fails only its call', async () => {
    const echo = tool({
      description: 'Echoes a number, doubled.',
      inputSchema: zm.object({ n: zm.number() }),
      execute: ({ n }) => ({ twice: n * 2 }),
    });
    const bad = tool({
      description: 'Returns something that is not JSON.',
      inputSchema: z.object({}),
      execute: () => ({ when: 1n }),
    });
    runtime = await createRuntime({
      ...(await fromAiSdkTools({ echo, bad }, { namespace: 'm' })),
      scopes: { default: { mode: 'code' } },
    });
    expect(runtime.sdk().text).toContain('echo(input: { n: number })');
    const out = await runtime.execute({
      name: 'run_code',
      args: {
        description: 'x',
        code: `const a = await tools.m.echo({ n: 21 });
let b = 'ok';
try { await tools.m.bad({}); } catch (e) { b = (e as ToolCallError).code; }
let c = 'ok';
try { await tools.m.echo({ n: 'x' as unknown as number }); } catch (e) { c = (e as ToolCallError).code; }
return { a, b, c };`,
      },
    });
    expect(out.ok ? out.value : out.error).toMatchObject({
      result: { a: { twice: 42 }, b: 'INVALID_TOOL_OUTPUT', c: 'INVALID_ARGS' },
    });
  }, 60_000);

  it("in 'both' mode the native tools come out too, under their wire names", async () => {
    runtime = await createRuntime({
      ...(await fromAiSdkTools({ forecast }, { namespace: 'weather' })),
      scopes: { default: { mode: 'both' } },
    });
    const tools = toAiSdkTools(runtime);
    expect(Object.keys(tools)).toEqual(['run_code', 'weather__forecast']);
    const out: unknown = await tools.weather__forecast?.execute?.(
      { city: 'Rome' },
      { toolCallId: 'x', messages: [], context: undefined },
    );
    expect(out).toMatchObject({ status: 'done', ok: true, value: { city: 'Rome', celsius: 12 } });
    expect(() => runCodeTool(runtime!, { scope: 'nowhere' })).toThrow(
      expect.objectContaining({
        code: expect.stringMatching(/UNKNOWN_TOOL|INVALID_SCOPE/) as unknown,
      }),
    );
  }, 60_000);

  it('refuses tools that cannot run in a program, and names that do not fit', async () => {
    const clientSide = tool({
      description: 'Asks the user.',
      inputSchema: z.object({}),
      outputSchema: z.object({ answer: z.string() }),
    });
    await expect(fromAiSdkTools({ ask: clientSide })).rejects.toMatchObject({
      code: 'INVALID_TOOL_DEFINITION',
    });
    await expect(fromAiSdkTools({ 'bad name': forecast })).rejects.toMatchObject({
      code: 'INVALID_TOOL_DEFINITION',
    });
  });
});
