/**
 * `serveMcpHttp` as `isocode/mcp` and `isocode mcp --http` reach it: the HTTP stack (hono and
 * @hono/node-server) is loaded by the first call (decision 038), so the stdio
 * face works without it.
 */
import { importOptional } from '../optional.js';
import type { McpHttpHandle, McpHttpOptions } from './http.js';

/**
 * Serves the runtime's scope as an MCP streamable-HTTP endpoint. Without API keys it must bind a
 * loopback host, and anonymous requests must come from a loopback peer with a loopback `Host` and no
 * foreign `Origin` (DNS-rebinding protection; the rule of `isocode serve`).
 * @throws IsocodeError INVALID_CONFIG for anonymous access on a non-loopback host, a bad key or
 *   limit; DEPENDENCY_MISSING without hono and @hono/node-server.
 */
export async function serveMcpHttp(options: McpHttpOptions): Promise<McpHttpHandle> {
  const http = await importOptional(['hono', '@hono/node-server'], () => import('./http.js'));
  return http.serveMcpHttp(options);
}
