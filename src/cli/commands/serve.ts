/** `isocode serve`: the HTTP service over the configured runtime. */
import { httpOptionsFromConfig, startHttpServer } from '../../server/index.js';
import { loadConfig } from '../../sources/config.js';
import { openRuntime } from '../../sources/open.js';
import { EXIT_OK } from '../errors.js';
import { leftOutLines, type Io } from '../output.js';
import { assertSandboxAllowed, hasNoSnapshotFlag } from '../snapshot.js';
import { port as parsePort, untilStopped } from './shared.js';

/** Flags of `isocode serve`. */
export interface ServeFlags {
  config?: string | undefined;
  port?: string | undefined;
  host?: string | undefined;
  /** Serve the web console at `/console` (else the config's `server.console`). */
  console?: boolean | undefined;
}

/** Serves until SIGINT/SIGTERM (`stop`), then shuts down gracefully; resolves to the exit code. */
export async function serveCommand(flags: ServeFlags, io: Io, stop: AbortSignal): Promise<number> {
  const port = flags.port === undefined ? undefined : parsePort('--port', flags.port);
  if (!hasNoSnapshotFlag()) assertSandboxAllowed((await loadConfig(flags.config)).sandbox, false);
  const opened = await openRuntime({ configPath: flags.config, durableByDefault: true });
  try {
    const options = httpOptionsFromConfig(opened);
    const server = await startHttpServer({
      ...options,
      ...(port === undefined ? {} : { port }),
      ...(flags.host === undefined ? {} : { host: flags.host }),
      ...(flags.console === true ? { console: { enabled: true } } : {}),
    });
    io.err(
      `isocode HTTP service listening on ${server.url} (scope "${opened.defaultScope}", mode ${opened.runtime.mode(opened.defaultScope)})`,
    );
    for (const line of leftOutLines(opened.sources)) io.err(line);
    if (flags.console === true || options.console?.enabled === true)
      io.err(`web console: ${server.url}/console/`);
    await untilStopped(stop);
    io.err('shutting down…');
    await server.close();
    return EXIT_OK;
  } finally {
    await opened.close();
  }
}
