// defineTool's types: `npm run typecheck` checks this file, so every `@ts-expect-error` below is a
// type test (an error that stops happening fails the typecheck); the assertions check the values.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createRuntime, defineTool } from '../src/index.js';

describe('defineTool', () => {
  it('types arguments from a zod input and the value from a zod output', async () => {
    const weather = defineTool({
      name: 'weather.get',
      description: 'Weather.',
      input: z.object({ city: z.string(), days: z.number().default(1) }),
      output: z.object({ city: z.string(), celsius: z.number() }),
      execute: ({ city, days }) => {
        const upper: string = city.toUpperCase(); // `city` is a string, not implicitly any
        const count: number = days; // the parsed type: defaults applied
        return { city: upper, celsius: count };
      },
    });
    const rt = await createRuntime({ tools: [weather], codeMode: false });
    const res = await rt.execute({ name: 'weather.get', args: { city: 'oslo' } });
    expect(res.ok && res.value).toEqual({ city: 'OSLO', celsius: 1 });
    await rt.close();
  });

  it('rejects a body that contradicts the zod output or misuses the arguments (compile time)', () => {
    // One line per case, so each directive covers wherever TS reports it.
    const n = z.object({ n: z.number() });
    // prettier-ignore
    // @ts-expect-error -- `n` must be a number by the output schema
    const a = defineTool({ name: 'a', description: '', input: n, output: n, execute: () => ({ n: 'one' }) });
    // prettier-ignore
    // @ts-expect-error -- `n` is a number: it has no toUpperCase
    const b = defineTool({ name: 'b', description: '', input: n, execute: ({ n }) => n.toUpperCase() }); // eslint-disable-line @typescript-eslint/no-unsafe-return, @typescript-eslint/no-unsafe-call
    // prettier-ignore
    // @ts-expect-error -- a JSON Schema input leaves `args` unknown, which the zod output refuses
    const c = defineTool({ name: 'c', description: '', input: {}, output: z.object({ ok: z.boolean() }), execute: (args) => ({ ok: args }) });
    const tools = [a, b, c];
    expect(tools.map((t) => t.name)).toEqual(['a', 'b', 'c']);
  });

  it('reports a body that contradicts the output on the body, not on the schema lines (compile time)', () => {
    // Each `@ts-expect-error` sits on the line the error must be on: an error that moved to
    // `input:` or `output:` would leave the directive unused and fail the typecheck.
    const zodToZod = defineTool({
      name: 'zod.zod',
      description: '',
      input: z.object({ a: z.number() }),
      output: z.object({ sum: z.number() }),
      // @ts-expect-error -- `sum` must be a number
      execute: ({ a }) => ({ sum: String(a) }),
    });
    const jsonToZod = defineTool({
      name: 'json.zod',
      description: '',
      input: { type: 'object' },
      output: z.object({ ok: z.boolean() }),
      // @ts-expect-error -- `ok` must be a boolean
      execute: () => ({ ok: 'yes' }),
    });
    const asyncBody = defineTool({
      name: 'zod.async',
      description: '',
      input: z.object({}),
      output: z.array(z.string()),
      // @ts-expect-error -- the promised value must be a string[]
      execute: () => Promise.resolve([1, 2]),
    });
    expect([zodToZod, jsonToZod, asyncBody].map((t) => t.name)).toEqual([
      'zod.zod',
      'json.zod',
      'zod.async',
    ]);
  });

  it('a JSON Schema input gives unknown arguments unless annotated', async () => {
    const raw = defineTool({
      name: 'raw',
      description: '',
      input: { type: 'object' },
      execute: (args) => {
        const unknownArgs: unknown = args;
        // @ts-expect-error -- unknown has no properties
        void args.anything;
        return typeof unknownArgs;
      },
    });
    const typed = defineTool({
      name: 'typed',
      description: '',
      input: { type: 'object', properties: { x: { type: 'number' } } },
      execute: (args: { x: number }) => args.x * 2,
    });
    const rt = await createRuntime({ tools: [raw, typed], codeMode: false });
    expect(await rt.execute({ name: 'raw', args: {} })).toMatchObject({
      ok: true,
      value: 'object',
    });
    expect(await rt.execute({ name: 'typed', args: { x: 4 } })).toMatchObject({
      ok: true,
      value: 8,
    });
    await rt.close();
  });
});
