/**
 * Modules a process does not use are not loaded (issue 14: a one-shot CLI that feels instant): ajv
 * and ajv-formats load on the first JSON Schema compiled, so zod-only tools (the CLI's demo tools)
 * never pay for them. Checked in a fresh child process, whose module cache is its own.
 */
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..');
const TSX = pathToFileURL(createRequire(join(ROOT, 'package.json')).resolve('tsx')).href;
const INDEX = pathToFileURL(join(ROOT, 'src/index.ts')).href;

const SCRIPT = `
import { createRequire } from 'node:module';
import { z } from 'zod';
const { createRuntime, defineTool } = await import(${JSON.stringify(INDEX)});
const cache = createRequire(import.meta.url).cache;
const ajvLoaded = () => Object.keys(cache).some((k) => /[\\\\/]node_modules[\\\\/]ajv(-formats)?[\\\\/]/.test(k));
const out = {};
const zodTool = defineTool({ name: 'echo', description: 'echo', input: z.object({ s: z.string() }), execute: ({ s }) => ({ s }) });
const a = await createRuntime({ tools: [zodTool], codeMode: false });
out.zodCall = (await a.execute({ name: 'echo', args: { s: 'x' } })).ok;
out.afterZod = ajvLoaded();
const jsonTool = defineTool({ name: 'count', description: 'count', input: { type: 'object', properties: { n: { type: 'integer', minimum: 1 } }, required: ['n'] }, execute: ({ n }) => ({ n }) });
const b = await createRuntime({ tools: [jsonTool], codeMode: false });
const bad = await b.execute({ name: 'count', args: { n: 0 } });
out.jsonRefused = bad.ok ? 'accepted' : bad.error.code;
out.afterJson = ajvLoaded();
await a.close(); await b.close();
console.log(JSON.stringify(out));
`;

describe('lazy modules', () => {
  it('ajv loads on the first JSON Schema tool, not for zod-only tools', () => {
    const stdout = execFileSync(
      process.execPath,
      ['--import', TSX, '--input-type=module', '-e', SCRIPT],
      { cwd: ROOT, encoding: 'utf8', timeout: 60_000 },
    );
    expect(JSON.parse(stdout.trim().split('\n').pop() ?? '{}')).toEqual({
      zodCall: true,
      afterZod: false,
      jsonRefused: 'INVALID_ARGS',
      afterJson: true,
    });
  });
});
