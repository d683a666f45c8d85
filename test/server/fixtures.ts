/** A runtime with three scopes and gated tools, shared by the server tests. */
import { z } from 'zod';
import { createRuntime, defineTool, type Runtime } from '../../src/index.js';

export const KEY_A = 'key-alpha-0123456789abcdef';
export const KEY_B = 'key-beta-0123456789abcdef';
export const API_KEYS = [
  { key: KEY_A, scope: 'alpha' },
  { key: KEY_B, scope: 'beta' },
];

/** A promise with its resolver. */
export function deferred<T = void>(): { promise: Promise<T>; resolve: (v: T) => void } {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

/** Controls `alpha.wait`: it signals `started`, then waits for `release` or its abort signal. */
export class Gate {
  started = deferred();
  release = deferred<string>();
  /** Resolves with the abort reason when the tool sees its signal abort. */
  aborted = deferred<unknown>();
  sawAbort = false;
}

export interface TestRuntime {
  runtime: Runtime;
  /** The gate the next `alpha.wait` call uses. */
  gate: Gate;
}

/**
 * Scopes: `alpha` (code, `alpha.*`), `beta` (native, `beta.*`), `default` (code, everything).
 * Tools: `alpha.echo`, `alpha.wait` (gated), `beta.secret`.
 */
export async function testRuntime(): Promise<TestRuntime> {
  const state: TestRuntime = { runtime: undefined as unknown as Runtime, gate: new Gate() };
  state.runtime = await createRuntime({
    tools: [
      defineTool({
        name: 'alpha.echo',
        description: 'Echoes a text.',
        input: z.object({ text: z.string() }),
        output: z.object({ text: z.string() }),
        isConcurrencySafe: true,
        execute: ({ text }: { text: string }) => ({ text }),
      }),
      defineTool({
        name: 'alpha.wait',
        description: 'Waits until the test releases it.',
        input: z.object({}),
        output: z.string(),
        execute: (_args: object, ctx) => {
          const gate = state.gate;
          gate.started.resolve();
          return new Promise<string>((resolve, reject) => {
            ctx.signal.addEventListener('abort', () => {
              gate.sawAbort = true;
              gate.aborted.resolve(ctx.signal.reason);
              reject(new Error('aborted'));
            });
            void gate.release.promise.then(resolve);
          });
        },
      }),
      defineTool({
        name: 'beta.secret',
        description: 'Returns the beta secret.',
        input: z.object({}),
        execute: () => 'beta-secret-value',
      }),
    ],
    scopes: {
      default: { mode: 'code' },
      alpha: { mode: 'code', allow: ['alpha.*'] },
      beta: { mode: 'native', allow: ['beta.*'] },
    },
  });
  return state;
}

/** Headers of a JSON request with a key. */
export const jsonHeaders = (key?: string): Record<string, string> => ({
  'content-type': 'application/json',
  ...(key === undefined ? {} : { authorization: `Bearer ${key}` }),
});

/** One parsed server-sent event. */
export interface SseEvent {
  event: string;
  id: string | undefined;
  data: unknown;
}

/** Parses a complete `text/event-stream` body (comments skipped). */
export function parseSse(text: string): SseEvent[] {
  return text
    .split('\n\n')
    .filter((block) => block.trim() !== '' && !block.startsWith(':'))
    .map((block) => {
      const fields = new Map<string, string>();
      for (const line of block.split('\n')) {
        const i = line.indexOf(':');
        if (i <= 0) continue;
        const key = line.slice(0, i);
        const value = line.slice(i + 1).replace(/^ /, '');
        fields.set(key, fields.has(key) ? `${fields.get(key)}\n${value}` : value);
      }
      return {
        event: fields.get('event') ?? 'message',
        id: fields.get('id'),
        data: JSON.parse(fields.get('data') ?? 'null') as unknown,
      };
    });
}
