import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createRuntime, defineTool, type Runtime } from '../../src/index.js';

// The refusal of a model-direct call names a route; a program that calls that route verbatim works.
const tool = (name: string) =>
  defineTool({
    name,
    description: `Says which tool answered (${name}).`,
    input: z.object({ id: z.number().int() }),
    output: z.object({ tool: z.string(), id: z.number() }),
    execute: ({ id }: { id: number }) => ({ tool: name, id }),
  });

let rt: Runtime;
beforeAll(async () => {
  rt = await createRuntime({
    tools: [tool('get-user'), tool('fs.read-file'), tool('kv'), tool('kv.get')],
    scopes: { default: { mode: 'code' } },
  });
});
afterAll(() => rt.close());

describe('binding routes in code-mode refusals', () => {
  it.each([
    ['get-user', 'tools["get-user"]'],
    ['fs.read-file', 'tools.fs["read-file"]'],
    ['kv.get', 'tools["kv.get"]'],
  ])(
    'the route the refusal of %s names is callable verbatim from a program',
    async (name, expected) => {
      const refused = await rt.execute({ name, args: { id: 7 } });
      expect(!refused.ok && refused.error.code).toBe('UNKNOWN_TOOL');
      const message = refused.ok ? '' : refused.error.message;
      const route = /reachable from inside a run_code program as (.+)\(\.\.\.\)\.$/.exec(
        message,
      )?.[1];
      expect(route).toBe(expected);

      const res = await rt.execute({
        name: 'run_code',
        args: { code: `return await ${route}({ id: 7 });`, description: `call ${name}` },
      });
      expect(res.ok ? undefined : res.error.message).toBeUndefined();
      expect(res.ok && res.value).toMatchObject({
        result: { tool: name, id: 7 },
        calls: [{ name, ok: true }],
      });
    },
  );
});
