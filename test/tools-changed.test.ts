import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createRuntime, defineTool, isIsocodeError } from '../src/index.js';
import { createMcpServer } from '../src/mcp/index.js';
import { scriptedRunner } from '../src/testing.js';

const tool = (name: string, text = name) =>
  defineTool({ name, description: `the ${text} tool`, input: z.object({}), execute: () => text });

describe('catalog changes', () => {
  it('updateTools swaps tools atomically, the SDK follows, and listeners hear about it', async () => {
    const rt = await createRuntime({
      tools: [tool('up.a'), tool('up.b')],
      codeMode: { runner: scriptedRunner(() => 1) },
    });
    let heard = 0;
    rt.onToolsChanged(() => heard++);
    const before = rt.sdk().hash;
    rt.updateTools({ remove: ['up.b'], add: [tool('up.c')] });
    expect(rt.schemas().map((t) => t.name)).toEqual(['up.a', 'up.c']);
    expect(rt.sdk().hash).not.toBe(before);
    expect(heard).toBe(1);
    const gone = await rt.execute({ name: 'up.b', args: {} });
    expect(!gone.ok && gone.error.code).toBe('UNKNOWN_TOOL');
    const replaced = await rt.execute({ name: 'up.a', args: {} });
    expect(replaced.ok && replaced.value).toBe('up.a');
    rt.updateTools({ remove: ['up.a'], add: [tool('up.a', 'new a')] });
    const swapped = await rt.execute({ name: 'up.a', args: {} });
    expect(swapped.ok && swapped.value).toBe('new a');
    await rt.close();
  });

  it('a bad update changes nothing', async () => {
    const rt = await createRuntime({ tools: [tool('x'), tool('y')] });
    let error: unknown;
    try {
      rt.updateTools({ remove: ['x'], add: [tool('y')] });
    } catch (err) {
      error = err;
    }
    expect(isIsocodeError(error) && error.code).toBe('INVALID_TOOL_DEFINITION');
    expect(rt.schemas().map((t) => t.name)).toEqual(['x', 'y']);
    await rt.close();
  });

  it('the MCP face announces tools/list_changed to its client', async () => {
    const rt = await createRuntime({ tools: [tool('a')] });
    const server = createMcpServer({ runtime: rt });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const client = new Client({ name: 'test', version: '1' });
    let notified = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      notified++;
    });
    await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['a']);
    rt.register([tool('b')]);
    await new Promise((r) => setTimeout(r, 20));
    expect(notified).toBe(1);
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['a', 'b']);
    await client.close();
    await rt.close();
  });
});
