/**
 * Serving a runtime's scope as an MCP server over streamable HTTP: a Hono app on @hono/node-server
 * (the stack of `isocode serve`), the same access rule (src/server/auth.ts), and a session table with
 * per-key quotas (./sessions.ts). See docs/decisions/011-one-access-rule.md.
 */
import { thrownText } from '../errors.js';
import { randomUUID } from 'node:crypto';
import type { Server as NodeServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { Hono, type Context } from 'hono';
import { DEFAULT_SCOPE, IsocodeError } from '../index.js';
import {
  apiKeyProblems,
  assertAnonymousBind,
  createAuthenticator,
  refusal,
  requestFacts,
  type ApiKey,
} from '../server/auth.js';
import { buildMcpServer, type McpServerOptions, type TrackedMcpServer } from './server.js';
import { SessionTable, type SessionLike } from './sessions.js';
import { RequestIds, requestIdsOf } from './request-ids.js';
import {
  readRequestBody,
  requestBodyTooLargeMessage,
} from '@modelcontextprotocol/sdk/server/requestBody.js';
import { integerOptionOr } from '../options.js';

/** An API key of the MCP HTTP endpoint, bound to the scope its requests run in. */
export type McpApiKey = ApiKey;

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
  /**
   * Most live sessions (stateful). When the table is full, a newcomer may only displace an idle
   * session of its own key; otherwise it is refused with 503 and `Retry-After`. @default 100
   */
  maxSessions?: number | undefined;
  /**
   * Most live sessions of one API key (of the anonymous user without keys). A key over its quota
   * closes its own least recently used idle session, or is refused with 429 and `Retry-After`.
   * @default 20 (at most `maxSessions`)
   */
  maxSessionsPerKey?: number | undefined;
  /** A session unused this long is closed (stateful; never while a call is in flight), in milliseconds. @default 1800000 */
  sessionIdleMs?: number | undefined;
  /** Largest request body, in bytes. @default 4194304 */
  maxBodyBytes?: number | undefined;
  /**
   * Bearer keys. When given, every request needs `Authorization: Bearer <key>` and runs in the key's
   * scope (`scope` is then unused). @default none (anonymous, loopback only: see docs/mcp.md)
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

interface Session extends SessionLike {
  transport: WebStandardStreamableHTTPServerTransport;
  /** Request ids in flight: a reused one is refused (see ./request-ids.ts). */
  ids: RequestIds;
}

/** Seconds a refused newcomer is told to wait before trying again. */
const RETRY_AFTER_S = '5';

/** A JSON-RPC error response (the body MCP clients expect on HTTP failures). */
function rpcError(
  c: Context,
  status: 400 | 401 | 403 | 404 | 405 | 413 | 429 | 500 | 503,
  message: string,
  headers: Record<string, string> = {},
  data?: Record<string, unknown>,
): Response {
  const error = { code: -32000, message, ...(data === undefined ? {} : { data }) };
  return c.json({ jsonrpc: '2.0', error, id: null }, status, headers);
}

const positiveInt = (name: string, value: number | undefined, fallback: number): number =>
  integerOptionOr(name, value, fallback, 1);

/** `response` with `done` called once its body has been sent or abandoned (or at once without a body). */
function whenSent(response: Response, signal: AbortSignal, done: () => void): Response {
  let called = false;
  const once = (): void => {
    if (called) return;
    called = true;
    done();
  };
  signal.addEventListener('abort', once, { once: true });
  if (response.body === null) {
    once();
    return response;
  }
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const chunk = await reader.read();
      if (chunk.done) {
        controller.close();
        once();
      } else controller.enqueue(chunk.value);
    },
    async cancel(reason) {
      once();
      await reader.cancel(reason);
    },
  });
  return new Response(body, { status: response.status, headers: response.headers });
}

/**
 * A POST in an existing session: its body is read once (bounded, as the transport would), its
 * request ids are claimed for the session until the answer is sent, and a request reusing an id
 * still in flight is refused at once (the transport would leave the first one waiting forever).
 */
async function postToSession(
  c: Context,
  session: Session,
  req: Request,
  maxBody: number,
): Promise<Response> {
  const body = await readRequestBody(req, maxBody);
  if (body.tooLarge) return rpcError(c, 413, requestBodyTooLargeMessage(maxBody));
  let message: unknown;
  try {
    message = JSON.parse(body.text);
  } catch {
    message = undefined; // the transport answers the parse error
  }
  const claimed = session.ids.claim(requestIdsOf(message));
  if (typeof claimed !== 'function') {
    const [id] = claimed.taken;
    return c.json(
      {
        jsonrpc: '2.0',
        id: claimed.taken.length === 1 ? id : null,
        error: {
          code: -32600,
          message: `Invalid Request: request id ${JSON.stringify(id)} is already in use by a request in flight in this session`,
        },
      },
      400,
    );
  }
  const replay = new Request(req.url, { method: 'POST', headers: req.headers, body: body.text });
  try {
    return whenSent(await session.transport.handleRequest(replay), req.signal, claimed);
  } catch (error) {
    claimed();
    throw error;
  }
}

/**
 * Serves the runtime's scope as an MCP streamable-HTTP endpoint. Without API keys it must bind a
 * loopback host, and anonymous requests must come from a loopback peer with a loopback `Host` and no
 * foreign `Origin` (DNS-rebinding protection; the rule of `isocode serve`).
 * @throws IsocodeError INVALID_CONFIG for anonymous access on a non-loopback host, a bad key or limit.
 */
export async function serveMcpHttp(options: McpHttpOptions): Promise<McpHttpHandle> {
  const host = options.host ?? '127.0.0.1';
  const path = options.path ?? '/mcp';
  const stateless = options.sessions === 'stateless';
  const maxSessions = positiveInt('maxSessions', options.maxSessions, 100);
  const maxSessionsPerKey = Math.min(
    maxSessions,
    positiveInt('maxSessionsPerKey', options.maxSessionsPerKey, 20),
  );
  const idleMs = positiveInt('sessionIdleMs', options.sessionIdleMs, 30 * 60_000);
  const maxBody = positiveInt('maxBodyBytes', options.maxBodyBytes, 4 * 1024 * 1024);
  const apiKeys = options.apiKeys ?? [];
  const problems = apiKeyProblems(apiKeys);
  if (problems.length > 0)
    throw new IsocodeError('INVALID_CONFIG', `invalid MCP HTTP options: ${problems.join('; ')}`, {
      details: { problems },
    });
  const defaultScope = options.scope ?? DEFAULT_SCOPE;
  assertAnonymousBind(host, apiKeys.length === 0, 'MCP');
  // Fail fast on a bad scope (INVALID_SCOPE) rather than at the first request.
  for (const s of apiKeys.length > 0 ? apiKeys.map((k) => k.scope) : [defaultScope])
    options.runtime.mode(s);
  const authenticate = createAuthenticator({
    apiKeys,
    defaultScope,
    allowAnonymous: apiKeys.length === 0,
  });

  const sessions = new SessionTable<Session>({ maxSessions, maxSessionsPerKey });
  const live = new Set<{ close(): Promise<void> }>();
  const newServer = (scope: string): TrackedMcpServer => {
    const tracked = buildMcpServer({ ...options, scope });
    live.add(tracked.server);
    // Keep the server's own close handler (it stops watching the runtime's catalog).
    const onclose = tracked.server.onclose;
    tracked.server.onclose = () => {
      live.delete(tracked.server);
      onclose?.();
    };
    return tracked;
  };

  const app = new Hono();
  app.all(path, async (c) => {
    const auth = authenticate(requestFacts(c));
    if (!auth.ok) {
      const r = refusal(auth.reason);
      return rpcError(c, r.code === 'FORBIDDEN' ? 403 : 401, `${r.code}: ${r.message}`, r.headers);
    }
    const req = c.req.raw;

    if (stateless) {
      if (req.method !== 'POST')
        return rpcError(c, 405, 'method not allowed (stateless endpoint: POST only)', {
          allow: 'POST',
        });
      const { server } = newServer(auth.scope);
      const transport = new WebStandardStreamableHTTPServerTransport({
        maxRequestBodySize: maxBody,
      });
      await server.connect(transport);
      // The server lives as long as its one response: a client that goes away aborts the call.
      return whenSent(await transport.handleRequest(req), req.signal, () => void server.close());
    }

    const sessionId = c.req.header('mcp-session-id');
    if (sessionId !== undefined) {
      // Another tenant's session id is as unknown as a made-up one: it can be neither used nor closed.
      const session = sessions.get(sessionId, auth.tenant);
      if (!session) return rpcError(c, 404, 'session not found');
      if (req.method !== 'POST') return session.transport.handleRequest(req);
      return postToSession(c, session, req, maxBody);
    }
    if (req.method !== 'POST')
      return rpcError(c, 400, 'bad request: no Mcp-Session-Id (initialize first)');
    const place = sessions.reserve(auth.tenant);
    if (place === 'tenant-full')
      return rpcError(
        c,
        429,
        `too many MCP sessions for this key (at most ${maxSessionsPerKey}, each with a call in flight): close one or retry later`,
        { 'Retry-After': RETRY_AFTER_S },
        { reason: 'session-quota', limit: maxSessionsPerKey },
      );
    if (place === 'table-full')
      return rpcError(
        c,
        503,
        `the MCP session table is full (${maxSessions} sessions): retry later`,
        { 'Retry-After': RETRY_AFTER_S },
        { reason: 'session-table-full', limit: maxSessions },
      );
    const tracked = newServer(auth.scope);
    const transport: WebStandardStreamableHTTPServerTransport =
      new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        maxRequestBodySize: maxBody,
        onsessioninitialized: (id): void =>
          place.commit(id, {
            transport,
            ids: new RequestIds(),
            callsInFlight: tracked.callsInFlight,
            lastActive: tracked.lastActive,
            close: () => tracked.server.close(),
          }),
        onsessionclosed: (id) => sessions.delete(id),
      });
    transport.onclose = () => {
      if (transport.sessionId !== undefined) sessions.delete(transport.sessionId);
    };
    try {
      await tracked.server.connect(transport);
      return await transport.handleRequest(req);
    } finally {
      place.release();
      // Not an initialize request: nothing was created that a later request could use.
      if (transport.sessionId === undefined) await tracked.server.close();
    }
  });
  app.all('*', (c) => rpcError(c, 404, `not found: use ${path}`));
  app.onError((err, c) => rpcError(c, 500, `internal error: ${thrownText(err)}`));

  const sweep = setInterval(() => sessions.sweep(Date.now() - idleMs), Math.min(idleMs, 60_000));
  sweep.unref();

  let http: NodeServer;
  try {
    http = await new Promise<NodeServer>((resolve, reject) => {
      const s = serve({ fetch: app.fetch, hostname: host, port: options.port ?? 0 }, () => {
        s.off('error', reject);
        resolve(s as NodeServer);
      });
      s.once('error', reject);
    });
  } catch (err) {
    clearInterval(sweep);
    throw err;
  }
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
        await sessions.closeAll();
        await Promise.allSettled([...live].map((s) => s.close()));
        http.closeAllConnections();
        await stopped;
      })()),
  };
}
