/**
 * Tool sources: the built-in demo set, JS/TS tool modules, upstream MCP servers, and the
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
