import { readFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import * as api from '../src/index.js';
import { OPTIONAL_PACKAGES } from '../src/optional.js';

const root = resolve(import.meta.dirname, '..');

/** Any relative import: static, dynamic, type-only, re-export. */
const ANY_IMPORT = /(?:from|import)\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/g;
/** A static import or re-export of values (what loading the module loads at once). */
const STATIC_VALUE_IMPORT =
  /^(?:import|export)\s+(?!type\b)[^;]*?from\s*['"](\.{1,2}\/[^'"]+)['"]/gm;

/** Every source file reachable from `entry` through the relative imports `edges` matches. */
function graph(entry: string, edges: RegExp = ANY_IMPORT): Set<string> {
  const seen = new Set<string>();
  const visit = (file: string): void => {
    if (seen.has(file)) return;
    seen.add(file);
    // Comments may quote import statements: scan the code only.
    const text = readFileSync(file, 'utf8')
      .replace(/\/\*[\s\S]*?\*\//g, '')
      .replace(/^\s*\/\/.*$/gm, '');
    for (const m of text.matchAll(edges)) {
      const spec = m[1]!;
      visit(resolve(dirname(file), spec.replace(/\.js$/, '.ts')));
    }
  };
  visit(resolve(root, entry));
  return new Set([...seen].map((f) => relative(root, f)));
}

describe('the public API', () => {
  it('the root entry pulls no HTTP server, MCP server or CLI code', () => {
    const files = [...graph('src/index.ts')];
    expect(files.filter((f) => /^src\/(server|mcp|cli)\//.test(f))).toEqual([]);
    expect(files).toContain('src/executor/executor.ts');
  });

  it('the testing entry pulls no server, MCP server or CLI code either', () => {
    expect([...graph('src/testing.ts')].filter((f) => /^src\/(server|mcp|cli)\//.test(f))).toEqual(
      [],
    );
  });

  it('no framework adapter is reachable from the root or testing entry, and adapters pull no faces', () => {
    for (const entry of ['src/index.ts', 'src/testing.ts'])
      expect([...graph(entry)].filter((f) => f.startsWith('src/adapters/'))).toEqual([]);
    for (const adapter of ['ai-sdk', 'openai-agents', 'langchain']) {
      const files = [...graph(`src/adapters/${adapter}.ts`)];
      expect(files.filter((f) => /^src\/(server|mcp|cli|sources)\//.test(f))).toEqual([]);
      // Each adapter imports its own framework and no other one.
      const others = ['ai-sdk', 'openai-agents', 'langchain'].filter((a) => a !== adapter);
      expect(files.filter((f) => others.some((o) => f === `src/adapters/${o}.ts`))).toEqual([]);
    }
  });

  it('exports explicit, documented names (no accidental internals)', () => {
    const names = Object.keys(api).sort();
    expect(names).toContain('createRuntime');
    expect(names).toContain('defineTool');
    expect(names).toContain('IsocodeError');
    expect(names).not.toContain('Executor');
    expect(names).not.toContain('ToolRegistry');
    expect(names).not.toContain('SandboxPool');
  });

  it('the isolate-side code lives in sdk-templates, not in strings', () => {
    const files = [...graph('src/index.ts')];
    expect(files.some((f) => f.startsWith('sdk-templates/isolate/'))).toBe(true);
  });

  // Decision 038: an optional package is loaded only when a feature needs it (src/optional.ts), so
  // an entry loads without it. What an entry loads at once is its static import graph: no file in it
  // may import an optional package's value statically (a type import is erased).
  it('no entry a lean install may load imports an optional package statically', () => {
    const optional = Object.keys(OPTIONAL_PACKAGES);
    const offenders: string[] = [];
    for (const entry of [
      'src/index.ts',
      'src/testing.ts',
      'src/sources/index.ts',
      'src/durable/index.ts',
      'src/cli/main.ts',
    ])
      for (const file of graph(entry, STATIC_VALUE_IMPORT)) {
        const text = readFileSync(resolve(root, file), 'utf8');
        for (const m of text.matchAll(
          /^import\s+(?!type\b)[^;]*?from\s*['"]([^'".][^'"]*)['"]/gm,
        )) {
          const spec = m[1]!;
          if (optional.some((p) => spec === p || spec.startsWith(`${p}/`)))
            offenders.push(`${file}: ${spec}`);
        }
      }
    expect([...new Set(offenders)]).toEqual([]);
  });
});
