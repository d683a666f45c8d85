/**
 * The OpenAI Agents SDK adapter against the real `@openai/agents`, driven by a fake `Model` (the
 * SDK's own seam for models; no request leaves the process): the model's first program has a
 * type error, it reads the error from the function call result and sends a corrected
 * `Promise.all` program, then answers. Function tools go in (zod, needsApproval), run_code comes
 * out as a function tool whose approval is the SDK's interruption.
 */
import {
  Agent,
  run,
  setTracingDisabled,
  tool,
  Usage,
  type Model,
  type ModelRequest,
  type ModelResponse,
} from '@openai/agents';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { fromAgentsTools, runCodeTool, toAgentsTools } from '../../src/adapters/openai-agents.js';
import { createRuntime, type ApprovalRequest, type Runtime } from '../../src/index.js';

beforeAll(() => setTracingDisabled(true));

type Reply = { call: { id: string; code: string } } | { text: string };

/** A fake model: each turn reads the request and answers with a function call or text. */
class ScriptedModel implements Model {
  readonly requests: ModelRequest[] = [];
  constructor(private readonly reply: (lastResult: string | undefined) => Reply) {}

  getResponse(request: ModelRequest): Promise<ModelResponse> {
    this.requests.push(request);
    const r = this.reply(lastResult(request));
    const output: ModelResponse['output'] =
      'call' in r
        ? [
            {
              type: 'function_call',
              callId: r.call.id,
              name: 'run_code',
              status: 'completed',
              arguments: JSON.stringify({ description: 'warmest city', code: r.call.code }),
            },
          ]
        : [
            {
              type: 'message',
              role: 'assistant',
              status: 'completed',
              content: [{ type: 'output_text', text: r.text }],
            },
          ];
    return Promise.resolve({ usage: new Usage(), output });
  }

  getStreamedResponse(): AsyncIterable<never> {
    throw new Error('not used');
  }
}

function lastResult(request: ModelRequest): string | undefined {
  if (typeof request.input === 'string') return undefined;
  for (const item of [...request.input].reverse()) {
    if (item.type !== 'function_call_result') continue;
    const out = item.output;
    if (typeof out === 'string') return out;
    return 'text' in out && typeof out.text === 'string' ? out.text : JSON.stringify(out);
  }
  return undefined;
}

const BROKEN = `const t: number = (await tools.weather.forecast({ city: 'Oslo' })).city;\nreturn t;`;
const FIXED = `const cities = ['Oslo', 'Lisbon', 'Nairobi'];
const all = await Promise.all(cities.map((city) => tools.weather.forecast({ city })));
console.log('checked', all.length);
return all.sort((a, b) => b.celsius - a.celsius)[0]!.city;`;

const forecast = tool({
  name: 'forecast',
  description: 'Current temperature of a city, in °C.',
  parameters: z.object({ city: z.string() }),
  outputSchema: z.object({ city: z.string(), celsius: z.number() }),
  execute: ({ city }) => ({ city, celsius: city.length * 3 }),
});

let runtime: Runtime | undefined;
afterEach(async () => {
  await runtime?.close();
  runtime = undefined;
});

async function weatherRuntime(): Promise<Runtime> {
  runtime = await createRuntime({
    ...fromAgentsTools([forecast], { namespace: 'weather' }),
    scopes: { default: { mode: 'code' } },
  });
  return runtime;
}

/** Reads what it is sent: a broken program first, the fix after an error, then the answer. */
function reacting(seen: string[]): (last: string | undefined) => Reply {
  return (last) => {
    if (last === undefined) return { call: { id: 'c1', code: BROKEN } };
    seen.push(last);
    if (last.startsWith('Error')) return { call: { id: 'c2', code: FIXED } };
    return { text: `warmest: ${last}` };
  };
}

describe('OpenAI Agents SDK adapter (@openai/agents, fake Model)', () => {
  it('a whole run: type error read and corrected, then a Promise.all program', async () => {
    const rt = await weatherRuntime();
    const seen: string[] = [];
    const model = new ScriptedModel(reacting(seen));
    const agent = new Agent({
      name: 'weather',
      instructions: 'Use run_code.',
      model,
      tools: toAgentsTools(rt),
    });
    const result = await run(agent, 'Which city is warmest?', { maxTurns: 5 });
    expect(model.requests).toHaveLength(3);
    const offered = model.requests[0]?.tools.map((t) => t.name);
    expect(offered).toEqual(['run_code']);
    expect(JSON.stringify(model.requests[0]?.tools)).toContain(
      'forecast(input: { city: string }): Promise<{ city: string; celsius: number }>',
    );
    expect(seen[0]).toMatch(/^Error CODE_RUN_FAILED/);
    expect(seen[0]).toContain("Type 'string' is not assignable to type 'number'");
    expect(seen[1]).toContain('Nairobi');
    expect(seen[1]).toContain('checked 3');
    expect(result.finalOutput).toContain('warmest:');
    expect(result.finalOutput).toContain('Nairobi');
  }, 90_000);

  it('needsApproval on run_code interrupts the run; approving resumes it from its state', async () => {
    const rt = await weatherRuntime();
    const seen: string[] = [];
    const model = new ScriptedModel((last) => {
      if (last === undefined) return { call: { id: 'c1', code: FIXED } };
      seen.push(last);
      return { text: `warmest: ${last}` };
    });
    const agent = new Agent({
      name: 'weather',
      model,
      tools: [runCodeTool(rt, { needsApproval: ({ code }) => code.includes('forecast') })],
    });
    const first = await run(agent, 'Which city is warmest?', { maxTurns: 5 });
    expect(first.interruptions).toHaveLength(1);
    expect(first.interruptions[0]?.name).toBe('run_code');
    expect(seen).toEqual([]); // nothing ran before the approval
    first.state.approve(first.interruptions[0]!);
    const second = await run(agent, first.state, { maxTurns: 5 });
    expect(second.interruptions ?? []).toHaveLength(0);
    expect(seen[0]).toContain('Nairobi');
    expect(second.finalOutput).toContain('Nairobi');
  }, 90_000);

  it("a function tool's needsApproval asks isocode's approver for the nested call", async () => {
    const asked: ApprovalRequest[] = [];
    const send = tool({
      name: 'send',
      description: 'Sends a message.',
      parameters: z.object({ to: z.string() }),
      outputSchema: z.object({ sent: z.string() }),
      needsApproval: (_ctx, { to }) => Promise.resolve(to !== 'me'),
      execute: ({ to }) => ({ sent: to }),
    });
    runtime = await createRuntime({
      ...fromAgentsTools([send], { namespace: 'mail' }),
      scopes: { default: { mode: 'code' } },
      approver: (request) => {
        asked.push(request);
        return JSON.stringify(request.args).includes('boss') ? 'rejected' : 'allowed-once';
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
    const value = out.ok ? (out.value as { result: string[] }).result : [];
    expect(value.slice(0, 2)).toEqual(['me', 'ann']);
    expect(value[2]).toMatch(/denied|rejected/i);
  }, 60_000);

  it('a throwing tool fails the nested call when it has an output schema, else reads as text', async () => {
    const strictFail = tool({
      name: 'strict_fail',
      description: 'Fails.',
      parameters: z.object({}),
      outputSchema: z.object({ ok: z.boolean() }),
      execute: () => {
        throw new Error('boom');
      },
    });
    const looseFail = tool({
      name: 'loose_fail',
      description: 'Fails.',
      parameters: z.object({}),
      execute: () => {
        throw new Error('boom');
      },
    });
    runtime = await createRuntime({
      ...fromAgentsTools([strictFail, looseFail], { namespace: 'f' }),
      scopes: { default: { mode: 'code' } },
    });
    const out = await runtime.execute({
      name: 'run_code',
      args: {
        description: 'fail',
        code: `let strict = 'ran';
try { await tools.f.strict_fail({}); } catch (e) { strict = (e as ToolCallError).code; }
const loose = await tools.f.loose_fail({});
return { strict, loose };`,
      },
    });
    expect(out.ok).toBe(true);
    const value = out.ok
      ? (out.value as { result: { strict: string; loose: unknown } }).result
      : undefined;
    expect(value?.strict).toBe('TOOL_ERROR');
    expect(String(value?.loose)).toContain('An error occurred while running the tool');
  }, 60_000);

  it('refuses hosted tools and names that do not fit', () => {
    expect(() => fromAgentsTools([{ type: 'hosted_tool', name: 'web_search' }])).toThrow(
      expect.objectContaining({ code: 'INVALID_TOOL_DEFINITION' }),
    );
    expect(() => fromAgentsTools([forecast], { namespace: 'bad space' })).toThrow(
      expect.objectContaining({ code: 'INVALID_TOOL_DEFINITION' }),
    );
  });
});
