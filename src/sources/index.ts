/**
 * Tool sources: the built-in demo set, JS/TS tool modules, upstream MCP servers, OpenAPI services, and the
 * `isocode.config.json` loader that lists them. Every interface (CLI, HTTP, MCP server) loads
 * its tools through {@link loadSources}.
 */
export { builtinDemoTools } from './demo.js';
export {
  loadConfig,
  parseConfig,
  resolveApiKeys,
  formatConfigPath,
  DEFAULT_CONFIG_FILE,
} from './config.js';
export type {
  LoadConfigOptions,
  ParseConfigOptions,
  ConfigIssue,
  ResolvedApiKey,
} from './config.js';
export type * from './config-types.js';
export { mcpTools } from './mcp-lazy.js';
export type { McpSource, McpSourceStatus, McpToolsOptions } from './mcp.js';
export type {
  McpConnectionStatus,
  McpHttpOptions,
  McpReconnectOptions,
  McpServerOptions,
  McpStdioOptions,
  McpTransportFactoryOptions,
} from './mcp-connection.js';
export { DEFAULT_INHERITED_ENV } from './child-process.js';
export { MCP_TEXT_RESULT_SCHEMA } from './mcp-text-result.js';
export type { McpTextResult } from './mcp-text-result.js';
export { assignLocalNames, sanitizeToolNamePart } from './mcp-names.js';
export { loadModuleTools } from './module.js';
export { openApiTools } from './openapi.js';
export type { OpenApiSource, OpenApiSourceStatus, OpenApiToolsOptions } from './openapi.js';
export type { SkippedOperation } from './openapi-operations.js';
export { loadSources, interpolateEnv } from './load.js';
export type {
  LoadedSources,
  LoadSourcesOptions,
  SourceStatus,
  BuiltinSourceStatus,
  ModuleSourceStatus,
} from './load.js';
export { openRuntime } from './open.js';
export type { OpenRuntimeOptions, OpenedRuntime } from './open.js';
