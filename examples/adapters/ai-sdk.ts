// isocode with the Vercel AI SDK (`npm install isocode ai zod`): your AI SDK tools become a typed
// SDK for programs, and the model gets one tool, run_code, in `generateText` / `streamText`.
// Run it (with tsx installed: npm install tsx): node --no-node-snapshot --import tsx examples/adapters/ai-sdk.ts
import { generateText, isStepCount, tool } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { createRuntime } from 'isocode';
import { fromAiSdkTools, toAiSdkTools } from 'isocode/ai';
import { z } from 'zod';

// 1. Tools as you already write them for the AI SDK.
const forecast = tool({
  description: 'Current temperature of a city, in °C.',
  inputSchema: z.object({ city: z.string() }),
  outputSchema: z.object({ city: z.string(), celsius: z.number() }),
  execute: ({ city }) => ({ city, celsius: city.length * 3 }),
});

// 2. They become isocode tools (`tools.weather.forecast` in programs); run_code is what the model sees.
const runtime = await createRuntime({
  ...(await fromAiSdkTools({ forecast }, { namespace: 'weather' })),
  scopes: { default: { mode: 'code' } },
});

// 3. A scripted stand-in for a real model (use e.g. `openai('gpt-5')` from @ai-sdk/openai): it
//    writes one program, then answers from its result.
const program = `const temps = await Promise.all(
  ['Oslo', 'Lisbon', 'Nairobi'].map((city) => tools.weather.forecast({ city })));
return temps.sort((a, b) => b.celsius - a.celsius)[0]!.city;`;
let turn = 0;
const model = new MockLanguageModelV4({
  doGenerate: ({ prompt }) => {
    const last = prompt.at(-1);
    const part = last?.role === 'tool' ? last.content[0] : undefined;
    const answer =
      part?.type === 'tool-result' && part.output.type === 'text' ? part.output.value : '';
    const content =
      turn++ === 0
        ? [
            {
              type: 'tool-call' as const,
              toolCallId: 'call-1',
              toolName: 'run_code',
              input: JSON.stringify({ description: 'warmest city', code: program }),
            },
          ]
        : [{ type: 'text' as const, text: `Warmest: ${answer}` }];
    return Promise.resolve({
      content,
      finishReason: { unified: turn === 1 ? 'tool-calls' : 'stop', raw: undefined },
      usage: {
        inputTokens: { total: 0, noCache: 0, cacheRead: undefined, cacheWrite: undefined },
        outputTokens: { total: 0, text: 0, reasoning: undefined },
      },
      warnings: [],
    });
  },
});

const result = await generateText({
  model,
  tools: toAiSdkTools(runtime), // { run_code }: its description carries the typed SDK
  stopWhen: isStepCount(4),
  prompt: 'Which of Oslo, Lisbon and Nairobi is warmest?',
});
console.log(Object.keys(toAiSdkTools(runtime))); // [ 'run_code' ]
console.log(result.text); // Warmest: Nairobi (run_code's result, as the model read it)
await runtime.close();
