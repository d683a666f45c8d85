import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  createRuntime,
  defineTool,
  isValidToolName,
  PROVIDER_NAME_PATTERN,
  wireNameTable,
  type ToolCall,
} from '../../src/index.js';

// Valid isocode names: segments of [A-Za-z0-9_-] joined by single dots, 1-64 characters in all.
const segment = fc.stringMatching(/^[A-Za-z0-9_-]{1,12}$/);
const toolName = fc
  .array(segment, { minLength: 1, maxLength: 8 })
  .map((parts) => parts.join('.'))
  .filter((n) => n.length <= 64);
// Names built to collide: `a.b` next to `a__b`, and long names whose `__` spelling passes 64.
const collidingSet = fc
  .array(toolName, { minLength: 1, maxLength: 20 })
  .map((names) => [...names, ...names.map((n) => n.replaceAll('.', '__')).filter(isValidToolName)]);

describe('provider wire names', () => {
  it('any set of valid names maps to distinct legal wire names, and back', () => {
    fc.assert(
      fc.property(fc.oneof(fc.array(toolName, { maxLength: 30 }), collidingSet), (names) => {
        const table = wireNameTable(names);
        const wires = new Set<string>();
        for (const name of new Set(names)) {
          const wire = table.toWire(name);
          expect(wire).toMatch(PROVIDER_NAME_PATTERN);
          expect(table.fromWire(wire)).toBe(name);
          wires.add(wire);
        }
        expect(wires.size).toBe(new Set(names).size);
      }),
      { numRuns: 300 },
    );
  });

  it('keeps legal names, spells dots as __, and hashes a taken or too long spelling', () => {
    const long = `${'a'.repeat(30)}.${'b'.repeat(30)}.c`; // 63 characters, 65 spelled
    const table = wireNameTable(['run_code', 'fs.read-file', 'x.y', 'x__y', long]);
    expect(table.toWire('run_code')).toBe('run_code');
    expect(table.toWire('fs.read-file')).toBe('fs__read-file');
    expect(table.toWire('x__y')).toBe('x__y');
    expect(table.toWire('x.y')).toMatch(/^x__y_[0-9a-f]{8}$/);
    expect(table.toWire(long)).toHaveLength(64);
    expect(table.fromWire('fs.read-file')).toBeUndefined();
    expect(table.fromWire('nope')).toBeUndefined();
  });

  it('does not depend on the order names come in', () => {
    const names = ['x.y', 'x__y', 'a.b.c', 'a__b.c'];
    const forward = wireNameTable(names);
    const backward = wireNameTable([...names].reverse());
    for (const n of names) expect(backward.toWire(n)).toBe(forward.toWire(n));
  });
});

describe('wireTools and execute', () => {
  const weather = defineTool({
    name: 'weather.get',
    description: 'Weather.',
    input: z.object({ city: z.string() }),
    execute: ({ city }) => ({ city, celsius: 20 }),
  });
  const readFile = defineTool({
    name: 'fs.read-file',
    description: 'Reads.',
    input: { type: 'object' },
    execute: () => 'text',
  });

  it('openai and anthropic names are provider-legal in native and both modes; mcp keeps dots', async () => {
    const rt = await createRuntime({
      tools: [weather, readFile],
      scopes: { default: { mode: 'native' }, both: { mode: 'both' } },
      codeMode: { warmup: false },
    });
    for (const scope of ['default', 'both']) {
      const names = [
        ...rt.wireTools('openai', scope).map((t) => t.function.name),
        ...rt.wireTools('anthropic', scope).map((t) => t.name),
      ];
      for (const n of names) expect(n).toMatch(PROVIDER_NAME_PATTERN);
      expect(names).toContain('weather__get');
    }
    expect(rt.wireTools('mcp').map((t) => t.name)).toEqual(['fs.read-file', 'weather.get']);
    await rt.close();
  });

  it('execute accepts the wire name back, in the scope it was shown in', async () => {
    const rt = await createRuntime({ tools: [weather, readFile], codeMode: false });
    const byWire = await rt.execute({ name: 'weather__get', args: { city: 'Oslo' } });
    expect(byWire.ok && byWire.value).toEqual({ city: 'Oslo', celsius: 20 });
    const byName = await rt.execute({ name: 'weather.get', args: { city: 'Oslo' } });
    expect(byName.ok).toBe(true);
    const unknown = await rt.execute({ name: 'weather__nope', args: {} });
    expect(!unknown.ok && unknown.error.code).toBe('UNKNOWN_TOOL');
    const badScope = await rt.execute({ name: 'weather__get', args: {} }, { scope: 'missing' });
    expect(!badScope.ok && badScope.error.code).toBe('INVALID_SCOPE');
    await rt.close();
  });

  it('a hostile call or scope still resolves to a typed error (the wire-name lookup never throws)', async () => {
    const rt = await createRuntime({ tools: [weather], codeMode: false });
    const hostile: unknown[] = [null, 'weather__get', { name: 42, args: {} }];
    for (const call of hostile) {
      const res = await rt.execute(call as ToolCall);
      expect(res.ok).toBe(false);
    }
    const badScope = await rt.execute(
      { name: 'weather__get', args: {} },
      {
        scope: {} as unknown as string,
      },
    );
    expect(badScope.ok).toBe(false);
    await rt.close();
  });

  it('a tool registered later that takes a spelling moves the dotted tool, and execute follows', async () => {
    const rt = await createRuntime({ tools: [weather], codeMode: false });
    expect(rt.wireTools('openai').map((t) => t.function.name)).toEqual(['weather__get']);
    rt.register([
      defineTool({
        name: 'weather__get',
        description: 'Literal.',
        input: { type: 'object' },
        execute: () => 'literal',
      }),
    ]);
    const names = rt.wireTools('openai').map((t) => t.function.name);
    expect(names).toContain('weather__get');
    const moved = names.find((n) => n !== 'weather__get');
    expect(moved).toMatch(/^weather__get_[0-9a-f]{8}$/);
    const literal = await rt.execute({ name: 'weather__get', args: {} });
    expect(literal.ok && literal.value).toBe('literal');
    const dotted = await rt.execute({ name: moved ?? '', args: { city: 'Lima' } });
    expect(dotted.ok && dotted.value).toEqual({ city: 'Lima', celsius: 20 });
    await rt.close();
  });
});
