// isocode with the OpenAI Agents SDK (`npm install isocode @openai/agents zod`): your function
// tools become a typed SDK for programs, and the agent gets one function tool, run_code.
// Run it (with tsx installed: npm install tsx): node --no-node-snapshot --import tsx examples/adapters/openai-agents.ts
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
import { createRuntime } from 'isocode';
import { fromAgentsTools, runCodeTool } from 'isocode/openai-agents';
import { z } from 'zod';

setTracingDisabled(true); // this example talks to no API

// 1. Function tools as you already write them for the Agents SDK.
const forecast = tool({
  name: 'forecast',
  description: 'Current temperature of a city, in °C.',
  parameters: z.object({ city: z.string() }),
  outputSchema: z.object({ city: z.string(), celsius: z.number() }),
  execute: ({ city }) => ({ city, celsius: city.length * 3 }),
});

// 2. They become isocode tools (`tools.weather.forecast` in programs).
const runtime = await createRuntime({
  ...fromAgentsTools([forecast], { namespace: 'weather' }),
  scopes: { default: { mode: 'code' } },
});

// 3. A scripted stand-in for a real model (leave `model` out to use OpenAI's): one program, then
//    an answer from its result.
const program = `const temps = await Promise.all(
  ['Oslo', 'Lisbon', 'Nairobi'].map((city) => tools.weather.forecast({ city })));
return temps.sort((a, b) => b.celsius - a.celsius)[0]!.city;`;
const model: Model = {
  getResponse(request: ModelRequest): Promise<ModelResponse> {
    const items = typeof request.input === 'string' ? [] : request.input;
    const result = items.find((i) => i.type === 'function_call_result');
    const text =
      typeof result?.output === 'object' && 'text' in result.output ? result.output.text : '';
    const output: ModelResponse['output'] = result
      ? [
          {
            type: 'message',
            role: 'assistant',
            status: 'completed',
            content: [{ type: 'output_text', text: `Warmest: ${text}` }],
          },
        ]
      : [
          {
            type: 'function_call',
            callId: 'call-1',
            name: 'run_code',
            status: 'completed',
            arguments: JSON.stringify({ description: 'warmest city', code: program }),
          },
        ];
    return Promise.resolve({ usage: new Usage(), output });
  },
  getStreamedResponse: () => {
    throw new Error('not used here');
  },
};

// 4. run_code as a function tool; `needsApproval` makes the run stop with an interruption first.
const agent = new Agent({
  name: 'weather',
  model,
  tools: [runCodeTool(runtime, { needsApproval: true })],
});
let result = await run(agent, 'Which of Oslo, Lisbon and Nairobi is warmest?');
for (const interruption of result.interruptions) {
  console.log('approve?', interruption.name); // approve? run_code
  result.state.approve(interruption);
}
result = await run(agent, result.state);
console.log(result.finalOutput); // Warmest: Nairobi
await runtime.close();
