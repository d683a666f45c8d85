/** Discovery for large catalogs (compact mode, `search_tools`, `describe_tool`). */
export {
  DEFAULT_DISCOVERY_THRESHOLD_TOKENS,
  DESCRIBE_TOOL,
  SEARCH_TOOLS,
  ScopeDiscovery,
  discoveryToolSchemas,
  resolveDiscoveryOptions,
  searchText,
  type DiscoveryAnswer,
  type DiscoveryMode,
  type DiscoveryOptions,
  type DiscoverySource,
  type DiscoveryStatus,
} from './discovery.js';
export type { DescribeToolsResult, SearchToolsResult, ToolMatch } from './catalog-index.js';
