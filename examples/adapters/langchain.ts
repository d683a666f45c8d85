// isocode with LangChain.js (`npm install isocode @langchain/core zod`): your StructuredTools
// become a typed SDK for programs, and the chat model is bound to one tool, run_code.
// Run it (with tsx installed: npm install tsx): node --no-node-snapshot --import tsx examples/adapters/langchain.ts
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages';
import type { ChatResult } from '@langchain/core/outputs';
import { tool } from '@langchain/core/tools';
import { FakeChatModel } from '@langchain/core/utils/testing';
import { createRuntime } from 'isocode';
import { fromLangChainTools, toLangChainTools } from 'isocode/langchain';
import { z } from 'zod';

// 1. Tools as you already write them for LangChain.
const forecast = tool(({ city }) => ({ city, celsius: city.length * 3 }), {
  name: 'forecast',
  description: 'Current temperature of a city, in °C.',
  schema: z.object({ city: z.string() }),
});

// 2. They become isocode tools (`tools.weather.forecast` in programs). LangChain tools declare no
//    output type: give one so programs can read the result without narrowing it.
const runtime = await createRuntime({
  ...fromLangChainTools([forecast], {
    namespace: 'weather',
    outputs: { forecast: z.object({ city: z.string(), celsius: z.number() }) },
  }),
  scopes: { default: { mode: 'code' } },
});

// 3. A scripted stand-in for a real chat model (e.g. ChatOpenAI from @langchain/openai): one
//    program, then an answer from the ToolMessage.
const program = `const temps = await Promise.all(
  ['Oslo', 'Lisbon', 'Nairobi'].map((city) => tools.weather.forecast({ city })));
return temps.sort((a, b) => b.celsius - a.celsius)[0]!.city;`;
class ScriptedModel extends FakeChatModel {
  override bindTools(): this {
    return this;
  }
  override _generate(messages: BaseMessage[]): Promise<ChatResult> {
    const result = messages.find((m) => ToolMessage.isInstance(m));
    const message = result
      ? new AIMessage(`Warmest: ${result.text}`)
      : new AIMessage({
          content: '',
          tool_calls: [
            { id: 'call-1', name: 'run_code', args: { description: 'warmest', code: program } },
          ],
        });
    return Promise.resolve({ generations: [{ text: '', message }] });
  }
}

// 4. The usual tool loop: the model is bound to run_code; each tool call is answered with a ToolMessage.
const tools = toLangChainTools(runtime);
const model = new ScriptedModel({}).bindTools();
const messages: BaseMessage[] = [new HumanMessage('Which of Oslo, Lisbon and Nairobi is warmest?')];
for (let turn = 0; turn < 4; turn++) {
  const reply = await model.invoke(messages);
  messages.push(reply);
  if (!reply.tool_calls?.length) break;
  for (const call of reply.tool_calls) {
    const answer = await tools
      .find((t) => t.name === call.name)
      ?.invoke({ ...call, type: 'tool_call' });
    if (ToolMessage.isInstance(answer)) messages.push(answer);
  }
}
console.log(tools.map((t) => t.name)); // [ 'run_code' ]
console.log(messages.at(-1)?.content); // Warmest: Nairobi
await runtime.close();
