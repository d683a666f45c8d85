/**
 * Approvals over HTTP: `GET /v1/approvals` (a scope's approvals, a bounded page), `GET
 * /v1/approvals/events` (SSE: the pending set each time it changes, so a console needs no polling),
 * `POST /v1/approvals/:id` and the batch `POST /v1/approvals`. An approval of another scope is 404,
 * exactly like an unknown one.
 */
import type { Context, Hono } from 'hono';
import { eventStream } from './event-stream.js';
import { z } from 'zod';
import type { RunManager } from '../durable/runs.js';
import type { ApprovalRecord, ApprovalStatus } from '../durable/store.js';
import { IsocodeError, isIsocodeError } from '../index.js';
import { parseBody } from './body.js';
import { errorResponse, type HttpEnv } from './respond.js';

/** What the approval routes need. */
export interface ApprovalRoutesDeps {
  runs: RunManager;
  /**
   * How often an approvals stream re-reads the pending set for changes made on other replicas
   * (this replica's own changes are sent at once). @default 5000
   */
  approvalPollMs?: number | undefined;
  /** Interval of SSE keep-alive comments. @default 15000 */
  ssePingMs?: number | undefined;
}

/** The most approvals one page holds. */
export const MAX_LISTED_APPROVALS = 100;
/** The most pending approvals an approvals-stream event names. */
const MAX_STREAMED_PENDING = 1000;

const DECIDED: readonly ApprovalStatus[] = ['allowed-once', 'rejected', 'cancelled', 'unavailable'];
const STATUS_FILTERS: Record<string, readonly ApprovalStatus[] | undefined> = {
  pending: ['pending'],
  decided: DECIDED,
  all: undefined,
};

const decision = z.enum(['allowed-once', 'rejected']);
const decideBody = z.strictObject({ decision });
const batchBody = z.strictObject({
  decisions: z
    .array(z.strictObject({ id: z.string().min(1).max(200), decision }))
    .min(1)
    .max(100),
});

/** Installs the approval routes. */
export function approvalRoutes(app: Hono<HttpEnv>, deps: ApprovalRoutesDeps): void {
  const { runs } = deps;
  const { store } = runs;
  // Who decided: a named key by its name, else the scope and the request (the audit's request id).
  const who = (c: Context<HttpEnv>): string => {
    const name = c.get('keyName');
    return name === undefined ? `http:${c.get('scope')}:${c.get('requestId')}` : `key:${name}`;
  };

  // `?status=pending|decided|all` (default pending), `?order=oldest|newest` (default oldest),
  // `?limit=1..100` (default 100), `?after=<id>` (the next page); `next` is the id to page from.
  app.get('/v1/approvals', async (c) => {
    const status = c.req.query('status') ?? 'pending';
    if (!Object.hasOwn(STATUS_FILTERS, status))
      return errorResponse(c, 'BAD_REQUEST', 'status must be pending, decided or all');
    const order = c.req.query('order') ?? 'oldest';
    if (order !== 'oldest' && order !== 'newest')
      return errorResponse(c, 'BAD_REQUEST', 'order must be oldest or newest');
    const rawLimit = c.req.query('limit');
    const limit = rawLimit === undefined ? MAX_LISTED_APPROVALS : Number(rawLimit);
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LISTED_APPROVALS)
      return errorResponse(
        c,
        'BAD_REQUEST',
        `limit must be an integer from 1 to ${MAX_LISTED_APPROVALS}`,
      );
    const after = c.req.query('after');
    if (after !== undefined && (after === '' || after.length > 200))
      return errorResponse(c, 'BAD_REQUEST', 'after must be an approval id');
    const filtered = STATUS_FILTERS[status];
    const approvals = await store.listApprovals({
      scope: c.get('scope'),
      ...(filtered === undefined ? {} : { status: filtered }),
      limit,
      after,
      newestFirst: order === 'newest',
    });
    return c.json({
      approvals,
      next: approvals.length === limit ? (approvals.at(-1)?.id ?? null) : null,
    });
  });

  // The scope's pending approvals each time the set changes (first at once): `event: pending`,
  // `data: { count, ids }` (oldest first, at most 1000 ids). Woken by this replica's approval
  // events and the store's wake-ups, and re-read every `approvalPollMs` for other replicas'.
  app.get('/v1/approvals/events', (c) => {
    const scope = c.get('scope');
    return eventStream(c, async (stream) => {
      const signal = c.get('signal');
      let wake: () => void = () => undefined;
      const offEvents = runs.onEvent((e) => {
        if (e.type === 'approval') wake();
      });
      const offWake = store.onWake(() => wake());
      const ping = setInterval(() => {
        void stream.write(': ping\n\n').catch(() => undefined);
      }, deps.ssePingMs ?? 15_000);
      ping.unref();
      let shown: string | undefined;
      let seq = 0;
      try {
        while (!signal.aborted && !stream.aborted) {
          const pending = await store.listApprovals({
            scope,
            status: ['pending'],
            limit: MAX_STREAMED_PENDING,
          });
          const ids = pending.map((a) => a.id);
          const key = ids.join(',');
          if (key !== shown) {
            shown = key;
            await stream.writeSSE({
              id: String(++seq),
              event: 'pending',
              data: JSON.stringify({ count: ids.length, ids }),
            });
          }
          await new Promise<void>((resolve) => {
            const timer = setTimeout(done, deps.approvalPollMs ?? 5_000);
            function done(): void {
              clearTimeout(timer);
              signal.removeEventListener('abort', done);
              wake = () => undefined;
              resolve();
            }
            wake = done;
            signal.addEventListener('abort', done, { once: true });
          });
        }
      } finally {
        offEvents();
        offWake();
        clearInterval(ping);
      }
    });
  });

  const decide = async (
    id: string,
    status: 'allowed-once' | 'rejected',
    c: Context<HttpEnv>,
  ): Promise<{ approval: ApprovalRecord; applied: boolean } | undefined> => {
    const scope = c.get('scope');
    // The store refuses to allow an approval whose stored record is damaged (STORE_CORRUPT).
    const decided = await store.decideApproval(id, status, who(c), scope);
    if (decided) return { approval: decided, applied: true };
    const existing = await store.getApproval(id, scope);
    return existing && { approval: existing, applied: false };
  };

  app.post('/v1/approvals/:id', async (c) => {
    const body = await parseBody(c.req, decideBody);
    const out = await decide(c.req.param('id'), body.decision, c);
    return out
      ? c.json(out)
      : errorResponse(c, 'NOT_FOUND', 'no approval with this id in your scope');
  });

  app.post('/v1/approvals', async (c) => {
    const body = await parseBody(c.req, batchBody);
    const ids = body.decisions.map((d) => d.id);
    if (new Set(ids).size !== ids.length)
      throw new IsocodeError('BAD_REQUEST', 'an approval is listed twice in the batch');
    const results = await Promise.all(
      body.decisions.map(async (d) => {
        let out: Awaited<ReturnType<typeof decide>>;
        try {
          out = await decide(d.id, d.decision, c);
        } catch (error) {
          // One approval that cannot be decided does not fail the others of the batch.
          if (!isIsocodeError(error) || error.code !== 'STORE_CORRUPT') throw error;
          return { id: d.id, error: { code: error.code, message: error.message } };
        }
        return out
          ? { id: d.id, ...out }
          : {
              id: d.id,
              error: { code: 'NOT_FOUND', message: 'no approval with this id in your scope' },
            };
      }),
    );
    return c.json({ results });
  });
}
