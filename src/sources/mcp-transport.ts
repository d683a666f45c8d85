/**
 * The transport of one session with an upstream MCP server, as its options name it: a stdio child,
 * Streamable HTTP, or the caller's own. The stdio and HTTP ones read every answer by isocode's rule
 * (decision 005): a response the SDK's schema refuses still reaches its call, and a request the
 * server spelled wrong (with a usable id) is answered.
 */
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { LineBuffer, useLineBuffer } from '../jsonrpc/line-buffer.js';
import { answerUnreadable } from '../jsonrpc/read-message.js';
import { childEnvironment } from './child-process.js';
import { readableAnswersFetch } from './mcp-http-answers.js';
import type { McpConnectionStatus, McpServerOptions } from './mcp-options.js';

/** How the connection reaches its server (for its status). */
export function transportKind(server: McpServerOptions): McpConnectionStatus['transport'] {
  return 'command' in server ? 'stdio' : 'url' in server ? 'http' : 'custom';
}

/** A new transport to `server`; a captured stderr of a stdio child goes to `onStderr`. */
export function createUpstreamTransport(
  server: McpServerOptions,
  onStderr: (text: string) => void,
): Transport {
  if ('transport' in server) return server.transport();
  if ('url' in server) {
    return new StreamableHTTPClientTransport(new URL(server.url), {
      requestInit: { headers: server.headers ?? {} },
      fetch: readableAnswersFetch(),
    });
  }
  const mode = server.stderr ?? 'capture';
  const transport = new StdioClientTransport({
    command: server.command,
    args: server.args ?? [],
    env: childEnvironment(server.inheritEnv, server.env),
    ...(server.cwd !== undefined ? { cwd: server.cwd } : {}),
    stderr: mode === 'capture' ? 'pipe' : mode,
  });
  // Only a request the server spelled wrong is answered (it waits for one). A line that names no
  // request is left unanswered: servers print stray lines to stdout, and an answer to each could
  // trouble a server that does not expect one.
  const answer = answerUnreadable((message) => transport.send(message));
  useLineBuffer(
    transport,
    new LineBuffer({
      onUnreadable: (line) => {
        if (line.id !== undefined) answer(line);
      },
    }),
  );
  transport.stderr?.on('data', (chunk: Buffer | string) => onStderr(chunk.toString()));
  return transport;
}
