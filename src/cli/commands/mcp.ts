/** `isocode mcp`: the MCP server over the configured runtime, on stdio (default) or streamable HTTP. */
import { serveMcpHttp } from '../../mcp/http-lazy.js';
import { serveMcpStdio } from '../../mcp/stdio.js';
import { resolveApiKeys } from '../../sources/config.js';
import { EXIT_FAILURE, EXIT_OK, UsageError } from '../errors.js';
import { openCliRuntime } from '../open.js';
import { leftOutLines, type Io } from '../output.js';
import { packageInfo } from '../pkg.js';
import { port as parsePort, untilStopped, type RuntimeFlags } from './shared.js';

/** Flags of `isocode mcp`. */
export interface McpFlags extends RuntimeFlags {
  http?: string | undefined;
  host?: string | undefined;
  stateless?: boolean | undefined;
  helpers?: string | undefined;
}

/** Serves until stdin closes (stdio) or SIGINT/SIGTERM; resolves to the exit code. */
export async function mcpCommand(flags: McpFlags, io: Io, stop: AbortSignal): Promise<number> {
  const helpers = flags.helpers ?? 'auto';
  if (helpers !== 'auto' && helpers !== 'always' && helpers !== 'never')
    throw new UsageError(`--helpers must be "auto", "always" or "never", got "${helpers}"`);
  const port = flags.http === undefined ? undefined : parsePort('--http', flags.http);
  const info = { name: 'isocode', version: packageInfo().version, helpers } as const;
  // On stdio, stdout carries the protocol only: anything that logs through console (tool modules,
  // sources) goes to stderr, from before the tools load.
  if (port === undefined)
    for (const level of ['log', 'info', 'debug'] as const) console[level] = console.error;
  const opened = await openCliRuntime({ ...flags, codeMode: true });
  try {
    for (const line of leftOutLines(opened.sources())) io.err(line);
    const mode = opened.runtime.mode(opened.scope);
    // Approvals by elicitation (a capable client is asked directly): on unless the config says no.
    const elicitation = opened.config?.mcp.elicitation ?? true;
    if (port === undefined) {
      const handle = await serveMcpStdio({
        ...info,
        runtime: opened.runtime,
        scope: opened.scope,
        elicitation,
      });
      io.err(`isocode MCP server on stdio (scope "${opened.scope}", mode ${mode})`);
      await Promise.race([handle.closed, untilStopped(stop)]);
      await handle.close();
      const failure = handle.failure();
      if (failure === undefined) return EXIT_OK;
      io.err(`error: ${failure}`);
      return EXIT_FAILURE;
    }
    // Over HTTP the config's API keys apply (each bound to its scope), as for `isocode serve`.
    const apiKeys = opened.config ? resolveApiKeys(opened.config) : [];
    const handle = await serveMcpHttp({
      ...info,
      runtime: opened.runtime,
      scope: opened.scope,
      elicitation,
      port,
      host: flags.host ?? opened.config?.server.host ?? '127.0.0.1',
      sessions: flags.stateless ? 'stateless' : 'stateful',
      apiKeys,
    });
    const who =
      apiKeys.length > 0 ? `${apiKeys.length} API keys` : `scope "${opened.scope}", mode ${mode}`;
    io.err(`isocode MCP server listening on ${handle.url} (${who})`);
    await untilStopped(stop);
    io.err('shutting down…');
    await handle.close();
    return EXIT_OK;
  } finally {
    await opened.close();
  }
}
