/**
 * The routes that run things: `POST /v1/execute` (a model-direct call), `POST /v1/run` (run_code,
 * JSON or a server-sent event stream) and `POST /v1/check` (type-check only). Tool outcomes,
 * successful or not, are 200 with the ToolResult.
 */
import { randomUUID } from 'node:crypto';
import type { Context, Hono } from 'hono';
import { eventStream } from './event-stream.js';
import { isIsocodeError, RUN_CODE, type Runtime, type ToolResult } from '../index.js';
import { checkBody, executeBody, parseBody, runBody } from './body.js';
import type { InFlight } from './inflight.js';
import type { ServiceMetrics } from './metrics.js';
import { errorResponse, type HttpEnv } from './respond.js';

/** What the call routes need. */
export interface CallRoutesDeps {
  runtime: Runtime;
  inflight: InFlight;
  metrics: ServiceMetrics;
  /** Interval of SSE keep-alive comments. @default 15000 */
  ssePingMs?: number | undefined;
}

/** A header naming the tool outcome (`ok` or the error code), for logs and proxies. */
const OUTCOME_HEADER = 'x-isocode-outcome';
const outcome = (r: ToolResult): string => (r.ok ? 'ok' : r.error.code);

/**
 * The response of a tool outcome: 200 with the ToolResult — except a run that was never admitted
 * (`OVERLOADED`), which is a request-level refusal: 429 with `Retry-After`.
 */
function resultResponse(c: Context<HttpEnv>, result: ToolResult): Response {
  if (!result.ok && result.error.code === 'OVERLOADED')
    return errorResponse(c, 'OVERLOADED', result.error.message, result.error.details, {
      [OUTCOME_HEADER]: 'OVERLOADED',
    });
  return c.json(result, 200, { [OUTCOME_HEADER]: outcome(result) });
}

const wantsEventStream = (c: Context<HttpEnv>): boolean =>
  (c.req.header('accept') ?? '')
    .split(',')
    .some((t) => t.split(';')[0]!.trim().toLowerCase() === 'text/event-stream');

/** Installs `POST /v1/execute`, `POST /v1/run` and `POST /v1/check`. */
export function callRoutes(app: Hono<HttpEnv>, deps: CallRoutesDeps): void {
  const { runtime, inflight, metrics } = deps;

  app.post('/v1/execute', async (c) => {
    const body = await parseBody(c.req, executeBody);
    const scope = c.get('scope');
    const result = await inflight.track(c.get('signal'), (signal) =>
      runtime.execute({ name: body.name, args: body.args ?? {}, id: body.id }, { scope, signal }),
    );
    if (body.name === RUN_CODE) metrics.run(result);
    return resultResponse(c, result);
  });

  app.post('/v1/run', async (c) => {
    const args = await parseBody(c.req, runBody);
    const scope = c.get('scope');
    // A server-chosen id: progress is routed by it, so no client can listen to another's run.
    const id = `http-${randomUUID()}`;
    const run = (signal: AbortSignal): Promise<ToolResult> =>
      runtime.execute({ name: RUN_CODE, args, id }, { scope, signal });
    if (!wantsEventStream(c)) {
      const result = await inflight.track(c.get('signal'), run);
      metrics.run(result);
      return resultResponse(c, result);
    }
    return eventStream(c, async (stream) => {
      let seq = 0;
      let chain: Promise<void> = Promise.resolve();
      const send = (event: string, data: unknown): void => {
        const message = { event, data: JSON.stringify(data), id: String(seq++) };
        // Writes are queued so events keep their order; a gone client makes writes fail: ignored.
        chain = chain.then(() => stream.writeSSE(message)).catch(() => undefined);
      };
      const off = runtime.onProgress((callId, event) => {
        if (callId === id) send(event.type, event);
      });
      const ping = setInterval(() => {
        chain = chain
          .then(() => stream.write(': ping\n\n'))
          .then(
            () => undefined,
            () => undefined,
          );
      }, deps.ssePingMs ?? 15_000);
      ping.unref();
      try {
        await inflight.track(c.get('signal'), async (signal) => {
          const result = await run(signal);
          off();
          metrics.run(result);
          send('result', result);
          await chain;
        });
      } catch (err) {
        // The stream has started (status 200): a request-level failure becomes an `error` event.
        const e = isIsocodeError(err)
          ? err.toJSON()
          : { code: 'INTERNAL_ERROR', message: 'internal error' };
        send('error', { error: e, requestId: c.get('requestId') });
        await chain;
      } finally {
        off();
        clearInterval(ping);
      }
    });
  });

  app.post('/v1/check', async (c) => {
    const { code } = await parseBody(c.req, checkBody);
    const scope = c.get('scope');
    const diagnostics = await inflight.track(c.get('signal'), (signal) =>
      runtime.check(code, scope, signal),
    );
    return c.json({ ok: diagnostics.length === 0, diagnostics });
  });
}
