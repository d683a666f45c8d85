/**
 * The MCP server face: a runtime's scope served to MCP clients over stdio or streamable HTTP.
 * Under `code` mode the client sees one tool, `run_code`, whose description carries the SDK.
 */
export { createMcpServer } from './server.js';
export type { McpServerOptions } from './server.js';
export { serveMcpStdio } from './stdio.js';
export type { McpStdioOptions, McpStdioHandle } from './stdio.js';
export { serveMcpHttp } from './http-lazy.js';
export type { McpHttpOptions, McpHttpHandle, McpApiKey } from './http.js';
export { toCallToolResult, ERROR_META_KEY } from './result.js';
export { SEARCH_TOOLS, DESCRIBE_TOOL, DEFAULT_HELPER_THRESHOLD_TOKENS } from './helpers.js';
export type { HelperMode } from './helpers.js';
