import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { isIsocodeError } from '../../src/index.js';
import type { ToolContext, ToolDefinition } from '../../src/index.js';
import { builtinDemoTools } from '../../src/sources/index.js';

const ctx = (): ToolContext => ({
  signal: new AbortController().signal,
  callId: 'c1',
  parentId: undefined,
  scope: 'default',
});

/** Calls a tool the way the runtime would: input parsed by its zod schema, output checked by its zod schema. */
async function call(tools: ToolDefinition[], name: string, args: unknown): Promise<unknown> {
  const tool = tools.find((t) => t.name === name);
  if (!tool) throw new Error(`no tool ${name}`);
  const input = tool.input as z.ZodType;
  const value = await tool.execute(input.parse(args), ctx());
  return (tool.output as z.ZodType).parse(value);
}

describe('builtinDemoTools', () => {
  it('offers the kv and text tools with zod input and output schemas and descriptions', () => {
    const tools = builtinDemoTools();
    expect(tools.map((t) => t.name).sort()).toEqual([
      'kv.delete',
      'kv.get',
      'kv.list',
      'kv.set',
      'text.search',
      'text.split_lines',
      'text.transform',
      'text.word_count',
    ]);
    for (const t of tools) {
      expect(t.name).toMatch(/^[A-Za-z0-9_.-]{1,64}$/);
      expect(t.input).toBeInstanceOf(z.ZodType);
      expect(t.output).toBeInstanceOf(z.ZodType);
      expect(t.description.length).toBeGreaterThan(20);
      // every schema converts to JSON Schema (what the SDK generator and the wire formats need)
      expect(() => z.toJSONSchema(t.input as z.ZodType)).not.toThrow();
      expect(() => z.toJSONSchema(t.output as z.ZodType)).not.toThrow();
    }
  });

  it('marks reads concurrency-safe and writes not', () => {
    const safe = Object.fromEntries(builtinDemoTools().map((t) => [t.name, t.isConcurrencySafe]));
    expect(safe).toEqual({
      'kv.get': true,
      'kv.set': false,
      'kv.delete': false,
      'kv.list': true,
      'text.word_count': true,
      'text.transform': true,
      'text.split_lines': true,
      'text.search': true,
    });
  });

  describe('kv', () => {
    it('sets, gets, replaces, lists and deletes JSON values', async () => {
      const tools = builtinDemoTools();
      expect(await call(tools, 'kv.get', { key: 'a' })).toEqual({
        key: 'a',
        found: false,
        value: null,
      });
      expect(
        await call(tools, 'kv.set', {
          key: 'user:1',
          value: { name: 'Ada', tags: ['x', null, 2] },
        }),
      ).toEqual({ key: 'user:1', created: true });
      expect(await call(tools, 'kv.set', { key: 'user:2', value: 'Bob' })).toEqual({
        key: 'user:2',
        created: true,
      });
      expect(await call(tools, 'kv.set', { key: 'config', value: false })).toEqual({
        key: 'config',
        created: true,
      });
      expect(await call(tools, 'kv.set', { key: 'user:2', value: 'Bobby' })).toEqual({
        key: 'user:2',
        created: false,
      });
      expect(await call(tools, 'kv.get', { key: 'user:1' })).toEqual({
        key: 'user:1',
        found: true,
        value: { name: 'Ada', tags: ['x', null, 2] },
      });
      expect(await call(tools, 'kv.get', { key: 'user:2' })).toEqual({
        key: 'user:2',
        found: true,
        value: 'Bobby',
      });
      expect(await call(tools, 'kv.list', {})).toEqual({
        keys: ['config', 'user:1', 'user:2'],
        total: 3,
        truncated: false,
      });
      expect(await call(tools, 'kv.list', { prefix: 'user:' })).toEqual({
        keys: ['user:1', 'user:2'],
        total: 2,
        truncated: false,
      });
      expect(await call(tools, 'kv.list', { prefix: 'user:', limit: 1 })).toEqual({
        keys: ['user:1'],
        total: 2,
        truncated: true,
      });
      expect(await call(tools, 'kv.delete', { key: 'user:1' })).toEqual({
        key: 'user:1',
        deleted: true,
      });
      expect(await call(tools, 'kv.delete', { key: 'user:1' })).toEqual({
        key: 'user:1',
        deleted: false,
      });
      expect(await call(tools, 'kv.list', {})).toEqual({
        keys: ['config', 'user:2'],
        total: 2,
        truncated: false,
      });
    });

    it('gives each builtinDemoTools() call its own store', async () => {
      const a = builtinDemoTools();
      const b = builtinDemoTools();
      await call(a, 'kv.set', { key: 'k', value: 1 });
      expect(await call(b, 'kv.get', { key: 'k' })).toMatchObject({ found: false });
      expect(await call(a, 'kv.get', { key: 'k' })).toMatchObject({ found: true, value: 1 });
    });

    it('copies values in and out of the store', async () => {
      const tools = builtinDemoTools();
      const value = { list: [1] };
      await call(tools, 'kv.set', { key: 'k', value });
      value.list.push(2);
      const first = (await call(tools, 'kv.get', { key: 'k' })) as { value: { list: number[] } };
      first.value.list.push(3);
      expect(await call(tools, 'kv.get', { key: 'k' })).toMatchObject({ value: { list: [1] } });
    });

    it('rejects non-JSON values and empty keys at the input schema, and oversized values in the body', async () => {
      const tools = builtinDemoTools();
      await expect(call(tools, 'kv.set', { key: 'k', value: undefined })).rejects.toThrow();
      await expect(call(tools, 'kv.set', { key: 'k', value: Number.NaN })).rejects.toThrow();
      await expect(call(tools, 'kv.set', { key: '', value: 1 })).rejects.toThrow();
      const err: unknown = await call(tools, 'kv.set', {
        key: 'big',
        value: 'x'.repeat(70_000),
      }).catch((e: unknown) => e);
      expect(isIsocodeError(err) && err.code).toBe('TOOL_ERROR');
      expect(await call(tools, 'kv.get', { key: 'big' })).toMatchObject({ found: false });
    });
  });

  describe('text', () => {
    it('counts words, code points and lines', async () => {
      const tools = builtinDemoTools();
      expect(await call(tools, 'text.word_count', { text: '' })).toEqual({
        words: 0,
        characters: 0,
        lines: 0,
      });
      expect(
        await call(tools, 'text.word_count', { text: 'hello  world\nsecond line here\n' }),
      ).toEqual({ words: 5, characters: 30, lines: 2 });
      expect(await call(tools, 'text.word_count', { text: 'a😀b\r\nc' })).toEqual({
        words: 2,
        characters: 6,
        lines: 2,
      });
    });

    it('transforms by mode and rejects an unknown mode', async () => {
      const tools = builtinDemoTools();
      const t = async (text: string, mode: string): Promise<unknown> =>
        ((await call(tools, 'text.transform', { text, mode })) as { text: string }).text;
      expect(await t('Hello World', 'upper')).toBe('HELLO WORLD');
      expect(await t('Hello World', 'lower')).toBe('hello world');
      expect(await t('hELLO wORLD  again', 'title')).toBe('Hello World  Again');
      expect(await t('ab😀c', 'reverse')).toBe('c😀ba');
      expect(await t('  padded \n', 'trim')).toBe('padded');
      expect(await t('Hello World, parseJSONValue now!', 'snake_case')).toBe(
        'hello_world_parse_jsonvalue_now',
      );
      await expect(t('x', 'shout')).rejects.toThrow();
    });

    it('splits lines with optional trimming and skipping', async () => {
      const tools = builtinDemoTools();
      expect(await call(tools, 'text.split_lines', { text: 'a\r\n  b \n\nc\rd\n' })).toEqual({
        lines: ['a', '  b ', '', 'c', 'd'],
        count: 5,
      });
      expect(
        await call(tools, 'text.split_lines', { text: 'a\n  \n b ', trim: true, skipEmpty: true }),
      ).toEqual({ lines: ['a', 'b'], count: 2 });
      expect(await call(tools, 'text.split_lines', { text: '' })).toEqual({ lines: [], count: 0 });
    });

    it('finds plain substrings with line and column, case-insensitively on request, capped', async () => {
      const tools = builtinDemoTools();
      const text = 'The cat sat.\nA CAT? (cat.*)\r\nno match';
      expect(await call(tools, 'text.search', { text, query: 'cat' })).toEqual({
        count: 2,
        matches: [
          { index: 4, line: 1, column: 5, lineText: 'The cat sat.' },
          { index: 21, line: 2, column: 9, lineText: 'A CAT? (cat.*)' },
        ],
      });
      // regex metacharacters are literal
      expect(await call(tools, 'text.search', { text, query: 'cat.*' })).toMatchObject({
        count: 1,
        matches: [{ line: 2, column: 9 }],
      });
      const insensitive = (await call(tools, 'text.search', {
        text,
        query: 'CAT',
        caseSensitive: false,
        maxMatches: 2,
      })) as {
        count: number;
        matches: { column: number }[];
      };
      expect(insensitive.count).toBe(3);
      expect(insensitive.matches.map((m) => m.column)).toEqual([5, 3]);
      expect(await call(tools, 'text.search', { text: 'aaaa', query: 'aa' })).toMatchObject({
        count: 2,
      });
    });
  });
});
