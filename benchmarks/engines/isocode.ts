/**
 * The isocode engine: `run_code` through the public API of the built package (`dist/index.js`).
 * Loaded dynamically, so the benchmarks run (with baselines only) when it is unavailable; every shape
 * it relies on is checked at load time.
 *
 * Expected API (see the benchmark issue):
 *   createRuntime({ tools, scopes, codeMode: { typecheck } }) → { execute(call, { scope }), stats?(), close() }
 *   execute({ name: 'run_code', args: { code, description } }, { scope: 'default' })
 *     → { ok: true, value: { result, logs, calls, timings? }, meta?: { timings? } }
 *     | { ok: false, error: { code, message } }
 * Stage timings are read from `meta.timings` or `value.timings`, whichever is present.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { catalogTools } from '../lib/checkout.js';
import type { BenchCatalog, Engine, RunOutcome, StageTimings } from './types.js';

/** The part of isocode's runtime the benchmarks use. */
interface IsocodeRuntime {
  execute(call: { name: string; args: unknown }, options: { scope: string }): Promise<unknown>;
  stats?: () => unknown;
  close(): Promise<void>;
}

interface IsocodeModule {
  createRuntime: (options: Record<string, unknown>) => Promise<IsocodeRuntime>;
  defineTool: (definition: Record<string, unknown>) => unknown;
}

/** The scope programs run in (code mode: only run_code is model-callable). */
export const CODE_SCOPE = 'default';
/** A native-mode scope for the direct-call floor of scenario 1. */
export const DIRECT_SCOPE = 'direct';

let loaded: Promise<IsocodeModule | string> | undefined;

/** The newest modification time of the files below `dir` (0 when it does not exist). */
function newest(dir: string): number {
  let latest = 0;
  if (!existsSync(dir)) return latest;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    latest = Math.max(latest, statSync(join(entry.parentPath, entry.name)).mtimeMs);
  }
  return latest;
}

/**
 * Loads the built package (`dist/index.js`), what a user installs: its sandbox workers run
 * `dist/sandbox-worker.js` as they do in production, not TypeScript sources compiled on the fly by tsx
 * (decision 006). Resolves to the module, or to the reason it is unavailable: no build, or a build older
 * than `src/` or `sdk-templates/` (`npm run bench` builds first).
 */
export function loadIsocode(): Promise<IsocodeModule | string> {
  loaded ??= (async () => {
    const root = fileURLToPath(new URL('../../', import.meta.url));
    const entry = join(root, 'dist/index.js');
    if (!existsSync(entry))
      return 'isocode engine unavailable: dist/index.js is missing (build with `npm run build`)';
    const built = statSync(entry).mtimeMs;
    if (Math.max(newest(join(root, 'src')), newest(join(root, 'sdk-templates'))) > built)
      return 'isocode engine unavailable: dist/ is older than src/ (build with `npm run build`; `npm run bench` does)';
    let mod: Record<string, unknown>;
    try {
      mod = (await import(pathToFileURL(entry).href)) as Record<string, unknown>;
    } catch (error) {
      return `isocode engine unavailable: importing dist/index.js failed (${error instanceof Error ? error.message : String(error)})`;
    }
    if (typeof mod.createRuntime !== 'function' || typeof mod.defineTool !== 'function') {
      return 'isocode engine unavailable: dist/index.js does not export createRuntime and defineTool';
    }
    return mod as unknown as IsocodeModule;
  })();
  return loaded;
}

function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null
    ? (value as Record<string, unknown>)
    : undefined;
}

const TIMING_KEYS = [
  'typecheckMs',
  'transpileMs',
  'isolateMs',
  'runMs',
  'settleMs',
  'cpuMs',
  'totalMs',
] as const;

function readTimings(meta: unknown, value: unknown): StageTimings | undefined {
  const timings = record(record(meta)?.timings) ?? record(record(value)?.timings);
  if (timings === undefined) return undefined;
  const out: StageTimings = {};
  for (const key of TIMING_KEYS) {
    const value = timings[key];
    if (typeof value === 'number') out[key] = value;
  }
  return out;
}

function toOutcome(raw: unknown, pick: (value: unknown) => unknown): RunOutcome {
  const out = record(raw);
  if (out === undefined) return { ok: false, error: 'execute returned a non-object' };
  const timings = readTimings(out.meta, out.value);
  if (out.ok === true) {
    return timings === undefined
      ? { ok: true, result: pick(out.value) }
      : { ok: true, result: pick(out.value), timings };
  }
  const error = record(out.error);
  const text = (value: unknown, fallback: string): string =>
    typeof value === 'string' ? value : value === undefined ? fallback : JSON.stringify(value);
  const message = `${text(error?.code, 'ERROR')}: ${text(error?.message, 'run failed')}`;
  return timings === undefined
    ? { ok: false, error: message }
    : { ok: false, error: message, timings };
}

let probed: Promise<string | undefined> | undefined;

/**
 * Resolves to why the isocode engine cannot run here, or `undefined` when it can: the module
 * must load and a runtime must answer a trivial run_code. While run_code is not registered
 * (the runtime under construction) the answer is UNKNOWN_TOOL, reported as unavailable;
 * any other failure is left to the self-check, which fails loudly.
 */
export function probeIsocode(): Promise<string | undefined> {
  probed ??= (async () => {
    const mod = await loadIsocode();
    if (typeof mod === 'string') return mod;
    let runtime: IsocodeRuntime | undefined;
    try {
      const tool = mod.defineTool({
        name: 'probe.echo',
        description: 'Echoes.',
        input: { type: 'object', properties: {}, additionalProperties: false },
        execute: () => ({}),
      });
      runtime = await mod.createRuntime({
        tools: [tool],
        scopes: { [CODE_SCOPE]: { mode: 'code' } },
        codeMode: { typecheck: 'off' },
      });
      const raw = await runtime.execute(
        { name: 'run_code', args: { code: 'return 1;', description: 'probe' } },
        { scope: CODE_SCOPE },
      );
      const error = record(record(raw)?.error);
      if (error?.code === 'UNKNOWN_TOOL') {
        return `isocode engine unavailable: the runtime does not register run_code yet (${String(error.message)})`;
      }
      return undefined;
    } catch (error) {
      // Left to the self-check, which reports it as a failure.
      void error;
      return undefined;
    } finally {
      await runtime?.close().catch(() => undefined);
    }
  })();
  return probed;
}

/** Flattens numeric leaves of a stats object: `{ isolates: { alive: 1 } }` → `{ 'isolates.alive': 1 }`. */
export function flattenStats(
  value: unknown,
  prefix = '',
  into: Record<string, number> = {},
): Record<string, number> {
  const obj = record(value);
  if (obj === undefined) return into;
  for (const [key, child] of Object.entries(obj)) {
    const path = prefix === '' ? key : `${prefix}.${key}`;
    if (typeof child === 'number' && Number.isFinite(child)) into[path] = child;
    else if (record(child) !== undefined && !Array.isArray(child) && path.split('.').length < 4)
      flattenStats(child, path, into);
  }
  return into;
}

/**
 * Creates an isocode engine; `typecheck` selects `'error'` or `'off'`, `sandbox` where isolates
 * run (worker processes by default; `in-process` measures what the process boundary costs).
 */
export async function createIsocodeEngine(
  typecheck: boolean,
  sandbox: 'process' | 'in-process' = 'process',
): Promise<Engine> {
  const mod = await loadIsocode();
  if (typeof mod === 'string') throw new Error(mod);
  let runtime: IsocodeRuntime | undefined;
  const name =
    sandbox === 'in-process' ? 'isocode-inprocess' : typecheck ? 'isocode' : 'isocode-nocheck';
  const need = (): IsocodeRuntime => {
    if (runtime === undefined) throw new Error(`${name} used before setup`);
    return runtime;
  };
  return {
    name,
    async setup(catalog: BenchCatalog) {
      const tools = catalogTools(mod, catalog);
      runtime = await mod.createRuntime({
        tools,
        scopes: { [CODE_SCOPE]: { mode: 'code' }, [DIRECT_SCOPE]: { mode: 'native' } },
        codeMode: {
          typecheck: typecheck ? 'error' : 'off',
          sandbox,
          // One scope serves the whole load here: let it use every slot, and queue the rest.
          admission: {
            maxConcurrentRunsPerScope: 64,
            maxQueuedRunsPerScope: 1024,
            maxQueuedRuns: 1024,
          },
        },
      });
    },
    async runProgram(programTs: string) {
      const raw = await need().execute(
        { name: 'run_code', args: { code: programTs, description: 'bench' } },
        { scope: CODE_SCOPE },
      );
      return toOutcome(raw, (value) => record(value)?.result);
    },
    async callDirect(toolName, args) {
      return toOutcome(
        await need().execute({ name: toolName, args }, { scope: DIRECT_SCOPE }),
        (value) => value,
      );
    },
    stats() {
      return flattenStats(runtime?.stats?.());
    },
    async close() {
      const rt = runtime;
      runtime = undefined;
      await rt?.close();
    },
  };
}
