/**
 * Baseline (c): the `run` npm package (QuickJS compiled to WASM, a fresh QuickJS context per
 * run inside a pooled worker thread; host functions cross a serialized bridge). Types are
 * stripped with oxc-transform first, as for the other baselines (`run` would otherwise
 * need the TypeScript peer on Node 20). Tools are one host function `__bench.call(name,
 * args)` behind the same nested `tools` object the other engines give programs.
 *
 * Limits raised from `run`'s defaults so the dispatch and scale scenarios fit: 256 bridge
 * requests per run would stop the 1000-call programs.
 */
import { createRunner } from 'run';
import type { Runner } from 'run';
import type { BenchCatalog, BenchTool, Engine, RunOutcome } from '../engines/types.js';
import {
  MAKE_CONSOLE_JS,
  MAKE_TOOLS_JS,
  PROGRAM_FUNCTION,
  compileProgram,
  toolTable,
} from './program-js.js';

/** Creates the `run` (QuickJS) baseline engine. */
export function createRunEngine(): Engine {
  let tools = new Map<string, BenchTool>();
  let prelude = '';
  let runner: Runner | undefined;

  const call = async (name: string, args: unknown): Promise<unknown> => {
    const tool = tools.get(name);
    if (tool === undefined) throw new Error(`unknown tool ${name}`);
    await Promise.resolve();
    return tool.execute(
      typeof args === 'object' && args !== null ? (args as Record<string, unknown>) : {},
    );
  };
  const hostFunctions = { __bench: { call } };

  return {
    name: 'run',
    setup(catalog: BenchCatalog) {
      tools = toolTable(catalog.tools);
      const names = JSON.stringify(catalog.tools.map((tool) => tool.name));
      prelude = `${MAKE_TOOLS_JS}\n${MAKE_CONSOLE_JS}\nconst __tools = __makeTools(${names}, (name, args) => __bench.call(name, args));\n`;
      runner = createRunner({
        limits: { timeoutMs: 30_000, maxBridgeRequests: 100_000, maxInFlightBridgeRequests: 256 },
      });
      return Promise.resolve();
    },
    async runProgram(programTs: string): Promise<RunOutcome> {
      if (runner === undefined) return { ok: false, error: 'run engine used before setup' };
      try {
        const js = compileProgram(programTs);
        const source = `${prelude}${js}\nreturn await ${PROGRAM_FUNCTION}(__tools, __makeConsole([]));`;
        const out = await runner.run({ source, hostFunctions });
        if (out.status !== 'completed')
          return { ok: false, error: `run ended with status ${out.status}` };
        return { ok: true, result: out.value };
      } catch (error) {
        return { ok: false, error: error instanceof Error ? error.message : String(error) };
      }
    },
    async callDirect(name, args) {
      return { ok: true, result: await call(name, args) };
    },
    close() {
      runner = undefined;
      return Promise.resolve();
    },
  };
}
