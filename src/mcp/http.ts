/** Serving a runtime's scope as an MCP server over streamable HTTP. */
import { createHash, randomUUID, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { DEFAULT_SCOPE, IsocodeError } from '../index.js';
import { createMcpServer, type McpServerOptions } from './server.js';

/** An API key of the MCP HTTP endpoint, bound to the scope its requests run in. */
export interface McpApiKey {
  key: string;
  scope: string;
}

/** Options of {@link serveMcpHttp}. */
export interface McpHttpOptions extends McpServerOptions {
  /** TCP port; 0 picks a free one. @default 0 */
  port?: number | undefined;
  /** Interface to bind. @default "127.0.0.1" */
  host?: string | undefined;
  /** The endpoint path. @default "/mcp" */
  path?: string | undefined;
  /**
   * `stateful`: each client gets a session (`Mcp-Session-Id`), so `notifications/cancelled` reaches
   * the running call. `stateless`: every POST is served by a fresh server and transport; nothing is
   * kept between requests (any replica can answer), and a client disconnect aborts the call.
   * @default "stateful"
   */
  sessions?: 'stateful' | 'stateless' | undefined;
  /** Most live sessions (stateful); the least recently used is closed to admit a new one. @default 100 */
  maxSessions?: number | undefined;
  /** A session unused this long is closed (stateful), in milliseconds. @default 1800000 */
  sessionIdleMs?: number | undefined;
  /** Largest request body, in bytes. @default 4194304 */
  maxBodyBytes?: number | undefined;
  /**
   * Bearer keys. When given, every request needs `Authorization: Bearer <key>` and runs in the key's
   * scope (`scope` is then unused). @default none (no authentication: keep the default loopback host)
   */
  apiKeys?: readonly McpApiKey[] | undefined;
}

/** A running MCP HTTP endpoint. */
export interface McpHttpHandle {
  /** The endpoint URL, for example `http://127.0.0.1:43117/mcp`. */
  url: string;
  port: number;
  /** Stops accepting, closes every session (aborting in-flight calls). Does not close the runtime. Idempotent. */
  close(): Promise<void>;
}

interface Session {
  server: Server;
  transport: StreamableHTTPServerTransport;
  scope: string;
  lastUsed: number;
}

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '::1', '[::1]']);
const isLoopback = (host: string): boolean => LOOPBACK_HOSTS.has(host) || host.startsWith('127.');

function hostnameOf(hostHeader: string): string {
  if (hostHeader.startsWith('[')) return hostHeader.slice(0, hostHeader.indexOf(']') + 1);
  const colon = hostHeader.lastIndexOf(':');
  return colon < 0 ? hostHeader : hostHeader.slice(0, colon);
}

function jsonError(
  res: ServerResponse,
  status: number,
  message: string,
  headers: Record<string, string> = {},
): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));
}

const digest = (s: string): Buffer => createHash('sha256').update(s).digest();

function positiveInt(name: string, value: number | undefined, fallback: number): number {
  const v = value ?? fallback;
  if (!Number.isSafeInteger(v) || v < 1)
    throw new IsocodeError(
      'INVALID_CONFIG',
      `${name} must be a positive integer, got ${String(v)}`,
    );
  return v;
}

/**
 * Serves the runtime's scope as an MCP streamable-HTTP endpoint. On a loopback host (the default),
 * requests whose `Host` or `Origin` is not loopback are refused (DNS-rebinding protection).
 */
export async function serveMcpHttp(options: McpHttpOptions): Promise<McpHttpHandle> {
  const host = options.host ?? '127.0.0.1';
  const path = options.path ?? '/mcp';
  const stateless = options.sessions === 'stateless';
  const maxSessions = positiveInt('maxSessions', options.maxSessions, 100);
  const idleMs = positiveInt('sessionIdleMs', options.sessionIdleMs, 30 * 60_000);
  const maxBody = positiveInt('maxBodyBytes', options.maxBodyBytes, 4 * 1024 * 1024);
  const keys = (options.apiKeys ?? []).map((k) => ({ hash: digest(k.key), scope: k.scope }));
  const loopbackOnly = isLoopback(host);
  if (!loopbackOnly && keys.length === 0)
    throw new IsocodeError(
      'INVALID_CONFIG',
      `refusing to serve MCP without API keys on ${host}: anonymous access is allowed only on a loopback host (127.0.0.1, ::1, localhost)`,
      { details: { host } },
    );
  // Fail fast on a bad scope (INVALID_SCOPE) rather than at the first request.
  for (const s of keys.length > 0 ? keys.map((k) => k.scope) : [options.scope ?? DEFAULT_SCOPE])
    options.runtime.mode(s);

  const sessions = new Map<string, Session>();
  const live = new Set<Server>();
  const newServer = (scope: string): Server => {
    const server = createMcpServer({ ...options, scope });
    live.add(server);
    server.onclose = () => live.delete(server);
    return server;
  };

  const scopeOf = (req: IncomingMessage): string | undefined => {
    if (keys.length === 0) return options.scope ?? DEFAULT_SCOPE;
    const auth = req.headers.authorization ?? '';
    const m = /^Bearer\s+(.+)$/i.exec(auth);
    if (!m?.[1]) return undefined;
    const h = digest(m[1].trim());
    let scope: string | undefined;
    for (const k of keys) if (timingSafeEqual(k.hash, h)) scope ??= k.scope;
    return scope;
  };

  const closeSession = async (id: string): Promise<void> => {
    const s = sessions.get(id);
    if (!s) return;
    sessions.delete(id);
    await s.server.close();
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname !== path) return jsonError(res, 404, `not found: use ${path}`);
    if (loopbackOnly) {
      const hostHeader = req.headers.host ?? '';
      const origin = req.headers.origin;
      let originHost = '';
      try {
        originHost = origin === undefined ? '' : new URL(origin).hostname;
      } catch {
        originHost = 'invalid';
      }
      if (!isLoopback(hostnameOf(hostHeader)) || (origin !== undefined && !isLoopback(originHost)))
        return jsonError(
          res,
          403,
          'forbidden: this endpoint only accepts loopback Host and Origin headers',
        );
    }
    const scope = scopeOf(req);
    if (scope === undefined)
      return jsonError(res, 401, 'unauthorized: a valid bearer API key is required', {
        'www-authenticate': 'Bearer',
      });

    if (stateless) {
      if (req.method !== 'POST')
        return jsonError(res, 405, 'method not allowed (stateless endpoint: POST only)', {
          allow: 'POST',
        });
      const server = newServer(scope);
      const transport = new StreamableHTTPServerTransport({ maxRequestBodySize: maxBody });
      res.on('close', () => {
        void server.close();
      });
      await server.connect(transport);
      await transport.handleRequest(req, res);
      return;
    }

    const header = req.headers['mcp-session-id'];
    const sessionId = Array.isArray(header) ? header[0] : header;
    if (sessionId !== undefined) {
      const session = sessions.get(sessionId);
      if (!session || session.scope !== scope) return jsonError(res, 404, 'session not found');
      session.lastUsed = Date.now();
      await session.transport.handleRequest(req, res);
      return;
    }
    if (req.method !== 'POST')
      return jsonError(res, 400, 'bad request: no Mcp-Session-Id (initialize first)');
    if (sessions.size >= maxSessions) {
      const oldest = [...sessions].sort((a, b) => a[1].lastUsed - b[1].lastUsed)[0];
      if (oldest) await closeSession(oldest[0]);
    }
    const server = newServer(scope);
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      maxRequestBodySize: maxBody,
      onsessioninitialized: (id) => {
        sessions.set(id, { server, transport, scope, lastUsed: Date.now() });
      },
      onsessionclosed: (id) => {
        sessions.delete(id);
      },
    });
    transport.onclose = () => {
      if (transport.sessionId !== undefined) sessions.delete(transport.sessionId);
    };
    await server.connect(transport);
    await transport.handleRequest(req, res);
    // Not an initialize request: nothing was created that a later request could use.
    if (transport.sessionId === undefined) await server.close();
  };

  const http = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      jsonError(res, 500, `internal error: ${err instanceof Error ? err.message : String(err)}`);
    });
  });
  const sweep = setInterval(
    () => {
      const cutoff = Date.now() - idleMs;
      for (const [id, s] of sessions) if (s.lastUsed < cutoff) void closeSession(id);
    },
    Math.min(idleMs, 60_000),
  );
  sweep.unref();

  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(options.port ?? 0, host, () => {
      http.off('error', reject);
      resolve();
    });
  });
  const port = (http.address() as AddressInfo).port;
  const urlHost = host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;

  let closing: Promise<void> | undefined;
  return {
    url: `http://${urlHost}:${port}${path}`,
    port,
    close: () =>
      (closing ??= (async () => {
        clearInterval(sweep);
        const stopped = new Promise<void>((resolve) => http.close(() => resolve()));
        sessions.clear();
        await Promise.allSettled([...live].map((s) => s.close()));
        http.closeAllConnections();
        await stopped;
      })()),
  };
}
