/**
 * Every engine the benchmarks know, in report order. Modules load lazily in `create` so a
 * cold-start child process only loads the engine it measures.
 */
import { probeIsocode } from './isocode.js';
import type { EngineFactory } from './types.js';

const always = (): Promise<string | undefined> => Promise.resolve(undefined);
const isocodeProbe = probeIsocode;

/** All engines: isocode (typecheck on, off) then the baselines. */
export const ENGINE_FACTORIES: readonly EngineFactory[] = [
  {
    name: 'isocode',
    kind: 'isocode',
    typecheck: true,
    description:
      'isocode run_code: native TypeScript check, oxc transpile, isolated-vm isolate (typecheck: error)',
    probe: isocodeProbe,
    create: async () => (await import('./isocode.js')).createIsocodeEngine(true),
  },
  {
    name: 'isocode-nocheck',
    kind: 'isocode',
    typecheck: false,
    description: 'isocode run_code with typecheck: off (like for like with the baselines)',
    probe: isocodeProbe,
    create: async () => (await import('./isocode.js')).createIsocodeEngine(false),
  },
  {
    name: 'isocode-inprocess',
    kind: 'isocode',
    typecheck: false,
    description:
      'isocode with typecheck: off and isolates in the host process (sandbox: in-process, not crash-safe): the cost of the process boundary, side by side',
    probe: isocodeProbe,
    create: async () => (await import('./isocode.js')).createIsocodeEngine(false, 'in-process'),
  },
  {
    name: 'worker-thread',
    kind: 'baseline',
    typecheck: false,
    description:
      'seed-harness approach: oxc strip, fresh worker_threads Worker per run, tool calls as postMessage round trips',
    probe: always,
    create: async () => (await import('../baselines/worker-thread.js')).createWorkerThreadEngine(),
  },
  {
    name: 'node-vm',
    kind: 'baseline',
    typecheck: false,
    description:
      'node:vm floor: oxc strip, fresh vm.createContext per run, tools as direct host async functions, no isolation',
    probe: always,
    create: async () => (await import('../baselines/node-vm.js')).createNodeVmEngine(),
  },
  {
    name: 'run',
    kind: 'baseline',
    typecheck: false,
    description:
      '`run` npm package: QuickJS in WASM, fresh context per run in pooled workers, host functions over a serialized bridge',
    probe: async () => {
      try {
        await import('run');
        return undefined;
      } catch (error) {
        return `run package unavailable: ${error instanceof Error ? error.message : String(error)}`;
      }
    },
    create: async () => (await import('../baselines/run-quickjs.js')).createRunEngine(),
  },

  {
    name: 'workerd',
    kind: 'baseline',
    typecheck: false,
    description:
      "Cloudflare's workerd (miniflare) as @cloudflare/codemode runs programs: oxc strip, a fresh dynamic Worker (Worker Loader isolate) per run, tool calls over RPC to the host Worker, then a service binding to these tools",
    probe: async () => (await import('../baselines/workerd.js')).probeWorkerd(),
    create: async () => (await import('../baselines/workerd.js')).createWorkerdEngine(),
  },
];

/** The factory called `name`, if any. */
export function findEngine(name: string): EngineFactory | undefined {
  return ENGINE_FACTORIES.find((factory) => factory.name === name);
}
