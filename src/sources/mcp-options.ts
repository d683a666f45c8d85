/** Options and status shapes of an upstream MCP connection. */
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { StderrMode } from './config-types.js';

/** An upstream server spawned as a child process (stdio). */
export interface McpStdioOptions {
  /** The executable (looked up on PATH unless it is a path). */
  command: string;
  /** @default [] */
  args?: string[] | undefined;
  /**
   * Variables set in the child, on top of the ones it inherits (these win). @default {}
   */
  env?: Record<string, string> | undefined;
  /**
   * More variables the child inherits from this process, by name or `PREFIX_*`, on top of
   * `DEFAULT_INHERITED_ENV` (the login basics, proxies, CA certificates, TMPDIR and the locale;
   * see docs/config.md). The rest of this process's environment is never passed. @default []
   */
  inheritEnv?: readonly string[] | undefined;
  /** @default process.cwd() */
  cwd?: string | undefined;
  /** @default "capture" */
  stderr?: StderrMode | undefined;
}

/** An upstream server reached over streamable HTTP. */
export interface McpHttpOptions {
  url: string | URL;
  /** @default {} */
  headers?: Record<string, string> | undefined;
}

/** Any MCP SDK client transport (for in-process servers and tests). A fresh one per connection. */
export interface McpTransportFactoryOptions {
  transport: () => Transport;
}

/** How to reach an upstream MCP server. */
export type McpServerOptions = McpStdioOptions | McpHttpOptions | McpTransportFactoryOptions;

/** Reconnection after the upstream is lost. */
export interface McpReconnectOptions {
  /** Delay before the second attempt after a loss; doubles per consecutive failure. @default 200 */
  initialDelayMs?: number | undefined;
  /** Longest delay between attempts. @default 30000 */
  maxDelayMs?: number | undefined;
  /** A call waits out a remaining backoff up to this long; beyond it, the call fails at once. @default 1000 */
  maxWaitMs?: number | undefined;
}

/** The connection part of a source's status. */
export interface McpConnectionStatus {
  transport: 'stdio' | 'http' | 'custom';
  state: 'connecting' | 'connected' | 'disconnected' | 'closed';
  /** The upstream's `serverInfo` from the last handshake. */
  server: { name: string; version: string } | undefined;
  /** The child process of a connected stdio source. */
  pid: number | undefined;
  /** Successful reconnections since the source was created. */
  reconnects: number;
  /** Connection losses and failed attempts since the last successful call. */
  consecutiveFailures: number;
  lastError: string | undefined;
  /** Milliseconds until the next reconnection attempt is allowed (0: now). */
  nextAttemptInMs: number;
  /** The last few KB of a stdio server's stderr (with `stderr: "capture"`). */
  stderrTail: string | undefined;
}
