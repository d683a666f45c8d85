/** Fences, module refusals and body rejections: what a model commonly writes gets one clear diagnostic. */
import { describe, expect, it } from 'vitest';
import { unfence } from '../../src/compile/index.js';
import { programRefusal } from '../../src/compile/refusals.js';
import { transpileGuarded } from '../../src/compile/guarded-transpile.js';

describe('unfence', () => {
  it.each([
    ['```ts\nreturn 1;\n```', '\nreturn 1;\n'],
    ['```typescript\nreturn 1;\n```\n', '\nreturn 1;\n\n'],
    ['\n  ```\nreturn 1;\n```  \n\n', '\n\nreturn 1;\n\n\n'],
    ['```TS\r\nreturn 1;\r\n```', '\nreturn 1;\r\n'],
    ['```js\nconst a = 1;\nreturn a;\n```', '\nconst a = 1;\nreturn a;\n'],
  ])('unwraps a program that is one fenced block, keeping line numbers: %j', (program, code) => {
    const out = unfence(program);
    expect(out).toEqual({ code, unfenced: true });
    expect(out.code.split('\n')).toHaveLength(program.split('\n').length);
  });

  it.each([
    ['no fence', 'return 1;'],
    ['prose before the block', 'Here is the program:\n```ts\nreturn 1;\n```'],
    ['prose after the block', '```ts\nreturn 1;\n```\nThis returns 1.'],
    ['two blocks', '```ts\nconst a = 1;\n```\n```ts\nreturn a;\n```'],
    ['a fence inside a template literal', 'return `\n```ts\nx\n```\n`;'],
    ['a language that is not JS/TS', '```python\nreturn 1\n```'],
    ['an unclosed fence', '```ts\nreturn 1;'],
  ])('leaves %s alone', (_name, program) => {
    expect(unfence(program)).toEqual({ code: program, unfenced: false });
  });
});

describe('module refusals: one diagnostic that says what is available', () => {
  it.each([
    ['import', "import fs from 'node:fs';\nreturn fs.readFileSync('x');", /cannot `import`/],
    ['dynamic import', "const m = await import('x');", /cannot `import`/],
    ['export default', 'export default { a: 1 };', /cannot `export`.*`return` the value instead/],
    ['export const', 'const x = 1;\nexport const y = x;', /cannot `export`/],
    ['require', "const fs = require('fs');\nreturn 1;", /`require` is not available/],
    ['require with spaces and a template', 'const fs = require ( `fs` );', /`require`/],
    ['declare module', "declare module 'x' {}", /cannot reference files or declare modules/],
    ['a reference', '/// <reference path="x.d.ts" />\nreturn 1;', /cannot reference files/],
  ])('%s', (_name, program, message) => {
    const d = programRefusal(program);
    expect(d?.message).toMatch(message);
    expect(d?.message).toContain('Call tools through the global `tools` object');
    expect(d?.code).toBeUndefined();
    // The transpiler path (sandbox workers) gives the same single diagnostic, not "unbalanced braces".
    const t = transpileGuarded(program);
    expect(t.ok).toBe(false);
    if (!t.ok) expect(t.diagnostics).toEqual([d]);
  });

  it('points at the offending line', () => {
    expect(programRefusal('const a = 1;\n\nexport { a };')).toMatchObject({ line: 3, column: 1 });
  });

  it.each([
    [
      'a property named require',
      'const o = { require: (s: string) => s };\nreturn o.require("x");',
    ],
    [
      'a local require called with a variable',
      'const require = (x: number) => x;\nreturn require(1);',
    ],
    [
      'import and export as keys',
      'const o = { import: 1, export: 2 };\nreturn o.import + o.export;',
    ],
    ['require in a string', 'return "require(\'fs\')";'],
  ])('allows %s', (_name, program) => {
    expect(programRefusal(program)).toBeUndefined();
  });
});

describe('body rejections', () => {
  it('an early close of the wrapper is still refused as unbalanced braces', () => {
    const t = transpileGuarded('}); evil(); (function () {');
    expect(t.ok).toBe(false);
    if (!t.ok) expect(t.diagnostics[0]?.message).toContain('unbalanced braces');
  });
});
