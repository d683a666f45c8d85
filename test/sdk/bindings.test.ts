import { describe, expect, it } from 'vitest';
import { sdkBindings } from '../../src/sdk/index.js';

const paths = (names: string[], options?: { namespaces?: boolean }): Record<string, string[]> =>
  Object.fromEntries(sdkBindings(names, options).map((b) => [b.tool, b.path]));

describe('sdkBindings', () => {
  it('splits dotted names into nested paths and keeps other names flat', () => {
    expect(
      paths(['github.create_issue', 'github.issues.list', 'read_file', 'get-user', 'server__tool']),
    ).toEqual({
      'get-user': ['get-user'],
      'github.create_issue': ['github', 'create_issue'],
      'github.issues.list': ['github', 'issues', 'list'],
      read_file: ['read_file'],
      server__tool: ['server__tool'],
    });
  });

  it('keeps a dotted name flat when a prefix of it is itself a tool', () => {
    expect(paths(['github', 'github.create_issue', 'a.b', 'a.b.c', 'a.x'])).toEqual({
      github: ['github'],
      'github.create_issue': ['github.create_issue'],
      'a.b': ['a', 'b'],
      'a.b.c': ['a.b.c'],
      'a.x': ['a', 'x'],
    });
  });

  it('keeps names with empty or __proto__ segments flat', () => {
    expect(paths(['a..b', '.a', 'a.', 'x.__proto__', '__proto__.y'])).toEqual({
      '.a': ['.a'],
      '__proto__.y': ['__proto__.y'],
      'a.': ['a.'],
      'a..b': ['a..b'],
      'x.__proto__': ['x.__proto__'],
    });
  });

  it('is sorted by name, drops duplicates and ignores input order', () => {
    const a = sdkBindings(['b.x', 'a', 'b.y', 'a', 'c']);
    const b = sdkBindings(['c', 'b.y', 'a', 'b.x']);
    expect(a).toEqual(b);
    expect(a.map((x) => x.tool)).toEqual(['a', 'b.x', 'b.y', 'c']);
  });

  it('never maps two tools to the same or overlapping paths', () => {
    const names = [
      'a',
      'a.b',
      'a.b.c',
      'b.c',
      'b.c.d',
      'b.e',
      'c.d.e',
      'c.d',
      'x.y.z',
      'x.y.w',
      'x',
    ];
    const bindings = sdkBindings(names);
    const keys = bindings.map((b) => b.path.join('\u0000'));
    expect(new Set(keys).size).toBe(names.length);
    for (const p of keys)
      for (const q of keys) if (p !== q) expect(q.startsWith(`${p}\u0000`)).toBe(false);
  });

  it('can keep every name flat', () => {
    expect(paths(['github.create_issue'], { namespaces: false })).toEqual({
      'github.create_issue': ['github.create_issue'],
    });
  });
});
