/**
 * Baseline (e): Cloudflare's runtime, the way `@cloudflare/codemode`'s DynamicWorkerExecutor runs
 * a program. workerd (through miniflare) hosts one host Worker; each run loads the program as a
 * fresh dynamic Worker (the Worker Loader binding, a new isolate per run id, no outbound network)
 * and calls its `evaluate(dispatcher)` entrypoint over RPC. Tool calls go back over RPC to the host
 * Worker's dispatcher (an RpcTarget), which reaches the tools in this Node process through a
 * service binding. Types are stripped with oxc-transform, as for the other baselines.
 */
import type { BenchCatalog, BenchTool, Engine, RunOutcome } from '../engines/types.js';
import {
  MAKE_CONSOLE_JS,
  MAKE_TOOLS_JS,
  PROGRAM_FUNCTION,
  compileProgram,
  toolTable,
} from './program-js.js';

/** The compatibility date the host and every dynamic Worker run with. */
export const WORKERD_COMPATIBILITY_DATE = '2025-06-01';

/** The host Worker: one dynamic Worker per request, tool calls back to Node via `TOOLS`. */
const HOST_WORKER = `
import { RpcTarget } from 'cloudflare:workers';
class ToolDispatcher extends RpcTarget {
  constructor(env) { super(); this.env = env; }
  async call(name, args) {
    const response = await this.env.TOOLS.fetch('http://tools/call', {
      method: 'POST',
      body: JSON.stringify({ name, args }),
    });
    const reply = await response.json();
    if (reply.error !== undefined) throw new Error(reply.error);
    return reply.value;
  }
}
export default {
  async fetch(request, env) {
    const { code, names } = await request.json();
    const source = "import { WorkerEntrypoint } from 'cloudflare:workers';\\n" + code +
      "\\nconst NAMES = " + JSON.stringify(names) + ";\\n" +
      "export default class extends WorkerEntrypoint {\\n" +
      "  async evaluate(dispatcher) {\\n" +
      "    const logs = [];\\n" +
      "    const tools = __makeTools(NAMES, (name, args) => dispatcher.call(name, args));\\n" +
      "    try { return { ok: true, result: await ${PROGRAM_FUNCTION}(tools, __makeConsole(logs)), logs }; }\\n" +
      "    catch (e) { return { ok: false, error: String(e && e.message || e), logs }; }\\n" +
      "  }\\n}\\n";
    const worker = env.LOADER.get(crypto.randomUUID(), () => ({
      compatibilityDate: '${WORKERD_COMPATIBILITY_DATE}',
      mainModule: 'program.js',
      modules: { 'program.js': source },
      globalOutbound: null,
    }));
    const dispatcher = new ToolDispatcher(env);
    try {
      return Response.json(await worker.getEntrypoint().evaluate(dispatcher));
    } finally {
      dispatcher[Symbol.dispose]?.();
    }
  },
};`;

interface MiniflareLike {
  ready: Promise<unknown>;
  dispatchFetch(
    url: string,
    init: { method: string; body: string },
  ): Promise<{ text(): Promise<string> }>;
  dispose(): Promise<void>;
}

/** Whether workerd can run here: resolves to a reason when it cannot. */
export async function probeWorkerd(): Promise<string | undefined> {
  try {
    await import('miniflare');
    return undefined;
  } catch (error) {
    return `miniflare/workerd unavailable: ${error instanceof Error ? error.message : String(error)}`;
  }
}

/** Creates the workerd baseline engine. */
export function createWorkerdEngine(): Engine {
  let tools = new Map<string, BenchTool>();
  let names: string[] = [];
  let mf: MiniflareLike | undefined;
  const call = async (name: string, args: unknown): Promise<unknown> => {
    const tool = tools.get(name);
    if (tool === undefined) throw new Error(`unknown tool ${name}`);
    await Promise.resolve();
    return tool.execute(
      typeof args === 'object' && args !== null ? (args as Record<string, unknown>) : {},
    );
  };
  return {
    name: 'workerd',
    async setup(catalog: BenchCatalog) {
      tools = toolTable(catalog.tools);
      names = catalog.tools.map((tool) => tool.name);
      const { Miniflare, Response } = await import('miniflare');
      const instance = new Miniflare({
        modules: true,
        script: HOST_WORKER,
        compatibilityDate: WORKERD_COMPATIBILITY_DATE,
        workerLoaders: { LOADER: {} },
        serviceBindings: {
          TOOLS: async (request: { json(): Promise<unknown> }) => {
            try {
              const { name, args } = (await request.json()) as { name: string; args: unknown };
              return new Response(JSON.stringify({ value: await call(name, args) }));
            } catch (error) {
              return new Response(
                JSON.stringify({ error: error instanceof Error ? error.message : String(error) }),
              );
            }
          },
        },
      });
      mf = instance;
      await mf.ready;
    },
    async runProgram(programTs: string): Promise<RunOutcome> {
      if (mf === undefined) return { ok: false, error: 'workerd engine not set up' };
      try {
        const code = `${MAKE_TOOLS_JS}\n${MAKE_CONSOLE_JS}\n${compileProgram(programTs)}`;
        const response = await mf.dispatchFetch('http://host/run', {
          method: 'POST',
          body: JSON.stringify({ code, names }),
        });
        const reply = JSON.parse(await response.text()) as {
          ok: boolean;
          result?: unknown;
          error?: string;
        };
        return reply.ok
          ? { ok: true, result: reply.result }
          : { ok: false, error: reply.error ?? 'the program failed' };
      } catch (error) {
        return { ok: false, error: error instanceof Error ? error.message : String(error) };
      }
    },
    async callDirect(name, args) {
      return { ok: true, result: await call(name, args) };
    },
    async close() {
      const instance = mf;
      mf = undefined;
      await instance?.dispose();
    },
  };
}
