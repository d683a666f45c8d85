/**
 * Serving the app on Node (@hono/node-server) with a graceful shutdown: stop accepting, let work in
 * flight finish up to a deadline, abort the rest, close the connections. Closing the runtime is the
 * caller's job (it may be shared with other interfaces).
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { IsocodeError } from '../index.js';
import { buildHttpApp, type HttpAppOptions } from './app.js';
import { isLoopbackHost } from './auth.js';

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

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * Starts the HTTP service.
 * @throws IsocodeError INVALID_CONFIG when anonymous access (no API keys, or `allowAnonymous`) is
 * asked for on a non-loopback host, or the options are invalid (see `createHttpApp`).
 */
export async function startHttpServer(options: HttpServerOptions): Promise<HttpServer> {
  const host = options.host ?? '127.0.0.1';
  const anonymous = options.allowAnonymous ?? options.apiKeys.length === 0;
  if (anonymous && !isLoopbackHost(host))
    throw new IsocodeError(
      'INVALID_CONFIG',
      `refusing to serve without API keys on ${host}: anonymous access is allowed only on a loopback host (127.0.0.1, ::1, localhost). Configure server.apiKeys or bind to 127.0.0.1.`,
      { details: { host } },
    );
  const { app, inflight, metrics } = buildHttpApp({ ...options, allowAnonymous: anonymous });
  const server = await new Promise<Server>((resolve, reject) => {
    const s = serve({ fetch: app.fetch, hostname: host, port: options.port ?? 8787 }, () => {
      s.off('error', reject);
      resolve(s as Server);
    });
    s.once('error', reject);
  });
  const { port } = server.address() as AddressInfo;
  const graceMs = options.shutdownGraceMs ?? 10_000;

  let closing: Promise<void> | undefined;
  const close = async (): Promise<void> => {
    let closed = false;
    const done = new Promise<void>((resolve) =>
      server.close(() => {
        closed = true;
        resolve();
      }),
    );
    server.closeIdleConnections();
    await inflight.drain(graceMs);
    // Responses are being written; keep-alive connections close once idle. Cut any left after 2 s.
    for (let waited = 0; !closed && waited < 2_000; waited += 50) {
      server.closeIdleConnections();
      await sleep(50);
    }
    if (!closed) server.closeAllConnections();
    await done;
    metrics.dispose();
  };
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    port,
    host,
    close: () => (closing ??= close()),
  };
}
