/**
 * Output inference through the runtime: tools without an output schema get inferred types in the
 * SDK (marked as inferred), re-rendered only when the folded schema changes, persisted per tool
 * version, never holding values; a real MCP server (server-everything) for the MCP text results.
 */
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRuntime, type Runtime, type ToolDefinition } from '../../src/index.js';
import { mcpTools, type McpSource } from '../../src/sources/index.js';
import { serverScript, until } from '../sources/helpers.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'isocode-infer-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const item = (description = 'Looks up a shop item.'): ToolDefinition => ({
  name: 'shop.item',
  description,
  input: {
    type: 'object',
    properties: { id: { type: 'integer' }, full: { type: 'boolean' } },
    required: ['id'],
  },
  execute: (args: unknown) => {
    const { id, full } = args as { id: number; full?: boolean };
    return full
      ? { id, name: 'SECRET-VALUE-123', tags: ['red', 'sale'], stock: { count: 2.5 } }
      : { id, name: 'SECRET-VALUE-123', price: 10 };
  },
});

const open = (tools: ToolDefinition[], storeDir = dir): Promise<Runtime> =>
  createRuntime({
    tools,
    scopes: { default: { mode: 'code' } },
    codeMode: { warmup: false, typecheck: 'off', inferOutputs: { dir: storeDir } },
  });

const run = async (rt: Runtime, code: string): Promise<void> => {
  const r = await rt.execute({ name: 'run_code', args: { code, description: 'infer' } });
  if (!r.ok) throw new Error(`${r.error.code}: ${r.error.message}`);
};

/** Waits until `n` results have been folded in total. */
const folded = (rt: Runtime, n: number): Promise<void> =>
  until(() => (rt.stats().inference?.folded ?? 0) >= n, `${n} folded results`);

describe('output inference (native tools)', () => {
  it('infers, re-renders only on a change, marks and never holds values; persists per tool version', async () => {
    const rt = await open([item()]);
    let changes = 0;
    rt.onToolsChanged(() => changes++);
    try {
      const h0 = rt.sdk().hash;
      expect(rt.sdk().text).not.toContain('ShopItemOutput');
      await run(
        rt,
        'await tools.shop.item({ id: 1 }); await tools.shop.item({ id: 2 }); return 0;',
      );
      await folded(rt, 2);
      const first = rt.sdk();
      expect(first.hash).not.toBe(h0);
      expect(changes).toBe(1);
      // Marked as inferred in the tool's JSDoc, the folded shape as the method's output type.
      expect(first.text).toMatch(/@returns Inferred from 2 results; not declared by the tool\./);
      const signature = first.text.slice(first.text.indexOf('item(input'));
      expect(signature.slice(signature.indexOf('): Promise<'), signature.indexOf('}>;'))).toMatch(
        /id: number;\s+name: string;\s+\/\*\* @integer \*\/ price: number\b/,
      );

      // The same shape again: folded, but the SDK does not change.
      await run(rt, 'await tools.shop.item({ id: 3 }); return 0;');
      await folded(rt, 3);
      expect(rt.sdk().hash).toBe(first.hash);
      expect(changes).toBe(1);

      // A shape that changes: keys seen only sometimes become optional, the SDK is re-rendered.
      await run(rt, 'await tools.shop.item({ id: 4, full: true }); return 0;');
      await folded(rt, 4);
      const second = rt.sdk();
      expect(second.hash).not.toBe(first.hash);
      expect(changes).toBe(2);
      expect(second.text).toContain('Inferred from 4 results');
      expect(second.text).toMatch(/price\?: number\b/);
      expect(second.text).toMatch(/tags\?: string\[\]/);
      expect(second.text).toMatch(/stock\?: \{ count: number \}/);
      expect(second.text).not.toContain('SECRET-VALUE');
      expect(rt.stats().inference).toMatchObject({ folded: 4, dropped: 0, changes: 2 });
    } finally {
      await rt.close();
    }
    const files = await readdir(dir);
    expect(files).toHaveLength(1);
    const stored = await readFile(join(dir, files[0]!), 'utf8');
    expect(stored).not.toContain('SECRET-VALUE');
    expect(JSON.parse(stored)).toMatchObject({ tool: 'shop.item', of: 'value', samples: 4 });

    // A new runtime over the same store shows the inferred type before any call.
    const again = await open([item()]);
    try {
      expect(again.sdk().text).toContain('Inferred from 4 results; not declared by the tool.');
      expect(again.sdk().text).toMatch(/tags\?: string\[\]/);
    } finally {
      await again.close();
    }
    // A changed tool definition is another version: nothing inferred yet.
    const changed = await open([item('Looks up a shop item (v2).')]);
    try {
      expect(changed.sdk().text).not.toContain('ShopItemOutput');
    } finally {
      await changed.close();
    }
  });

  it('a hostile or oversized store file is ignored; the runtime stays healthy', async () => {
    const files = await readdir(dir);
    const file = join(dir, files[0]!);
    for (const bad of [
      '{"format":1,"tool":"shop.item","of":"value","samples":1,"schema":{"enum":["leak"]}}',
      '{"format":1,"tool":"shop.item","of":"value","samples":1,"schema":{"type":"object","properties":{"a b":{}},"required":[]}}',
      'not json',
      JSON.stringify({ format: 1, pad: 'x'.repeat(70_000) }),
    ]) {
      await writeFile(file, bad);
      const rt = await open([item()]);
      try {
        expect(rt.sdk().text).not.toContain('ShopItemOutput');
        expect(rt.sdk().text).not.toContain('leak');
      } finally {
        await rt.close();
      }
    }
  });

  it('is off by default', async () => {
    const rt = await createRuntime({
      tools: [item()],
      scopes: { default: { mode: 'code' } },
      codeMode: { warmup: false, typecheck: 'off' },
    });
    try {
      await run(rt, 'await tools.shop.item({ id: 1 }); return 0;');
      expect(rt.stats().inference).toBeUndefined();
      expect(rt.sdk().text).not.toContain('Inferred');
    } finally {
      await rt.close();
    }
  });
});

describe('output inference (server-everything, tools without output schemas)', () => {
  let ev: McpSource;
  let store: string;
  beforeAll(async () => {
    store = await mkdtemp(join(tmpdir(), 'isocode-infer-ev-'));
    ev = await mcpTools({
      name: 'ev',
      mcp: { command: process.execPath, args: [serverScript('everything')] },
    });
  });
  afterAll(async () => {
    await ev.close();
    await rm(store, { recursive: true, force: true });
  });

  it('infers the JSON in an MCP text result; plain text and declared outputs infer nothing', async () => {
    const rt = await open(ev.tools, store);
    try {
      const h0 = rt.sdk().hash;
      await run(
        rt,
        `await tools.ev['get-env'](); await tools.ev.echo({ message: 'hi' });
         await tools.ev['get-structured-content']({ location: 'Chicago' }); return 0;`,
      );
      await folded(rt, 1);
      const sdk = rt.sdk();
      expect(sdk.hash).not.toBe(h0);
      expect(sdk.text).toMatch(
        /\/\*\* Inferred from 1 result: the JSON in `text` \(JSON\.parse\(result\.text\)\); not declared by the tool\. \*\/\n(interface|type) EvGetEnvText\b/,
      );
      expect(sdk.text).toContain('`text` holds JSON of type EvGetEnvText (inferred).');
      expect(sdk.text).toContain('PATH');
      expect(sdk.text).not.toContain(process.env.PATH ?? '/usr/bin');
      expect(sdk.text).not.toMatch(/EvEchoText\b/);
      expect(sdk.text).not.toMatch(/EvGetStructuredContentText\b/);
      // A program uses the inferred type (type-checked against the SDK).
      const diagnostics = await rt.check(
        "const env = JSON.parse((await tools.ev['get-env']()).text) as EvGetEnvText; return env.PATH;",
      );
      expect(diagnostics).toEqual([]);
    } finally {
      await rt.close();
    }
    const again = await open(ev.tools, store);
    try {
      expect(again.sdk().text).toContain('EvGetEnvText');
    } finally {
      await again.close();
    }
  });
});
