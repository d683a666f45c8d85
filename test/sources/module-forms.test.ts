/**
 * Tools modules in every form (default export, named `tools`, `{ tools }` default, `module.exports`
 * arrays and objects, `exports.tools`), every extension, in a CommonJS and an ES module project.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadModuleTools } from '../../src/sources/index.js';
import { moduleCases, type Project } from '../support/tools-module-forms.js';

const cases = moduleCases();
let tmp: string;
const dir = (project: Project): string => join(tmp, project);

beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), 'isocode-forms-'));
  for (const project of ['commonjs', 'module'] as const) {
    mkdirSync(dir(project));
    writeFileSync(join(dir(project), 'package.json'), JSON.stringify({ type: project }));
  }
  for (const c of cases) writeFileSync(join(dir(c.project), c.file), c.source({ isocode: false }));
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('tools modules in every form', () => {
  it('cover every extension in both project types', () => {
    expect(cases.length).toBe(45);
    expect(new Set(cases.map((c) => `${c.project}${c.ext}`)).size).toBe(12);
  });

  it.each(cases.map((c) => [c.toolName, c] as const))('loads %s', async (_name, c) => {
    const tools = await loadModuleTools(join(dir(c.project), c.file));
    expect(tools.map((t) => t.name)).toEqual([c.toolName]);
    expect(await tools[0]?.execute({}, {} as never)).toBe(c.toolName);
  });
});
