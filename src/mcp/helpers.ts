/**
 * The MCP face's setting of discovery for large catalogs. The helpers themselves (`search_tools`,
 * `describe_tool`, the compact run_code description and the token threshold) are the library's:
 * src/discovery. See docs/decisions/019-output-inference-and-discovery.md.
 */
import {
  DEFAULT_DISCOVERY_THRESHOLD_TOKENS,
  DESCRIBE_TOOL,
  SEARCH_TOOLS,
  type DiscoveryMode,
  type DiscoveryOptions,
} from '../discovery/index.js';

export { DESCRIBE_TOOL, SEARCH_TOOLS };

/** When the discovery helpers are listed (the library's {@link DiscoveryMode}). */
export type HelperMode = DiscoveryMode;

/** Above this many o200k tokens of `run_code` description, `auto` switches to the helpers. */
export const DEFAULT_HELPER_THRESHOLD_TOKENS = DEFAULT_DISCOVERY_THRESHOLD_TOKENS;

/** The server's own discovery setting, or undefined to follow the runtime's `codeMode.discovery`. */
export function helperOverride(
  helpers: HelperMode | undefined,
  thresholdTokens: number | undefined,
): DiscoveryOptions | undefined {
  if (helpers === undefined && thresholdTokens === undefined) return undefined;
  return {
    ...(helpers === undefined ? {} : { mode: helpers }),
    ...(thresholdTokens === undefined ? {} : { thresholdTokens }),
  };
}

/** True for the names of the two helpers. */
export const isHelperName = (name: string): boolean =>
  name === SEARCH_TOOLS || name === DESCRIBE_TOOL;
