/**
 * A two-tenant `isocode serve` (or `isocode mcp --http`) process for the load, fault and hostile
 * suites, started from source (no build needed), and small helpers to read its answers.
 */
import type { RunReply } from '../../benchmarks/load/client.js';
import { startFace, type FaceProcess } from '../../benchmarks/load/server.js';
import {
  writeTenantConfig,
  type TenantConfigOptions,
  type TenantSetup,
} from '../../benchmarks/load/tenants.js';

/** A running face over a fresh two-tenant config. */
export interface TenantFace {
  setup: TenantSetup;
  server: FaceProcess;
  /** Stops the process (SIGTERM, SIGKILL after `graceMs`) and removes the config directory. */
  close(graceMs?: number): Promise<void>;
}

/** Starts `isocode serve` (default) or `isocode mcp --http 0` from source over a two-tenant config. */
export async function startTenantFace(
  options: TenantConfigOptions & { face?: 'serve' | 'mcp' } = {},
): Promise<TenantFace> {
  const setup = writeTenantConfig(options);
  const args =
    options.face === 'mcp'
      ? ['mcp', '--config', setup.configPath, '--http', '0']
      : ['serve', '--config', setup.configPath, '--port', '0'];
  try {
    const server = await startFace({ args, build: 'source' });
    return {
      setup,
      server,
      close: async (graceMs = 10_000) => {
        await server.stop(graceMs);
        setup.dispose();
      },
    };
  } catch (error) {
    setup.dispose();
    throw error;
  }
}

/** The program's result of a successful run reply (`value.result`), else undefined. */
export function resultOf(reply: RunReply): unknown {
  if (reply.outcome !== 'ok') return undefined;
  const parsed = JSON.parse(reply.body) as { value?: { result?: unknown } };
  return parsed.value?.result;
}

/** A benign program for either tenant: a kv round trip and a text tool. */
export const BENIGN = `await tools.kv.set({ key: 'probe', value: 1 });
const got = await tools.kv.get({ key: 'probe' });
const counted = await tools.text.word_count({ text: 'one two three' });
return { found: got.found, words: counted.words };`;
