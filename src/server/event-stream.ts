/**
 * The one way a route answers with server-sent events. A `HEAD` request (Hono answers it with the
 * `GET` route) gets the stream's headers and no stream: the body of a HEAD response is never
 * read, so a stream started for one never saw its client go and kept its loop, its listeners and
 * its store polling for ever (one per request).
 */
import type { Context } from 'hono';
import { streamSSE, type SSEStreamingApi } from 'hono/streaming';

/** An event stream of `c` run by `write`, or its headers alone for HEAD. */
export function eventStream(
  c: Context,
  write: (stream: SSEStreamingApi) => Promise<void>,
): Response {
  c.header('X-Accel-Buffering', 'no');
  if (c.req.method === 'HEAD')
    return c.body(null, 200, {
      'Content-Type': 'text/event-stream',
      'Cache-Control': 'no-cache',
    });
  return streamSSE(c, write);
}
