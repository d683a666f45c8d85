/**
 * Discovery through the library face: the compact-mode decision on measured tokens, search (with
 * how many matched of how many), describe, the helpers as tool calls, and what the model is shown.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isIsocodeError, type Runtime } from '../../../src/index.js';
import { countTokens } from '../../../src/tokens.js';
import { discoveryRuntime } from './fixtures.js';

let rt: Runtime;
beforeAll(async () => {
  rt = await discoveryRuntime();
});
afterAll(() => rt.close());

const thrown = (f: () => unknown): unknown => {
  try {
    f();
  } catch (err) {
    return err;
  }
  throw new Error('expected a throw');
};

describe('the decision', () => {
  it('is measured in tokens of run_code’s full description, per scope', () => {
    const big = rt.discovery('big');
    const full = rt.wireTools('mcp', 'big', { mode: 'never' })[0]?.description ?? '';
    expect(big).toEqual({
      compact: true,
      mode: 'auto',
      thresholdTokens: 2000,
      fullTokens: countTokens(full),
      tools: 60,
    });
    const small = rt.discovery('small');
    expect(small?.compact).toBe(false);
    expect(small?.fullTokens).toBeLessThan(2000);
    expect(rt.discovery('nat')).toBeUndefined();
  });

  it('an override replaces the runtime’s setting; a bad one is INVALID_CONFIG', () => {
    expect(rt.discovery('small', { mode: 'always' })?.compact).toBe(true);
    expect(rt.discovery('big', { mode: 'never' })?.compact).toBe(false);
    expect(rt.discovery('big', { thresholdTokens: 1_000_000 })?.compact).toBe(false);
    const err = thrown(() => rt.discovery('big', { thresholdTokens: -1 }));
    expect(isIsocodeError(err) && err.code).toBe('INVALID_CONFIG');
  });
});

describe('what the model is shown', () => {
  it('compact: run_code lists an index and says how to discover, then the two helpers', () => {
    const wire = rt.wireSchemas('big');
    expect(wire.map((t) => t.name)).toEqual(['run_code', 'search_tools', 'describe_tool']);
    const description = wire[0]!.description;
    expect(description).not.toContain('interface Tools');
    expect(description).toContain('This scope has 60 tools.');
    expect(description).toContain('call `search_tools`');
    expect(description).toContain('- tools.big.count_invoice — Count invoice records');
    expect(countTokens(description)).toBeLessThan(rt.discovery('big')!.fullTokens / 2);
    const sdkSection = rt.systemPrompt('big').find((s) => s.id === 'tools:sdk')!.text;
    expect(sdkSection).toContain('Tool index:');
    expect(sdkSection).not.toContain('interface Tools');
  });

  it('below the threshold: the full SDK and no helpers', () => {
    const wire = rt.wireSchemas('small');
    expect(wire.map((t) => t.name)).toEqual(['run_code']);
    expect(wire[0]!.description).toContain('interface Tools');
  });
});

describe('search and describe', () => {
  it('search ranks by name words and says how many matched of how many exist', () => {
    const r = rt.searchTools('export invoice', 'big', 3);
    expect(r.total).toBe(60);
    expect(r.matched).toBeGreaterThanOrEqual(10);
    expect(r.tools).toHaveLength(3);
    expect(r.tools[0]).toEqual({
      name: 'big.export_invoice',
      binding: 'tools.big.export_invoice',
      summary:
        'Export invoice records of the billing system. Returns the affected invoice records with their ident…',
    });
    expect(rt.searchTools('zebra', 'big')).toEqual({
      query: 'zebra',
      total: 60,
      matched: 0,
      tools: [],
    });
    // A scope searches only its own tools.
    expect(rt.searchTools('invoice', 'small').matched).toBe(0);
  });

  it('describe gives declarations without the prelude; unknown names are listed or refused', () => {
    const d = rt.describeTools(['big.get_order', 'tools.big.tag_refund', 'nope'], 'big');
    expect(d.tools.map((t) => t.name)).toEqual(['big.get_order', 'big.tag_refund']);
    expect(d.missing).toEqual(['nope']);
    expect(d.declarations).toMatch(
      /^\/\/ Bindings: tools\.big\.get_order, tools\.big\.tag_refund\n/,
    );
    expect(d.declarations).toContain('get_order(');
    expect(d.declarations).not.toContain('class ToolCallError');
    const none = thrown(() => rt.describeTools(['big.get_order'], 'small'));
    expect(isIsocodeError(none) && none.code).toBe('UNKNOWN_TOOL');
  });

  it('hostile arguments are INVALID_ARGS, and the runtime stays healthy', () => {
    for (const bad of [
      () => rt.searchTools('x'.repeat(201), 'big'),
      () => rt.searchTools('a', 'big', 0),
      () => rt.searchTools('a', 'big', 1.5),
      () => rt.searchTools(42 as unknown as string, 'big'),
      () => rt.describeTools([], 'big'),
      () =>
        rt.describeTools(
          Array.from({ length: 21 }, () => 'big.get_order'),
          'big',
        ),
      () => rt.describeTools([{}] as unknown as string[], 'big'),
    ]) {
      const err = thrown(bad);
      expect(isIsocodeError(err) && err.code).toBe('INVALID_ARGS');
    }
    expect(rt.searchTools('get', 'big').matched).toBeGreaterThan(0);
  });
});

describe('the helpers as tool calls', () => {
  it('execute answers search_tools and describe_tool in a code scope, never rejecting', async () => {
    const r = await rt.execute(
      { name: 'search_tools', args: { query: 'merge ticket', limit: 1 } },
      { scope: 'big' },
    );
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.value).toMatchObject({ total: 60, tools: [{ name: 'big.merge_ticket' }] });
    expect(r.content[0]?.type === 'text' && r.content[0].text).toMatch(
      /^\d+ of 60 tools match "merge ticket"; the best 1:\ntools\.big\.merge_ticket \(big\.merge_ticket\) — /,
    );
    expect(r.meta).toMatchObject({ toolName: 'search_tools', scope: 'big' });

    const d = await rt.execute(
      { name: 'describe_tool', args: { names: ['nope'] } },
      { scope: 'big' },
    );
    expect(!d.ok && d.error.code).toBe('UNKNOWN_TOOL');
    expect(d.content[0]?.type === 'text' && d.content[0].text).toMatch(/^Error UNKNOWN_TOOL: /);
    for (const args of [null, [], 'x', { query: {} }]) {
      const bad = await rt.execute({ name: 'search_tools', args }, { scope: 'big' });
      expect(!bad.ok && bad.error.code).toBe('INVALID_ARGS');
    }
  });

  it('a native scope has no helpers: the executor’s UNKNOWN_TOOL', async () => {
    const r = await rt.execute({ name: 'search_tools', args: { query: 'x' } }, { scope: 'nat' });
    expect(!r.ok && r.error.code).toBe('UNKNOWN_TOOL');
  });
});
