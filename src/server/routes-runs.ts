/**
 * Durable runs over HTTP: `POST /v1/runs` (start in the background, 202), `GET /v1/runs` (the
 * scope's runs, newest first), `GET /v1/runs/:id`,
 * `GET /v1/runs/:id/events` (SSE, resumable with `Last-Event-ID`), `POST /v1/runs/:id/cancel` and
 * `GET /v1/runs/:id/approvals` (the other approval routes: routes-approvals.ts). A run of another
 * scope is 404, exactly like an unknown one.
 */
import type { Context, Hono } from 'hono';
import { eventStream } from './event-stream.js';
import { z } from 'zod';
import type { Resolution, RunManager } from '../durable/runs.js';
import { MAX_LISTED_RUNS } from '../durable/run-view.js';
import { isFinalStatus, RUN_STATUSES, type RunEvent, type RunStatus } from '../durable/store.js';
import { parseBody } from './body.js';
import { errorResponse, type HttpEnv } from './respond.js';

/** What the run routes need. */
export interface RunRoutesDeps {
  runs: RunManager;
  /** How often an event stream re-reads the store for events appended by other replicas. @default 500 */
  eventPollMs?: number | undefined;
  /** Interval of SSE keep-alive comments. @default 15000 */
  ssePingMs?: number | undefined;
}

/** The body's shape only: run_code's own schema bounds the values (RunManager.start, INVALID_ARGS). */
const startBody = z.strictObject({
  code: z.string(),
  description: z.string().optional(),
});
/** How a human resolves an interrupted run's call: it took effect (with its value), it failed, or run it again. */
const resolveBody = z.strictObject({
  action: z.enum(['succeeded', 'failed', 'retry']),
  value: z.json().optional(),
  message: z.string().max(2000).optional(),
});
/** RFC 9110 visible ASCII, bounded: what clients (Stripe's convention: a UUID) send. */
const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,200}$/;

const notFound = (c: Context<HttpEnv>, what: string): Response =>
  errorResponse(c, 'NOT_FOUND', `no ${what} with this id in your scope`);

/** The id after which to resume: `Last-Event-ID`, else `?after=`, else 0. */
function resumeAfter(c: Context<HttpEnv>): number {
  const raw = c.req.header('last-event-id') ?? c.req.query('after') ?? '0';
  const n = Number(raw);
  return Number.isSafeInteger(n) && n >= 0 ? n : 0;
}

/** Installs the durable-run and approval routes. */
export function runRoutes(app: Hono<HttpEnv>, deps: RunRoutesDeps): void {
  const { runs } = deps;
  const { store } = runs;

  app.post('/v1/runs', async (c) => {
    const body = await parseBody(c.req, startBody);
    const key = c.req.header('idempotency-key');
    if (key !== undefined && !IDEMPOTENCY_KEY.test(key))
      return errorResponse(
        c,
        'BAD_REQUEST',
        'Idempotency-Key must be 1 to 200 visible ASCII characters',
      );
    const handle = await runs.start({
      code: body.code,
      description: body.description,
      scope: c.get('scope'),
      idempotencyKey: key,
    });
    // A retry with the same key answers as the first request did (the run as it stands now).
    return c.json(
      { id: handle.id, status: (await handle.view()).status, created: handle.created },
      202,
      { Location: `/v1/runs/${handle.id}` },
    );
  });

  app.post('/v1/runs/:id/resolve', async (c) => {
    const body = await parseBody(c.req, resolveBody);
    const resolution: Resolution =
      body.action === 'succeeded'
        ? { action: 'succeeded', value: body.value ?? null }
        : body.action === 'failed'
          ? { action: 'failed', message: body.message ?? 'resolved as failed by a human' }
          : { action: 'retry' };
    const view = await runs.resolve(c.req.param('id'), resolution, c.get('scope'));
    return view ? c.json(view) : notFound(c, 'run');
  });

  app.get('/v1/runs', async (c) => {
    const status = (c.req.queries('status') ?? []).flatMap((v) => v.split(',')).filter(Boolean);
    const unknown = status.filter((v) => !(RUN_STATUSES as readonly string[]).includes(v));
    if (unknown.length > 0)
      return errorResponse(
        c,
        'BAD_REQUEST',
        `unknown run status ${JSON.stringify(unknown[0])}; one of ${RUN_STATUSES.join(', ')}`,
      );
    const rawLimit = c.req.query('limit');
    const limit = rawLimit === undefined ? MAX_LISTED_RUNS : Number(rawLimit);
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LISTED_RUNS)
      return errorResponse(
        c,
        'BAD_REQUEST',
        `limit must be an integer from 1 to ${MAX_LISTED_RUNS}`,
      );
    const rawBefore = c.req.query('before');
    const before = rawBefore === undefined ? undefined : Number(rawBefore);
    if (before !== undefined && !Number.isSafeInteger(before))
      return errorResponse(
        c,
        'BAD_REQUEST',
        'before must be a createdAt time (ms since the epoch)',
      );
    const list = await runs.list(c.get('scope'), {
      status: status.length > 0 ? (status as RunStatus[]) : undefined,
      limit,
      before,
    });
    return c.json({ runs: list });
  });

  app.get('/v1/runs/:id', async (c) => {
    const view = await runs.get(c.req.param('id'), c.get('scope'));
    return view ? c.json(view) : notFound(c, 'run');
  });

  app.post('/v1/runs/:id/cancel', async (c) => {
    const view = await runs.cancel(c.req.param('id'), c.get('scope'));
    return view ? c.json(view) : notFound(c, 'run');
  });

  app.get('/v1/runs/:id/approvals', async (c) => {
    const id = c.req.param('id');
    if (!(await store.getRun(id, c.get('scope')))) return notFound(c, 'run');
    return c.json({ approvals: await store.listApprovals({ runId: id, scope: c.get('scope') }) });
  });

  app.get('/v1/runs/:id/events', async (c) => {
    const id = c.req.param('id');
    const scope = c.get('scope');
    if (!(await store.getRun(id, scope))) return notFound(c, 'run');
    let after = resumeAfter(c);
    return eventStream(c, async (stream) => {
      const signal = c.get('signal');
      let wake: () => void = () => undefined;
      const off = runs.onEvent((e: RunEvent) => {
        if (e.runId === id) wake();
      });
      const ping = setInterval(() => {
        void stream.write(': ping\n\n').catch(() => undefined);
      }, deps.ssePingMs ?? 15_000);
      ping.unref();
      try {
        for (;;) {
          const batch = await store.listEvents(id, after, 500);
          for (const e of batch) {
            await stream.writeSSE({
              id: String(e.seq),
              event: e.type,
              data: JSON.stringify(e.data),
            });
            after = e.seq;
          }
          if (batch.some((e) => e.type === 'result')) return;
          if (batch.length === 0) {
            const run = await store.getRun(id, scope);
            if (!run || (isFinalStatus(run.status) && run.finishedAt !== undefined)) {
              // Settled with nothing left to send (its result event, if any, was before `after`).
              const rest = await store.listEvents(id, after, 1);
              if (rest.length === 0) return;
              continue;
            }
            if (signal.aborted || stream.aborted) return;
            await new Promise<void>((resolve) => {
              const timer = setTimeout(done, deps.eventPollMs ?? 500);
              function done(): void {
                clearTimeout(timer);
                signal.removeEventListener('abort', done);
                resolve();
              }
              wake = done;
              signal.addEventListener('abort', done, { once: true });
            });
          }
          if (signal.aborted || stream.aborted) return;
        }
      } finally {
        off();
        clearInterval(ping);
      }
    });
  });
}
