import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createRuntime, defineTool } from '../../src/index.js';
import { scriptedRunner } from '../../src/testing.js';

const tools = [
  defineTool({
    name: 'notes.search',
    description: 'Searches notes.',
    input: z.object({ query: z.string() }),
    output: z.object({ hits: z.array(z.string()) }),
    execute: () => ({ hits: [] }),
  }),
];
const runner = scriptedRunner(() => null);

describe('system prompt sections and the run_code description', () => {
  it('code: tools:code-only then tools:sdk; both: an empty code-only section; native: none', async () => {
    const rt = await createRuntime({
      tools,
      scopes: { default: { mode: 'code' }, mixed: { mode: 'both' }, plain: { mode: 'native' } },
      codeMode: { runner },
    });
    const code = rt.systemPrompt();
    expect(code.map((s) => s.id)).toEqual(['tools:code-only', 'tools:sdk']);
    expect(code[0]?.text).toContain('run_code');
    expect(code[0]?.text).toContain('UNKNOWN_TOOL');
    expect(code[1]?.text).toContain('search(input: {');
    const both = rt.systemPrompt('mixed');
    expect(both.map((s) => s.id)).toEqual(['tools:code-only', 'tools:sdk']);
    expect(both[0]?.text).toBe('');
    expect(rt.systemPrompt('plain')).toEqual([]);
    await rt.close();
  });

  it('a hook replaces, drops or adds sections', async () => {
    const rt = await createRuntime({
      tools,
      scopes: { default: { mode: 'code' } },
      codeMode: { runner },
      systemPrompt: (sections, scope) => [
        ...sections.filter((s) => s.id !== 'tools:code-only'),
        { id: 'house-rules', text: `scope ${scope}: be brief` },
      ],
    });
    expect(rt.systemPrompt().map((s) => s.id)).toEqual(['tools:sdk', 'house-rules']);
    expect(rt.systemPrompt()[1]?.text).toBe('scope default: be brief');
    await rt.close();
  });

  it('the run_code wire entry carries the instructions and the scope SDK, and follows registration', async () => {
    const rt = await createRuntime({
      tools,
      scopes: { default: { mode: 'code' } },
      codeMode: { runner },
    });
    const [runCode] = rt.wireSchemas();
    expect(runCode?.name).toBe('run_code');
    expect(runCode?.description).toContain('declare const tools: Tools;');
    expect(runCode?.description).toContain('notes');
    const before = rt.sdk().hash;
    rt.register([
      defineTool({
        name: 'notes.add',
        description: 'Adds a note.',
        input: z.object({ text: z.string() }),
        execute: () => 1,
      }),
    ]);
    expect(rt.sdk().hash).not.toBe(before);
    expect(rt.wireSchemas()[0]?.description).toContain('add(input: {');
    await rt.close();
  });
});
