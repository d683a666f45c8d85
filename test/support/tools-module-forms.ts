/**
 * Every form a tools module takes (the forms docs/config.md lists), for each extension and project
 * type where Node or tsx accepts its syntax: written by test/sources/module-forms.test.ts (from
 * source) and by the pack-and-install test (importing the installed package).
 */

/** The `type` of the nearest package.json. */
export type Project = 'commonjs' | 'module';
export const EXTENSIONS = ['.ts', '.mts', '.cts', '.js', '.mjs', '.cjs'] as const;
export type Extension = (typeof EXTENSIONS)[number];

/** How the array of tools is exported. */
const FORMS = {
  default: { syntax: 'esm', body: (t: string) => `export default [${t}];` },
  named: { syntax: 'esm', body: (t: string) => `export const tools = [${t}];` },
  'default-tools': { syntax: 'esm', body: (t: string) => `export default { tools: [${t}] };` },
  'module-exports': { syntax: 'cjs', body: (t: string) => `module.exports = [${t}];` },
  'module-exports-tools': {
    syntax: 'cjs',
    body: (t: string) => `module.exports = { tools: [${t}] };`,
  },
  'exports-tools': { syntax: 'cjs', body: (t: string) => `exports.tools = [${t}];` },
} as const;
export type Form = keyof typeof FORMS;

/**
 * The module syntaxes a file may use: Node's rule for `.js`/`.mjs`/`.cjs`; tsx compiles `.cts`
 * (and `.ts` in a CommonJS project) to CommonJS, so ESM syntax works there too.
 */
function syntaxes(project: Project, ext: Extension): ('esm' | 'cjs')[] {
  switch (ext) {
    case '.mjs':
    case '.mts':
      return ['esm'];
    case '.cjs':
      return ['cjs'];
    case '.cts':
      return ['esm', 'cjs'];
    case '.ts':
      return project === 'commonjs' ? ['esm', 'cjs'] : ['esm'];
    case '.js':
      return project === 'commonjs' ? ['cjs'] : ['esm'];
  }
}

/** One tools module to write: where, and what its one tool is called. */
export interface ModuleCase {
  project: Project;
  ext: Extension;
  form: Form;
  /** `<project>.<ext>.<form>`: the tool's name, unique across cases. */
  toolName: string;
  file: string;
  /** The module's source; `isocode: true` makes it import `defineTool` from the installed package. */
  source: (options: { isocode: boolean }) => string;
}

/** Every valid (project, extension, form). */
export function moduleCases(): ModuleCase[] {
  const cases: ModuleCase[] = [];
  for (const project of ['commonjs', 'module'] as const)
    for (const ext of EXTENSIONS)
      for (const [form, { syntax, body }] of Object.entries(FORMS) as [
        Form,
        (typeof FORMS)[Form],
      ][]) {
        if (!syntaxes(project, ext).includes(syntax)) continue;
        const toolName = `${project}.${ext.slice(1)}.${form}`;
        const tool = `defineTool({ name: '${toolName}', description: 'A ${form} tool.', input: { type: 'object' }, execute: () => '${toolName}' })`;
        cases.push({
          project,
          ext,
          form,
          toolName,
          file: `${form}${ext}`,
          source: ({ isocode }) => {
            const head = !isocode
              ? 'const defineTool = (t) => t;'
              : syntax === 'esm'
                ? "import { defineTool } from 'isocode';"
                : "const { defineTool } = require('isocode');";
            return `${head}\n${body(tool)}\n`;
          },
        });
      }
  return cases;
}
