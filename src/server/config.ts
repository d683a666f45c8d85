/** The service's options from a loaded isocode config (what `isocode serve` starts from). */
import type { Runtime } from '../index.js';
import type { RunManager } from '../durable/runs.js';
import { resolveApiKeys } from '../sources/config.js';
import type { IsocodeConfig } from '../sources/config-types.js';
import type { HttpServerOptions } from './serve.js';

/**
 * Builds {@link HttpServerOptions} from an opened runtime (`openRuntime(...)`'s result): host,
 * port, body cap, API keys (`keyEnv` entries read from `env`) and the console.
 * @throws IsocodeError INVALID_CONFIG when a `keyEnv` variable is unset.
 */
export function httpOptionsFromConfig(
  opened: {
    runtime: Runtime;
    config: IsocodeConfig;
    defaultScope: string;
    runs?: RunManager | undefined;
  },
  env: NodeJS.ProcessEnv = process.env,
): HttpServerOptions {
  const { server } = opened.config;
  return {
    runtime: opened.runtime,
    runs: opened.runs,
    defaultScope: opened.defaultScope,
    apiKeys: resolveApiKeys(opened.config, env),
    maxBodyBytes: server.maxBodyBytes,
    host: server.host,
    port: server.port,
    console: server.console,
  };
}
