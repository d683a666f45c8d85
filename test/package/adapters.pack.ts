/**
 * The framework adapters as published: pack the built package, install the tarball into a fresh
 * app with no framework, check that the root entry loads and an adapter entry says which package
 * it misses, then install the three frameworks (the exact versions the repository tests) and run
 * each shipped example (examples/adapters/) and each entry from CommonJS. Needs `npm run build`
 * first, and the registry.
 */
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appTsBlocks, linkFromRepo, typecheckBlocks } from './doc-snippets.js';
import { must, ROOT, run } from './helpers.js';

const ENTRIES = ['isocode/ai', 'isocode/openai-agents', 'isocode/langchain'];

let tmp: string;
let app: string;

beforeAll(() => {
  if (!existsSync(join(ROOT, 'dist', 'ai.cjs')))
    throw new Error('dist/ is missing or stale: run `npm run build` before the package test');
  tmp = mkdtempSync(join(tmpdir(), 'isocode-adapters-'));
  const packed = must('npm', ['pack', '--ignore-scripts', '--pack-destination', tmp], ROOT);
  const tarball = join(tmp, packed.stdout.trim().split('\n').pop() ?? '');
  app = join(tmp, 'app');
  mkdirSync(app);
  writeFileSync(
    join(app, 'package.json'),
    '{ "name": "app", "version": "1.0.0", "private": true }\n',
  );
  must('npm', ['install', '--no-audit', '--no-fund', tarball], app, 900_000);
});

afterAll(() => {
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

describe('adapters from the tarball', () => {
  it('without a framework: the root entry loads, an adapter entry names the missing package', () => {
    expect(must('node', ['-e', "require('isocode')"], app).status).toBe(0);
    const missing = run('node', ['--input-type=module', '-e', "await import('isocode/ai')"], app);
    expect(missing.status).not.toBe(0);
    expect(missing.stderr).toMatch(/Cannot find (package|module) 'ai'/);
  });

  it('with the frameworks: every shipped example runs, every entry loads from ESM and CommonJS', () => {
    const dev = (
      JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
        devDependencies: Record<string, string>;
      }
    ).devDependencies;
    const frameworks = ['ai', '@openai/agents', '@langchain/core'].map((p) => `${p}@${dev[p]}`);
    // tsx runs the TypeScript examples (an optional peer of isocode's, decision 038).
    must('npm', ['install', '--no-audit', '--no-fund', ...frameworks, 'zod', 'tsx'], app, 900_000);
    for (const example of ['ai-sdk', 'openai-agents', 'langchain']) {
      // Copied into the app, as a user starting from it would.
      const file = join(app, `${example}.mts`);
      copyFileSync(join(app, 'node_modules/isocode/examples/adapters', `${example}.ts`), file);
      const out = must('node', ['--no-node-snapshot', '--import', 'tsx', file], app);
      expect(out.stdout).toContain('Warmest: Nairobi');
    }
    const esm = `${ENTRIES.map((s, i) => `import * as m${i} from '${s}';`).join('\n')}
console.log([${ENTRIES.map((_, i) => `Object.keys(m${i}).length`).join(', ')}].join(' '));`;
    const cjs = `console.log(${JSON.stringify(ENTRIES)}.map((s) => Object.keys(require(s)).length).join(' '))`;
    for (const out of [
      must('node', ['--input-type=module', '-e', esm], app),
      must('node', ['-e', cjs], app),
    ])
      for (const n of out.stdout.trim().split(' ')) expect(Number(n)).toBeGreaterThan(2);
  });

  // The docs' blocks that import a framework (test/package/doc-snippets.ts): each needs a model or
  // an API key, so they are type-checked against the installed package and frameworks, not run.
  it('every doc block that uses a framework type-checks against the installed package', () => {
    const esm = join(app, 'esm');
    mkdirSync(esm, { recursive: true });
    writeFileSync(join(esm, 'package.json'), '{ "type": "module" }\n');
    linkFromRepo(app, ['@types/node']);
    const blocks = appTsBlocks(true);
    expect(blocks.length).toBeGreaterThan(2);
    expect(typecheckBlocks(esm, blocks).problems).toEqual([]);
  });
});
