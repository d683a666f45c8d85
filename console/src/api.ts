/**
 * The console's only way to data: the `/v1` HTTP API with the viewer's bearer key, exactly as a
 * programmatic client calls it (same auth, scope checks and audit). The key is sent only in the
 * `Authorization` header, never in a URL or a cookie, so a cross-site page cannot make the browser
 * act with it (no CSRF). No DOM here (the key's storage is key-store.ts): tested under Node too.
 */
import { SseParser, type SseEvent } from './sse.js';

/** A run as `GET /v1/runs` and `GET /v1/runs/:id` show it (fields the console reads). */
export interface RunView {
  id: string;
  scope: string;
  description?: string | undefined;
  status: string;
  program?: string | undefined;
  calls?: CallView[] | undefined;
  callCount?: number | undefined;
  pendingApprovals?: number | undefined;
  result?: unknown;
  error?: unknown;
  createdAt: number;
  startedAt?: number | undefined;
  updatedAt?: number | undefined;
  finishedAt?: number | undefined;
  /** Stored columns that could not be read (shown empty); the run is failed, never run. */
  damaged?: string[] | undefined;
}

/** Runs per page of the runs list (the API's most). */
export const RUNS_PAGE = 100;

/** A nested call of a run. */
export interface CallView {
  name: string;
  ok?: boolean | undefined;
  code?: string | undefined;
  durationMs?: number | undefined;
  args?: unknown;
  key?: string | undefined;
  parent?: string | undefined;
  status?: string | undefined;
}

/** A pending or decided approval. */
export interface ApprovalView {
  id: string;
  runId: string;
  /** The executor id of the asking call (a timeline row's `callId`). */
  callKey?: string | undefined;
  tool: string;
  args: unknown;
  scope: string;
  reason: string;
  status: string;
  decidedBy?: string | undefined;
  decidedAt?: number | undefined;
  createdAt: number;
  /** Stored columns that could not be read (shown empty): it can be rejected, not approved. */
  damaged?: string[] | undefined;
}

/** A refused or failed request: the API's `{ error: { code, message } }`. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** The API client of one viewer (a key, or anonymous loopback access). */
export class Api {
  /**
   * @param key the bearer key; undefined for anonymous loopback access
   * @param base the origin the API is at. @default "" (the page's own)
   */
  constructor(
    readonly key: string | undefined,
    readonly base = '',
  ) {}

  /** Request headers: the bearer key when there is one. */
  headers(extra: Record<string, string> = {}): Record<string, string> {
    return this.key === undefined ? extra : { ...extra, Authorization: `Bearer ${this.key}` };
  }

  /** A JSON request. @throws ApiError on a non-2xx answer or a network failure. */
  async request<T>(
    method: 'GET' | 'POST',
    path: string,
    body?: unknown,
    signal?: AbortSignal,
  ): Promise<T> {
    let res: Response;
    try {
      res = await fetch(`${this.base}${path}`, {
        method,
        headers: this.headers(body === undefined ? {} : { 'Content-Type': 'application/json' }),
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        credentials: 'omit',
        ...(signal ? { signal } : {}),
      });
    } catch (err) {
      if (signal?.aborted) throw err;
      throw new ApiError(0, 'NETWORK', 'the server cannot be reached');
    }
    const text = await res.text();
    let json: unknown;
    try {
      json = text === '' ? undefined : JSON.parse(text);
    } catch {
      json = undefined;
    }
    if (!res.ok) {
      const e = (json as { error?: { code?: unknown; message?: unknown } } | undefined)?.error;
      throw new ApiError(
        res.status,
        typeof e?.code === 'string' ? e.code : `HTTP_${res.status}`,
        typeof e?.message === 'string' ? e.message : res.statusText,
      );
    }
    return json as T;
  }

  /** Checks the key: `GET /v1/tools` answers any valid key. */
  async check(): Promise<void> {
    await this.request('GET', '/v1/tools');
  }

  /** The newest runs (at most {@link RUNS_PAGE}), or those created before `before` (ms). */
  async listRuns(
    status: string | undefined,
    signal?: AbortSignal,
    before?: number,
  ): Promise<RunView[]> {
    const q = new URLSearchParams({ limit: String(RUNS_PAGE) });
    if (status) q.set('status', status);
    if (before !== undefined) q.set('before', String(before));
    const out = await this.request<{ runs?: RunView[] }>('GET', `/v1/runs?${q}`, undefined, signal);
    return out.runs ?? [];
  }

  getRun(id: string, signal?: AbortSignal): Promise<RunView> {
    return this.request('GET', `/v1/runs/${encodeURIComponent(id)}`, undefined, signal);
  }

  cancelRun(id: string): Promise<RunView> {
    return this.request('POST', `/v1/runs/${encodeURIComponent(id)}/cancel`);
  }

  /** One page of the scope's approvals (`GET /v1/approvals`, at most 100; `next` pages on). */
  async listApprovals(
    query: {
      status?: 'pending' | 'decided' | 'all';
      order?: 'oldest' | 'newest';
      limit?: number;
      after?: string | undefined;
    },
    signal?: AbortSignal,
  ): Promise<{ approvals: ApprovalView[]; next: string | undefined }> {
    const q = new URLSearchParams();
    if (query.status) q.set('status', query.status);
    if (query.order) q.set('order', query.order);
    if (query.limit !== undefined) q.set('limit', String(query.limit));
    if (query.after !== undefined) q.set('after', query.after);
    const qs = q.toString();
    const out = await this.request<{ approvals?: ApprovalView[]; next?: string | null }>(
      'GET',
      `/v1/approvals${qs === '' ? '' : `?${qs}`}`,
      undefined,
      signal,
    );
    return { approvals: out.approvals ?? [], next: out.next ?? undefined };
  }

  async runApprovals(id: string, signal?: AbortSignal): Promise<ApprovalView[]> {
    const out = await this.request<{ approvals?: ApprovalView[] }>(
      'GET',
      `/v1/runs/${encodeURIComponent(id)}/approvals`,
      undefined,
      signal,
    );
    return out.approvals ?? [];
  }

  /** Decides one approval (`POST /v1/approvals/:id`) or several at once (the batch form). */
  async decide(ids: readonly string[], decision: 'allowed-once' | 'rejected'): Promise<void> {
    if (ids.length === 1)
      await this.request('POST', `/v1/approvals/${encodeURIComponent(ids[0]!)}`, { decision });
    else
      await this.request('POST', '/v1/approvals', {
        decisions: ids.map((id) => ({ id, decision })),
      });
  }

  /**
   * Follows a run's events (`GET /v1/runs/:id/events`) until `onEvent` returns `'stop'` or the
   * signal aborts; after a dropped connection it reconnects with `Last-Event-ID`, so no event is
   * lost or repeated.
   * @param onState told when the stream is live, reconnecting, or failed for good (with the error).
   */
  followEvents(
    runId: string,
    onEvent: (event: SseEvent) => 'stop' | void,
    onState: (state: 'live' | 'reconnecting' | 'closed', error?: ApiError) => void,
    signal: AbortSignal,
  ): Promise<void> {
    return this.follow(`/v1/runs/${encodeURIComponent(runId)}/events`, onEvent, onState, signal);
  }

  /** Follows an event stream of the API (see {@link followEvents}): reconnects, resumes, never throws. */
  async follow(
    path: string,
    onEvent: (event: SseEvent) => 'stop' | void,
    onState: (state: 'live' | 'reconnecting' | 'closed', error?: ApiError) => void,
    signal: AbortSignal,
  ): Promise<void> {
    let lastEventId = '';
    let delay = 500;
    while (!signal.aborted) {
      const parser = new SseParser(lastEventId);
      try {
        const res = await fetch(`${this.base}${path}`, {
          headers: this.headers({
            Accept: 'text/event-stream',
            ...(lastEventId === '' ? {} : { 'Last-Event-ID': lastEventId }),
          }),
          credentials: 'omit',
          signal,
        });
        if (!res.ok || !res.body) {
          const json = (await res.json().catch(() => undefined)) as
            { error?: { code?: string; message?: string } } | undefined;
          // 4xx will not get better by retrying; 5xx might.
          if (res.status < 500) {
            onState(
              'closed',
              new ApiError(
                res.status,
                json?.error?.code ?? `HTTP_${res.status}`,
                json?.error?.message ?? res.statusText,
              ),
            );
            return;
          }
          throw new Error(`HTTP ${res.status}`);
        }
        onState('live');
        delay = 500;
        const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          for (const event of parser.feed(value)) {
            lastEventId = event.lastEventId;
            if (onEvent(event) === 'stop') {
              await reader.cancel().catch(() => undefined);
              onState('closed');
              return;
            }
          }
        }
        lastEventId = parser.lastEventId;
      } catch {
        if (signal.aborted) return;
        lastEventId = parser.lastEventId;
      }
      onState('reconnecting');
      await new Promise((resolve) => setTimeout(resolve, parser.retryMs ?? delay));
      delay = Math.min(delay * 2, 5_000);
    }
  }
}
