/**
 * isocode as the A/B scripts load it (`nested-ab.ts`, `warm-ab.ts`): the public API of a checkout's
 * sources, typed only as far as they use it, and the benchmark catalog as its tool definitions (the
 * isocode engine defines them the same way).
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { BenchCatalog } from '../engines/types.js';

/** The part of a runtime the A/B scripts call. */
export interface CheckoutRuntime {
  execute(
    call: unknown,
    options: { scope: string },
  ): Promise<{ ok: boolean; error?: { code?: string; message?: string } }>;
  close(): Promise<void>;
}

/** The part of isocode's module the A/B scripts call. */
export interface CheckoutModule {
  defineTool(definition: Record<string, unknown>): unknown;
  createRuntime(options: unknown): Promise<CheckoutRuntime>;
}

/**
 * Imports `src/index.ts` of the checkout at `root` (run under tsx; its sandbox workers run from
 * sources too), or with `built` its `dist/index.js` (what a user installs: build it first).
 */
export async function importCheckout(root: string, built = false): Promise<CheckoutModule> {
  const entry = built ? 'dist/index.js' : 'src/index.ts';
  return (await import(pathToFileURL(resolve(root, entry)).href)) as CheckoutModule;
}

/** The catalog's tools as `defineTool` definitions of `mod`. */
export function catalogTools(
  mod: { defineTool(definition: Record<string, unknown>): unknown },
  catalog: BenchCatalog,
): unknown[] {
  return catalog.tools.map((tool) =>
    mod.defineTool({
      name: tool.name,
      description: tool.description,
      input: tool.input,
      output: tool.output,
      isConcurrencySafe: tool.isConcurrencySafe,
      execute: (args: unknown) =>
        tool.execute(
          typeof args === 'object' && args !== null ? (args as Record<string, unknown>) : {},
        ),
    }),
  );
}
