import { z } from 'zod';
import {
  createRuntime,
  defineTool,
  type RuntimeOptions,
  type ToolDefinition,
} from '../../src/index.js';
import { scriptedRunner, type ScriptApi } from '../../src/testing.js';

/** A recorder of who was called, in order. */
export function recorder() {
  const seen: string[] = [];
  return { seen, mark: (what: string) => seen.push(what) };
}

export const echo = defineTool({
  name: 'echo',
  description: 'Echoes its text.',
  input: z.object({ text: z.string() }),
  output: z.object({ text: z.string() }),
  isConcurrencySafe: true,
  execute: ({ text }: { text: string }) => ({ text }),
});

export const writeFile = defineTool({
  name: 'fs.write',
  description: 'Writes (fake).',
  input: {
    type: 'object',
    properties: { path: { type: 'string' } },
    required: ['path'],
    additionalProperties: false,
  },
  execute: (args: { path: string }) => ({ wrote: args.path }),
});

export function deferred<T = void>() {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** A runtime in code mode whose run_code runs `script` (a scripted runner). */
export function codeRuntime(
  script: (api: ScriptApi) => unknown,
  tools: ToolDefinition[] = [echo, writeFile],
  extra: RuntimeOptions = {},
) {
  return createRuntime({
    tools,
    scopes: { default: { mode: 'code' } },
    codeMode: { runner: scriptedRunner(script) },
    ...extra,
  });
}

export const run = (description = 'test run') => ({
  name: 'run_code',
  args: { code: 'return 1', description },
});
