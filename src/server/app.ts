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

/**
 * The header of a 413: the rest of the refused body is not read, so the connection cannot carry
 * another request; the answer says so (the server closes it after the response) instead of
 * promising keep-alive and dropping it.
 */
const CLOSE = { Connection: 'close' } as const;

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

/**
 * What a caller without TypeScript can get wrong about the shape (checked first: the rest assumes
 * it). `apiKeys` is required even when empty: `[]` is the explicit choice of anonymous access from
 * this machine, so a key list lost on the way (`apiKeys: config.keys` of a config without them) is
 * a startup error, not a service without keys (decision record 033).
 */
function shapeProblems(options: unknown): string[] {
  if (typeof options !== 'object' || options === null) return ['options must be an object'];
  const o = options as Record<string, unknown>;
  const problems: string[] = [];
  const runtime = o.runtime as { execute?: unknown; mode?: unknown } | null | undefined;
  if (typeof runtime !== 'object' || runtime === null || typeof runtime.execute !== 'function')
    problems.push('runtime: required, a runtime from createRuntime()');
  if (typeof o.defaultScope !== 'string')
    problems.push('defaultScope: required, the scope of requests without an API key');
  if (!Array.isArray(o.apiKeys))
    problems.push(
      'apiKeys: required, an array of { key, scope }; pass [] to serve without keys (then only requests from this machine are let in)',
    );
  else
    o.apiKeys.forEach((k: unknown, i) => {
      if (
        typeof k !== 'object' ||
        k === null ||
        typeof (k as { scope?: unknown }).scope !== 'string'
      )
        problems.push(`apiKeys[${i}]: expected { key: string, scope: string }`);
    });
  return problems;
}

/**
 * Validates the options.
 * @throws IsocodeError INVALID_CONFIG naming each bad option, scope or key.
 */
export function validateHttpOptions(options: HttpAppOptions): void {
  const shape = shapeProblems(options);
  if (shape.length > 0) throw invalidOptions(shape);
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
  if (problems.length > 0) throw invalidOptions(problems);
}

const invalidOptions = (problems: string[]): IsocodeError =>
  new IsocodeError('INVALID_CONFIG', `invalid HTTP service options: ${problems.join('; ')}`, {
    details: { problems },
  });

/** Builds the app and the parts a server drives (in-flight work, metrics). */
export function buildHttpApp(options: HttpAppOptions): HttpAppParts {
  validateHttpOptions(options);
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
    // The second wall (decision record 032): off is reported, never hidden.
    const status = runtime.stats().runner?.wall;
    const wall =
      status === undefined
        ? {}
        : {
            wall: {
              mode: status.mode,
              active: status.active,
              ...(status.reason === undefined ? {} : { reason: status.reason }),
              noExec: status.noExec,
              ...(status.noExecReason === undefined ? {} : { noExecReason: status.noExecReason }),
            },
          };
    if (store === undefined || store.status !== 'unreachable')
      return c.json({
        status: 'ok',
        ...(store === undefined ? {} : { store: store.status }),
        ...wall,
      });
    return c.json({
      status: 'degraded',
      ...wall,
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
        errorResponse(
          c,
          'PAYLOAD_TOO_LARGE',
          `the request body exceeds ${maxBodyBytes} bytes`,
          { maxBodyBytes },
          CLOSE,
        ),
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
        ? errorResponse(
            c,
            'PAYLOAD_TOO_LARGE',
            `the request body exceeds ${maxBodyBytes} bytes`,
            undefined,
            CLOSE,
          )
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
