/**
 * Serving the app on Node (@hono/node-server) with a graceful shutdown: stop accepting, let work in
 * flight finish up to a deadline, abort the rest, close the connections. Closing the runtime is the
 * caller's job (it may be shared with other interfaces).
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { createServer } from 'node:http';
import { randomUUID } from 'node:crypto';
import { getRequestListener } from '@hono/node-server';
import { IsocodeError } from '../index.js';
import { thrownText } from '../errors.js';
import { clipText } from '../text/clip.js';
import type { HttpErrorBody } from './respond.js';
import { buildHttpApp, validateHttpOptions, type HttpAppOptions } from './app.js';
import { assertAnonymousBind } from './auth.js';

/** Options of {@link startHttpServer}. */
export interface HttpServerOptions extends HttpAppOptions {
  /** Interface to bind. @default "127.0.0.1" */
  host?: string | undefined;
  /** TCP port; 0 picks a free one. @default 8787 */
  port?: number | undefined;
  /** How long `close()` lets work in flight finish before aborting it, in milliseconds. @default 10000 */
  shutdownGraceMs?: number | undefined;
}

/** A running HTTP service. */
export interface HttpServer {
  /** The base URL, for example `http://127.0.0.1:8787`. */
  url: string;
  /** The bound port. */
  port: number;
  /** The bound interface. */
  host: string;
  /**
   * Graceful shutdown: new requests get 503 SHUTTING_DOWN and no new connections are accepted;
   * runs in flight get `shutdownGraceMs` to finish, then are aborted (their ToolResult reports the
   * abort); then the connections close. Does not close the runtime. Idempotent.
   */
  close(): Promise<void>;
}

/**
 * Starts the HTTP service.
 * @throws IsocodeError INVALID_CONFIG when the options are invalid (a missing `runtime`,
 * `defaultScope` or `apiKeys` included: `apiKeys: []` is how to ask for no keys), anonymous access
 * (no API keys, or `allowAnonymous`) is asked for on a non-loopback host, or the address
 * cannot be bound (details.errno, for example `EADDRINUSE`).
 */
export async function startHttpServer(options: HttpServerOptions): Promise<HttpServer> {
  validateHttpOptions(options);
  const host = options.host ?? '127.0.0.1';
  const anonymous = options.allowAnonymous ?? options.apiKeys.length === 0;
  assertAnonymousBind(host, anonymous, 'HTTP');
  const { app, inflight, metrics } = buildHttpApp({ ...options, allowAnonymous: anonymous });
  const wanted = options.port ?? 8787;
  const server = await new Promise<Server>((resolve, reject) => {
    // A request the adapter cannot even make a Request of (an unparsable Host or path) gets the
    // service's JSON error with a request id, as every other refusal, not an empty text/plain 400.
    const listener = getRequestListener(app.fetch, {
      hostname: host,
      errorHandler: unreadableRequest,
    });
    const s = createServer((req, res) => void listener(req, res));
    s.listen(wanted, host, () => {
      s.off('error', onError);
      resolve(s);
    });
    const onError = (err: NodeJS.ErrnoException): void => {
      metrics.dispose();
      reject(
        new IsocodeError(
          'INVALID_CONFIG',
          `cannot listen on ${host}:${wanted}: ${err.code ?? err.message}`,
          {
            details: { host, port: wanted, errno: err.code },
            cause: err,
          },
        ),
      );
    };
    s.once('error', onError);
  });
  const { port } = server.address() as AddressInfo;
  const graceMs = options.shutdownGraceMs ?? 10_000;

  // Requests in progress per connection: a shutdown ends each connection once it has none (Node's
  // closeIdleConnections skips connections that never carried a request, as clients' spares).
  const busy = new Map<Socket, number>();
  let draining = false;
  server.on('connection', (socket: Socket) => {
    busy.set(socket, 0);
    socket.once('close', () => busy.delete(socket));
  });
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const socket = req.socket;
    busy.set(socket, (busy.get(socket) ?? 0) + 1);
    res.once('close', () => {
      const left = (busy.get(socket) ?? 1) - 1;
      busy.set(socket, left);
      if (draining && left === 0) socket.end();
    });
  });

  let closing: Promise<void> | undefined;
  const close = async (): Promise<void> => {
    const done = new Promise<void>((resolve) => server.close(() => resolve()));
    draining = true;
    for (const [socket, n] of busy) if (n === 0) socket.end();
    await inflight.drain(graceMs);
    // Responses are being written; each connection ends after its last one. Cut any left after 2 s.
    const timer = setTimeout(() => server.closeAllConnections(), 2_000);
    await done;
    clearTimeout(timer);
    metrics.dispose();
  };
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    port,
    host,
    close: () => (closing ??= close()),
  };
}

/** The answer to a request the HTTP adapter could not read (before the app saw it). */
function unreadableRequest(error: unknown): Response {
  const requestId = randomUUID();
  const unreadable = error instanceof Error && error.name === 'RequestError';
  const body: HttpErrorBody = {
    error: unreadable
      ? {
          code: 'BAD_REQUEST',
          message: `the request cannot be read: ${clipText(thrownText(error), 200)}`,
        }
      : { code: 'INTERNAL_ERROR', message: 'internal error' },
    requestId,
  };
  return new Response(JSON.stringify(body), {
    status: unreadable ? 400 : 500,
    headers: { 'content-type': 'application/json', 'x-request-id': requestId, connection: 'close' },
  });
}
