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

/**
 * Tools that record when their calls start and end (by `id`) and the peak overlap. A call holds for
 * `hold`: a number of milliseconds, or until a promise settles.
 */
export function concurrencyProbe() {
  let running = 0;
  let peak = 0;
  const order: string[] = [];
  const make = (name: string, safe: boolean, hold: number | Promise<unknown> = 15) =>
    defineTool({
      name,
      description: '',
      input: { type: 'object', properties: { id: { type: 'string' } } },
      isConcurrencySafe: safe,
      execute: async (a: { id?: string }) => {
        running++;
        peak = Math.max(peak, running);
        order.push(`start:${a.id ?? name}`);
        await (typeof hold === 'number' ? new Promise((r) => setTimeout(r, hold)) : hold);
        order.push(`end:${a.id ?? name}`);
        running--;
        return a.id ?? name;
      },
    });
  return { make, order, peak: () => peak };
}
