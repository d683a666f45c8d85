/**
 * `mcpTools` as `isocode/sources` and the config loader reach it: the MCP SDK is loaded by the
 * first call (decision 038), so the entry loads without it.
 */
import { importOptional } from '../optional.js';
import type { McpSource, McpToolsOptions } from './mcp.js';

/**
 * Connects to an upstream MCP server and makes one tool per upstream tool, named
 * `<name>.<upstream name>` (sanitized: see docs/decisions/005-mcp-upstream-mapping.md). Each
 * call is forwarded with `tools/call`; a lost upstream gives UPSTREAM_UNAVAILABLE and is
 * reconnected on a later call.
 * @throws IsocodeError INVALID_CONFIG for a bad name; UPSTREAM_UNAVAILABLE when the first
 *   connection fails; DEPENDENCY_MISSING without `@modelcontextprotocol/sdk`.
 */
export async function mcpTools(options: McpToolsOptions): Promise<McpSource> {
  const mcp = await importOptional('@modelcontextprotocol/sdk', () => import('./mcp.js'));
  return mcp.mcpTools(options);
}
