/** Mapping of MCP `tools/call` results and errors to isocode values and IsocodeErrors. */
import { McpError, ErrorCode as McpErrorCode } from '@modelcontextprotocol/sdk/types.js';
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { IsocodeError, isIsocodeError, isJsonValue } from '../index.js';
import { malformedResponseReason } from '../jsonrpc/read-message.js';
import type { ContentBlock, JsonValue } from '../index.js';

type Rec = Record<string, unknown>;
const isRec = (v: unknown): v is Rec => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

function resource(
  uri: string,
  mimeType: string | undefined,
  text: string | undefined,
): ContentBlock {
  const r: { uri: string; mimeType?: string; text?: string } = { uri };
  if (mimeType !== undefined) r.mimeType = mimeType;
  if (text !== undefined) r.text = text;
  return { type: 'resource', resource: r };
}

/**
 * Converts MCP content blocks to isocode's: text and image pass through; audio becomes a
 * resource with a `data:` URI; a resource link becomes a resource with its URI; an embedded
 * resource keeps its URI, MIME type and text (a binary `blob` is dropped). Unknown kinds
 * become a text note.
 */
export function toContentBlocks(content: unknown): ContentBlock[] {
  if (!Array.isArray(content)) return [];
  return content.map((block): ContentBlock => {
    if (!isRec(block)) return { type: 'text', text: '[unsupported content block]' };
    const type = str(block.type);
    if (type === 'text') return { type: 'text', text: str(block.text) ?? '' };
    if (type === 'image')
      return {
        type: 'image',
        data: str(block.data) ?? '',
        mimeType: str(block.mimeType) ?? 'application/octet-stream',
      };
    if (type === 'audio') {
      const mimeType = str(block.mimeType) ?? 'application/octet-stream';
      return resource(`data:${mimeType};base64,${str(block.data) ?? ''}`, mimeType, undefined);
    }
    if (type === 'resource_link')
      return resource(str(block.uri) ?? '', str(block.mimeType), undefined);
    if (type === 'resource' && isRec(block.resource)) {
      const r = block.resource;
      return resource(str(r.uri) ?? '', str(r.mimeType), str(r.text));
    }
    return {
      type: 'text',
      text: `[unsupported content block of type ${JSON.stringify(type ?? null)}]`,
    };
  });
}

/** Every text block joined by "\n". */
export function textOf(blocks: readonly ContentBlock[]): string {
  return blocks.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('\n');
}

/** Where a call went, for messages and details. */
export interface CallSite {
  source: string;
  tool: string;
  /** The connection had not closed when the call failed (only {@link classifyCallError} reads it). */
  connectionOpen?: boolean;
}

/**
 * The value of a `tools/call` result: `structuredContent` for a tool with an output schema,
 * otherwise an `McpTextResult` (mcp-text-result.ts). An `isError` result throws TOOL_ERROR with its text.
 */
export function mapCallResult(result: Rec, hasOutputSchema: boolean, site: CallSite): JsonValue {
  const content = toContentBlocks(result.content);
  if (result.isError === true) {
    const text = textOf(content);
    throw new IsocodeError(
      'TOOL_ERROR',
      text === '' ? `tool "${site.tool}" of MCP server "${site.source}" failed` : text,
      {
        details: { source: site.source, upstreamTool: site.tool },
      },
    );
  }
  if (hasOutputSchema) {
    const structured = result.structuredContent;
    if (structured === undefined || !isJsonValue(structured)) {
      throw new IsocodeError(
        'UPSTREAM_ERROR',
        `tool "${site.tool}" of MCP server "${site.source}" returned no structuredContent although it declares an outputSchema`,
        {
          details: { source: site.source, upstreamTool: site.tool },
        },
      );
    }
    return structured;
  }
  return { text: textOf(content), content };
}

const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ENOTFOUND',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
  'UND_ERR_SOCKET',
  'ERR_STREAM_DESTROYED',
]);

function networkCause(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; isRec(e) && depth < 5; e = e.cause, depth++) {
    if (typeof e.code === 'string' && NETWORK_CODES.has(e.code)) return true;
  }
  return false;
}

/** A short message of any thrown value. */
export function messageOf(error: unknown): string {
  if (error instanceof Error) {
    const cause =
      error.cause instanceof Error && error.message === 'fetch failed'
        ? `: ${error.cause.message}`
        : '';
    return `${error.message}${cause}`;
  }
  return String(error);
}

/** An error of an upstream call, classified. `unavailable` means the connection is gone. */
export type ClassifiedError =
  { unavailable: true; reason: string } | { unavailable: false; error: IsocodeError };

/**
 * Classifies an error thrown by `client.callTool`: a closed connection, a failed request to the
 * server, or a network error means the upstream is unavailable; an MCP/JSON-RPC error becomes
 * UPSTREAM_ERROR with its code in `details.mcpCode`; an upstream-side request timeout becomes
 * TOOL_TIMEOUT.
 */
export function classifyCallError(error: unknown, site: CallSite): ClassifiedError {
  if (isIsocodeError(error)) return { unavailable: false, error };
  if (error instanceof McpError) {
    // The SDK fails a call with -32000 when its connection closes; a server may answer -32000 too
    // (JSON-RPC's generic server error), which says nothing about the connection.
    if (error.code === (McpErrorCode.ConnectionClosed as number) && !site.connectionOpen)
      return { unavailable: true, reason: 'the connection closed' };
    const details: Record<string, unknown> = {
      source: site.source,
      upstreamTool: site.tool,
      mcpCode: error.code,
    };
    const malformed = malformedResponseReason(error.data);
    if (malformed !== undefined)
      return {
        unavailable: false,
        error: new IsocodeError(
          'UPSTREAM_ERROR',
          `MCP server "${site.source}" answered the call of "${site.tool}" with a response that is not valid JSON-RPC: ${malformed}`,
          { details: { ...details, malformedResponse: true }, cause: error },
        ),
      };
    if (error.data !== undefined && isJsonValue(error.data)) details.mcpData = error.data;
    if (error.code === (McpErrorCode.RequestTimeout as number)) {
      return {
        unavailable: false,
        error: new IsocodeError(
          'TOOL_TIMEOUT',
          `tool "${site.tool}" of MCP server "${site.source}" timed out`,
          { details, cause: error },
        ),
      };
    }
    return {
      unavailable: false,
      error: new IsocodeError(
        'UPSTREAM_ERROR',
        `MCP server "${site.source}" rejected the call of "${site.tool}": ${error.message}`,
        { details, cause: error },
      ),
    };
  }
  if (error instanceof StreamableHTTPError) {
    const status = error.code;
    if (status === undefined || status === 404 || status >= 500)
      return { unavailable: true, reason: messageOf(error) };
    return {
      unavailable: false,
      error: new IsocodeError(
        'UPSTREAM_ERROR',
        `MCP server "${site.source}" rejected the call of "${site.tool}": ${error.message}`,
        {
          details: { source: site.source, upstreamTool: site.tool, httpStatus: status },
          cause: error,
        },
      ),
    };
  }
  const message = messageOf(error);
  if (networkCause(error) || message === 'Not connected' || message.startsWith('fetch failed'))
    return { unavailable: true, reason: message };
  return {
    unavailable: false,
    error: new IsocodeError(
      'UPSTREAM_ERROR',
      `MCP server "${site.source}" sent an invalid response to the call of "${site.tool}": ${message}`,
      {
        details: { source: site.source, upstreamTool: site.tool },
        cause: error,
      },
    ),
  };
}

/** The UPSTREAM_UNAVAILABLE error of a source. */
export function unavailableError(source: string, reason: string, cause?: unknown): IsocodeError {
  return new IsocodeError(
    'UPSTREAM_UNAVAILABLE',
    `upstream MCP server "${source}" is not reachable: ${reason}`,
    {
      details: { source },
      ...(cause === undefined ? {} : { cause }),
    },
  );
}
