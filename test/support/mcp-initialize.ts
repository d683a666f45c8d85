/**
 * The MCP `initialize` request a raw client sends first (tests that speak JSON-RPC by hand, not
 * through the SDK's client): one spelling of the protocol version and the client's identity.
 */
export const MCP_PROTOCOL_VERSION = '2025-06-18';

/** The `initialize` request (JSON-RPC id `id`), as an object. */
export function initializeRequest(client = 'raw', id = 1) {
  return {
    jsonrpc: '2.0',
    id,
    method: 'initialize',
    params: {
      protocolVersion: MCP_PROTOCOL_VERSION,
      capabilities: {},
      clientInfo: { name: client, version: '1' },
    },
  } as const;
}
