/**
 * Baseline (b): `node:vm`, the floor for "just run JS". Types are stripped with
 * oxc-transform, each run gets a fresh `vm.createContext`, and tools are direct host async
 * functions (no copying, no isolation: `node:vm` is not a security boundary).
 */
import { Script, createContext } from 'node:vm';
import type { BenchCatalog, BenchTool, Engine, RunOutcome } from '../engines/types.js';
import {
  MAKE_CONSOLE_JS,
  PROGRAM_FUNCTION,
  compileProgram,
  deepFreeze,
  makeHostTools,
  toolTable,
} from './program-js.js';

/** Creates the node:vm baseline engine. */
export function createNodeVmEngine(): Engine {
  let tools = new Map<string, BenchTool>();
  let hostTools: Record<string, unknown> = {};

  const call = async (name: string, args: unknown): Promise<unknown> => {
    const tool = tools.get(name);
    if (tool === undefined) throw new Error(`unknown tool ${name}`);
    await Promise.resolve();
    return tool.execute(
      typeof args === 'object' && args !== null ? (args as Record<string, unknown>) : {},
    );
  };

  return {
    name: 'node-vm',
    setup(catalog: BenchCatalog) {
      tools = toolTable(catalog.tools);
      hostTools = deepFreeze(
        makeHostTools(
          catalog.tools.map((tool) => tool.name),
          call,
        ),
      );
      return Promise.resolve();
    },
    async runProgram(programTs: string): Promise<RunOutcome> {
      try {
        const js = compileProgram(programTs);
        const context = createContext({ tools: hostTools, __logs: [] as string[] });
        const script = new Script(
          `${MAKE_CONSOLE_JS}\n${js}\n${PROGRAM_FUNCTION}(tools, __makeConsole(__logs));`,
          {
            filename: 'program.js',
          },
        );
        const result: unknown = await (script.runInContext(context) as Promise<unknown>);
        return { ok: true, result };
      } catch (error) {
        return { ok: false, error: error instanceof Error ? error.message : String(error) };
      }
    },
    async callDirect(name, args) {
      return { ok: true, result: await call(name, args) };
    },
    close() {
      return Promise.resolve();
    },
  };
}
