/**
 * An HTTP upstream's answers read by isocode's rule (`readValue`, decision 005) before the SDK's
 * Streamable HTTP transport sees them. The transport parses a JSON body and each SSE event with the
 * strict message schema: a JSON body it refuses failed the request (and was taken for a lost
 * connection), and an SSE event it refuses was dropped, so its call waited out its time limit. This
 * `fetch` hands the transport the answers as read:
 *
 * - each message of a 2xx JSON body or SSE stream as `readValue` reads it (a usable answer as it is,
 *   envelope noise dropped; an unusable one as an error response its call reports); a message that
 *   cannot be read at all is left out of a JSON body (it failed the whole body) and left as it is in
 *   an SSE event (the transport reports and drops it);
 * - a request of the POST that the answer leaves unanswered — a JSON body without its response, one
 *   that is not JSON, an SSE stream that ends without it and without an event id to resume from —
 *   gets an error response that says so, at once, instead of waiting out its time limit.
 *
 * A JSON body is read up to 10 MiB (the limit of one stdio message): past it, the calls it answers
 * fail with that reason and the rest is not read; an SSE event past it ends the stream (and the
 * connection). Anything else (a redirect, an error status, another content type) passes as it is.
 */
import type { JSONRPCMessage, RequestId } from '@modelcontextprotocol/sdk/types.js';
import { EventSourceParserStream, type EventSourceMessage } from 'eventsource-parser/stream';
import { MAX_MESSAGE_BYTES, MessageTooLargeError } from '../jsonrpc/line-buffer.js';
import { malformedResponse, readValue } from '../jsonrpc/read-message.js';
import { readBounded } from './openapi-http.js';

const TOO_LARGE = new MessageTooLargeError(MAX_MESSAGE_BYTES);

/** `fetch` reading an upstream's answers as above. */
export function readableAnswersFetch(base: typeof fetch = fetch): typeof fetch {
  return async (input, init) => {
    const response = await base(input, init);
    if (!response.ok || response.body === null) return response;
    const type = (response.headers.get('content-type') ?? '').split(';')[0]?.trim().toLowerCase();
    const ids = requestIds(init?.body);
    if (type === 'application/json') {
      // One message is at most what a stdio message may be; the body is read no further.
      const { bytes, truncated } = await readBounded(response, MAX_MESSAGE_BYTES);
      return withBody(
        response,
        truncated
          ? JSON.stringify(unanswered(ids, `the answer is over ${TOO_LARGE.limit}`))
          : readJsonBody(bytes.toString('utf8'), ids),
      );
    }
    if (type !== 'text/event-stream') return response;
    return withBody(response, readEventStream(response.body, ids));
  };
}

/** The ids of the requests a POST's body sends (a message or a batch of them). */
function requestIds(body: unknown): Set<RequestId> {
  const ids = new Set<RequestId>();
  if (typeof body !== 'string') return ids;
  try {
    const sent: unknown = JSON.parse(body);
    for (const message of Array.isArray(sent) ? sent : [sent]) {
      const { id, method } = (message ?? {}) as { id?: unknown; method?: unknown };
      if (typeof method === 'string' && (typeof id === 'string' || typeof id === 'number'))
        ids.add(id);
    }
  } catch {
    // not JSON: no request of ours
  }
  return ids;
}

/** What a body left unanswered, as error responses. */
function unanswered(ids: Set<RequestId>, why: string): JSONRPCMessage[] {
  return [...ids].map((id) => malformedResponse(id, why));
}

/** A message as read, and the request it answers taken off `ids`; undefined when unreadable. */
function readOne(value: unknown, ids: Set<RequestId>): JSONRPCMessage | undefined {
  const read = readValue(value);
  if (!('message' in read)) return undefined;
  const message = read.message;
  if (!('method' in message) && 'id' in message && message.id !== undefined) ids.delete(message.id);
  return message;
}

/** A JSON body (one message or a batch), as read; what it left unanswered answered. */
function readJsonBody(text: string, ids: Set<RequestId>): string {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return ids.size === 0 ? text : JSON.stringify(unanswered(ids, 'the answer is not JSON'));
  }
  const messages: JSONRPCMessage[] = [];
  for (const item of Array.isArray(value) ? value : [value]) {
    const message = readOne(item, ids);
    if (message !== undefined) messages.push(message);
  }
  messages.push(...unanswered(ids, 'the answer holds no response to this request'));
  try {
    return JSON.stringify(messages.length === 1 ? messages[0] : messages);
  } catch {
    return text; // nested too deep to write again: the transport reads it as it came
  }
}

/** An SSE stream as read, event by event; what it left unanswered answered at its end. */
function readEventStream(
  body: ReadableStream<Uint8Array>,
  ids: Set<RequestId>,
): ReadableStream<Uint8Array> {
  let out: TransformStreamDefaultController<string> | undefined;
  let resumable = false;
  return body
    .pipeThrough(new TextDecoderStream())
    .pipeThrough(boundEvents(MAX_MESSAGE_BYTES))
    .pipeThrough(new EventSourceParserStream({ onRetry: (ms) => out?.enqueue(`retry: ${ms}\n\n`) }))
    .pipeThrough(
      new TransformStream<EventSourceMessage, string>({
        start(controller) {
          out = controller;
        },
        transform(event, controller) {
          if (event.id !== undefined && event.id !== '') resumable = true;
          controller.enqueue(eventText(event, ids));
        },
        flush(controller) {
          // A stream with an event id is resumed by the transport (it asks for the rest with a GET).
          if (resumable) return;
          for (const message of unanswered(ids, 'the answer stream ended without a response'))
            controller.enqueue(
              eventText({ event: undefined, id: undefined, data: '' }, ids, message),
            );
        },
      }),
    )
    .pipeThrough(new TextEncoderStream());
}

/**
 * Errors the stream (the transport then drops the connection) when one event grows past `max`
 * characters: the SSE parser holds an event whole until its blank line.
 */
function boundEvents(max: number): TransformStream<string, string> {
  let size = 0;
  let tail = '';
  return new TransformStream<string, string>({
    transform(chunk, out) {
      const text = tail + chunk;
      let end = -1;
      for (const boundary of EVENT_ENDS) {
        const at = text.lastIndexOf(boundary);
        if (at >= 0) end = Math.max(end, at + boundary.length);
      }
      size = end < 0 ? size + chunk.length : text.length - end;
      if (size > max) throw TOO_LARGE;
      tail = text.slice(-2);
      out.enqueue(chunk);
    },
  });
}
/** The blank lines that end an SSE event, whatever the line endings. */
const EVENT_ENDS = ['\n\n', '\r\r', '\n\r\n'];

/** One SSE event as text again, its `message` data read (or `message` in its place). */
function eventText(
  event: EventSourceMessage,
  ids: Set<RequestId>,
  message?: JSONRPCMessage,
): string {
  let data = event.data;
  if (message !== undefined) data = JSON.stringify(message);
  else if (data !== '' && (event.event === undefined || event.event === 'message')) {
    try {
      const read = readOne(JSON.parse(data), ids);
      if (read !== undefined) data = JSON.stringify(read);
    } catch {
      // not JSON, or too deep to write again: the transport reads it as it came
    }
  }
  let text = '';
  if (event.id !== undefined) text += `id: ${oneLine(event.id)}\n`;
  if (event.event !== undefined) text += `event: ${oneLine(event.event)}\n`;
  for (const line of data.split('\n')) text += `data: ${line}\n`;
  return `${text}\n`;
}

/** A field the parser gave as one line stays one (it cannot hold a line break; defensive). */
const oneLine = (field: string): string => field.replace(/[\r\n]/g, '');

function withBody(response: Response, body: string | ReadableStream<Uint8Array>): Response {
  const headers = new Headers(response.headers);
  headers.delete('content-length');
  return new Response(body, { status: response.status, statusText: response.statusText, headers });
}
