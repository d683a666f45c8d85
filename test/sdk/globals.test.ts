/**
 * Generated names must never be library globals: a generated `interface ArrayBuffer` would silently
 * merge with the library's. This builds tools whose type names would spell every capitalised global
 * of the TypeScript ES libraries, and checks none is declared.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { renderSdk } from '../../src/sdk/index.js';
import type { ToolSchema } from '../../src/tools/types.js';
import { typecheck } from './helpers/typecheck.js';

function declaredNames(sf: ts.SourceFile): string[] {
  const names: string[] = [];
  for (const st of sf.statements) {
    if (
      (ts.isInterfaceDeclaration(st) ||
        ts.isTypeAliasDeclaration(st) ||
        ts.isClassDeclaration(st) ||
        ts.isFunctionDeclaration(st) ||
        ts.isModuleDeclaration(st) ||
        ts.isEnumDeclaration(st)) &&
      st.name !== undefined &&
      ts.isIdentifier(st.name)
    ) {
      names.push(st.name.text);
    }
    if (ts.isVariableStatement(st)) {
      for (const d of st.declarationList.declarations)
        if (ts.isIdentifier(d.name)) names.push(d.name.text);
    }
  }
  return names;
}

const libDir = dirname(ts.getDefaultLibFilePath({}));
const libGlobals = new Set(
  readdirSync(libDir)
    .filter((f) => /^lib\.(es|decorators)[\w.]*\.d\.ts$/.test(f))
    .flatMap((f) =>
      declaredNames(
        ts.createSourceFile(f, readFileSync(join(libDir, f), 'utf8'), ts.ScriptTarget.Latest),
      ),
    ),
);

describe('generated names vs library globals', () => {
  it('never declares a library global, even when a tool and its $defs spell one', () => {
    const byStem = new Map<string, string[]>();
    for (const g of libGlobals) {
      const m = /^([A-Z][a-z0-9]+)([A-Z]\w*)$/.exec(g);
      if (m) byStem.set(m[1] as string, [...(byStem.get(m[1] as string) ?? []), m[2] as string]);
    }
    const catalog: ToolSchema[] = [...byStem].map(([stem, defs]) => ({
      name: stem,
      description: '',
      inputSchema: {
        anyOf: defs.map((d) => ({ $ref: `#/$defs/${d}` })),
        $defs: Object.fromEntries(defs.map((d) => [d, { type: 'string' }])),
      },
    }));
    expect(catalog.length).toBeGreaterThan(20);
    const sdk = renderSdk(catalog);
    const declared = declaredNames(
      ts.createSourceFile('sdk.d.ts', sdk.text, ts.ScriptTarget.Latest),
    );
    expect(declared.filter((n) => libGlobals.has(n))).toEqual([]);
    expect(declared).toContain('ArrayBuffer2');
    expect(typecheck(sdk.text, 'export {};')).toEqual([]);
  });
});
