/** isocode ToolResults → MCP `tools/call` results. */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { modelContent, type ContentBlock, type ToolResult } from '../index.js';

type McpContent = CallToolResult['content'][number];

/** One isocode content block in the MCP shape (a resource always carries `text`, as MCP requires). */
function toMcpContent(block: ContentBlock): McpContent {
  switch (block.type) {
    case 'text':
      return { type: 'text', text: block.text };
    case 'image':
      return { type: 'image', data: block.data, mimeType: block.mimeType };
    case 'resource':
      return {
        type: 'resource',
        resource: {
          uri: block.resource.uri,
          text: block.resource.text ?? '',
          ...(block.resource.mimeType === undefined ? {} : { mimeType: block.resource.mimeType }),
        },
      };
  }
}

/** The `_meta` key of a failed call's error data (`{ code, message, reason?, details? }`). */
export const ERROR_META_KEY = 'isocode/error';

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Maps an isocode {@link ToolResult} to an MCP `CallToolResult`.
 * - success: the content blocks; `structuredContent` is the value when the listed tool declares an
 *   `outputSchema` (MCP clients require it then) and the value is an object;
 * - failure: `isError: true`, the content (its text starts `Error CODE: message`) and
 *   `_meta["isocode/error"]: { code, message, reason?, details? }` for programmatic clients (not
 *   `structuredContent`: a client validates that against the tool's output schema even on errors).
 */
export function toCallToolResult(result: ToolResult, hasOutputSchema: boolean): CallToolResult {
  const content = modelContent(result).map(toMcpContent);
  if (!result.ok) {
    const { code, message, reason, details } = result.error;
    return {
      isError: true,
      content,
      _meta: {
        [ERROR_META_KEY]: {
          code,
          message,
          ...(reason === undefined ? {} : { reason }),
          ...(details === undefined ? {} : { details }),
        },
      },
    };
  }
  const out: CallToolResult = { content };
  if (hasOutputSchema && isPlainObject(result.value)) out.structuredContent = result.value;
  return out;
}
