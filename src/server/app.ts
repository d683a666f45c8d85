/**
 * The HTTP app: middleware (request ids, shutdown gate, auth, body limit), the routes, and the
 * error handling that turns every request-level failure into `{ error, requestId }` with the
 * status from {@link HTTP_STATUS}.
 */
import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { HTTPException } from 'hono/http-exception';
import { requestId } from 'hono/request-id';
import { IsocodeError, isIsocodeError, type Runtime } from '../index.js';
import { apiKeyProblems, createAuthenticator, refusal, requestFacts, type ApiKey } from './auth.js';
import { InFlight } from './inflight.js';
import { createServiceMetrics, type ServiceMetrics } from './metrics.js';
import { PROMETHEUS_CONTENT_TYPE } from './prometheus.js';
import { errorResponse, thrownResponse, type HttpEnv } from './respond.js';
import { callRoutes } from './routes-calls.js';
import { catalogRoutes } from './routes-catalog.js';
import { consoleRoutes, type ConsoleOptions } from './console.js';
import { approvalRoutes } from './routes-approvals.js';
import { runRoutes } from './routes-runs.js';
import type { RunManager } from '../durable/runs.js';

/** Options of {@link createHttpApp}. */
export interface HttpAppOptions {
  /** The runtime requests run on. The app never closes it. */
  runtime: Runtime;
  /** The scope of anonymous requests. */
  defaultScope: string;
  /** Bearer keys, each bound to the scope its requests run in. */
  apiKeys: readonly ApiKey[];
  /** Largest request body in bytes; larger ones get 413 PAYLOAD_TOO_LARGE. @default 1048576 */
  maxBodyBytes?: number | undefined;
  /**
   * Requests without an `Authorization` header run in `defaultScope` (only from a loopback peer, with
   * a loopback `Host` and no foreign `Origin`: see `createAuthenticator`). `startHttpServer` refuses
   * anonymous access on a non-loopback interface.
   * @default true when `apiKeys` is empty, else false
   */
  allowAnonymous?: boolean | undefined;
  /** The web console at `/console` (static files; it acts only through `/v1`). @default off */
  console?: ConsoleOptions | undefined;
  /** Durable runs (`/v1/runs`, `/v1/approvals`); without it those routes are 404. @default none */
  runs?: RunManager | undefined;
}

/** The Hono app of the HTTP service. */
export type HttpApp = Hono<HttpEnv>;

/** An app with the parts `startHttpServer` drives. */
export interface HttpAppParts {
  app: HttpApp;
  inflight: InFlight;
  metrics: ServiceMetrics;
}

/** Routes named in metrics (anything else is "other"). */
const ROUTES = new Set([
  '/healthz',
  '/metrics',
  '/v1/execute',
  '/v1/run',
  '/v1/check',
  '/v1/tools',
  '/v1/sdk',
  '/v1/prompt',
  '/v1/runs',
  '/v1/approvals',
  '/v1/approvals/events',
]);

const scopeProblem = (runtime: Runtime, scope: string): string | undefined => {
  try {
    runtime.mode(scope);
    return undefined;
  } catch (err) {
    return isIsocodeError(err) ? err.message : String(err);
  }
};

/** Validates the options. @throws IsocodeError INVALID_CONFIG naming the bad scope or key. */
function validate(options: HttpAppOptions): void {
  const problems: string[] = [];
  const p = scopeProblem(options.runtime, options.defaultScope);
  if (p) problems.push(`defaultScope: ${p}`);
  problems.push(...apiKeyProblems(options.apiKeys));
  options.apiKeys.forEach((k, i) => {
    const sp = scopeProblem(options.runtime, k.scope);
    if (sp) problems.push(`apiKeys[${i}].scope: ${sp}`);
  });
  const max = options.maxBodyBytes;
  if (max !== undefined && (!Number.isSafeInteger(max) || max < 1))
    problems.push('maxBodyBytes must be a positive integer');
  if (problems.length > 0)
    throw new IsocodeError(
      'INVALID_CONFIG',
      `invalid HTTP service options: ${problems.join('; ')}`,
      {
        details: { problems },
      },
    );
}

/** Builds the app and the parts a server drives (in-flight work, metrics). */
export function buildHttpApp(options: HttpAppOptions): HttpAppParts {
  validate(options);
  const { runtime } = options;
  const inflight = new InFlight();
  let serving = 0;
  const metrics = createServiceMetrics(runtime, () => serving, options.runs);
  const authenticate = createAuthenticator({
    apiKeys: options.apiKeys,
    defaultScope: options.defaultScope,
    allowAnonymous: options.allowAnonymous ?? options.apiKeys.length === 0,
  });
  const app = new Hono<HttpEnv>();

  // Echoes a sane incoming x-request-id (at most 128 of [A-Za-z0-9_=-]), else a random UUID.
  app.use(requestId({ headerName: 'x-request-id', limitLength: 128 }));
  app.use(async (c, next) => {
    // Touch the signal first: @hono/node-server creates the request's AbortController lazily and
    // aborts it when the client's connection closes before the response is finished.
    c.set('signal', c.req.raw.signal);
    serving++;
    try {
      await next();
    } finally {
      serving--;
      metrics.request(ROUTES.has(c.req.path) ? c.req.path : 'other', c.res.status);
      if (inflight.closing) c.header('Connection', 'close');
    }
  });
  app.use(async (c, next) => {
    if (inflight.closing)
      return errorResponse(c, 'SHUTTING_DOWN', 'the server is shutting down', undefined, {
        Connection: 'close',
        'Retry-After': '1',
      });
    await next();
  });

  app.get('/healthz', (c) => {
    // Read from state kept in the background: /healthz never waits on the store.
    const store = options.runs?.health();
    if (store === undefined || store.status !== 'unreachable')
      return c.json({ status: 'ok', ...(store === undefined ? {} : { store: store.status }) });
    return c.json({
      status: 'degraded',
      store: store.status,
      storeError: store.message,
      // What still works without the store: synchronous runs and calls; not background runs.
      degraded: ['/v1/runs', '/v1/approvals'],
    });
  });
  app.get('/metrics', (c) =>
    c.text(metrics.render(), 200, { 'Content-Type': PROMETHEUS_CONTENT_TYPE }),
  );

  app.use('/v1/*', async (c, next) => {
    const auth = authenticate(requestFacts(c));
    if (!auth.ok) {
      const r = refusal(auth.reason);
      return errorResponse(c, r.code, r.message, undefined, r.headers);
    }
    c.set('scope', auth.scope);
    c.set('keyName', auth.name);
    await next();
  });
  const maxBodyBytes = options.maxBodyBytes ?? 1_048_576;
  app.use(
    '/v1/*',
    bodyLimit({
      maxSize: maxBodyBytes,
      onError: (c) =>
        errorResponse(c, 'PAYLOAD_TOO_LARGE', `the request body exceeds ${maxBodyBytes} bytes`, {
          maxBodyBytes,
        }),
    }),
  );

  callRoutes(app, { runtime, inflight, metrics });
  catalogRoutes(app, runtime);
  if (options.console) consoleRoutes(app, options.console);
  if (options.runs) {
    runRoutes(app, { runs: options.runs });
    approvalRoutes(app, { runs: options.runs });
  }

  app.notFound((c) => errorResponse(c, 'NOT_FOUND', `no route for ${c.req.method} ${c.req.path}`));
  app.onError((err, c) => {
    if (err instanceof HTTPException)
      return err.status === 413
        ? errorResponse(c, 'PAYLOAD_TOO_LARGE', `the request body exceeds ${maxBodyBytes} bytes`)
        : errorResponse(c, 'BAD_REQUEST', err.message || 'bad request');
    // Work aborted by a shutdown reports the shutdown, not a client abort.
    if (
      inflight.closing &&
      isIsocodeError(err) &&
      (err.code === 'ABORTED' || err.code === 'ABORTED_BEFORE_DISPATCH')
    )
      return errorResponse(c, 'SHUTTING_DOWN', 'the server is shutting down', undefined, {
        'Retry-After': '1',
      });
    return thrownResponse(c, err);
  });
  return { app, inflight, metrics };
}

/**
 * Creates the HTTP app over a runtime: routes, auth, body limits, errors, metrics. Testable with
 * `app.request(...)`; serve it with {@link startHttpServer} (or any Hono adapter).
 * @throws IsocodeError INVALID_CONFIG when `defaultScope` or a key's scope is unknown, or a key is
 * empty or listed twice.
 */
export function createHttpApp(options: HttpAppOptions): HttpApp {
  return buildHttpApp(options).app;
}
