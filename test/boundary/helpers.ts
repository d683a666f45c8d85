/** Shared pieces of the boundary tests: a runtime with two tenants, a gate tool, result readers. */
import { z } from 'zod';
import {
  createRuntime,
  defineTool,
  type Runtime,
  type RuntimeOptions,
  type ToolResult,
} from '../../src/index.js';

/** A tool whose calls wait until `open()` (for runs that must stay in flight). */
export function gate(): {
  tool: ReturnType<typeof defineTool>;
  open: () => void;
  entered: () => number;
} {
  let release: () => void = () => {};
  let opened = new Promise<void>((resolve) => (release = resolve));
  let count = 0;
  return {
    tool: defineTool({
      name: 'wait',
      description: 'Waits until the test opens the gate.',
      input: z.object({}),
      isConcurrencySafe: true,
      execute: async () => {
        count++;
        await opened;
        return 'opened';
      },
    }),
    open: () => {
      release();
      opened = Promise.resolve();
    },
    entered: () => count,
  };
}

export const echo = defineTool({
  name: 'echo',
  description: 'Echoes its input.',
  input: z.object({ v: z.unknown() }),
  isConcurrencySafe: true,
  execute: (a: { v: unknown }) => a.v ?? null,
});

/** A runtime with scopes `a` and `b` in code mode. */
export function tenants(
  codeMode: NonNullable<Exclude<RuntimeOptions['codeMode'], false>>,
  tools: ReturnType<typeof defineTool>[] = [echo],
): Promise<Runtime> {
  return createRuntime({
    tools,
    scopes: { a: { mode: 'code' }, b: { mode: 'code' } },
    codeMode,
  });
}

export function runIn(rt: Runtime, scope: string, code: string): Promise<ToolResult> {
  return rt.execute({ name: 'run_code', args: { code, description: 'boundary test' } }, { scope });
}

export const kind = (r: ToolResult): string | undefined =>
  r.ok ? undefined : (r.error.details as { kind?: string } | undefined)?.kind;

export const value = (r: ToolResult): unknown =>
  r.ok ? (r.value as { result: unknown }).result : `${r.error.code}: ${r.error.message}`;

/** A benign run of `scope` that must succeed. */
export async function benign(rt: Runtime, scope: string): Promise<unknown> {
  return value(await runIn(rt, scope, `return await tools.echo({ v: ${JSON.stringify(scope)} });`));
}
