/**
 * An HTTP upstream's answers read by isocode's rule (`readValue`, decision 005) before the SDK's
 * Streamable HTTP transport sees them. The transport parses a JSON body and each SSE event with the
 * strict message schema: a JSON body it refuses fails the request (and was taken for a lost
 * connection), and an SSE event it refuses is dropped, so its call waited out its time limit. This
 * `fetch` hands the transport the same answers, each message as `readValue` reads it: a usable
 * answer as it is (envelope noise dropped), an unusable one as an error response its call reports.
 * Anything else (a status that is not 2xx, another content type, text that is not JSON, a request
 * or notification) passes unchanged.
 */
import { EventSourceParserStream, type EventSourceMessage } from 'eventsource-parser/stream';
import { readValue } from '../jsonrpc/line-buffer.js';

/** `fetch` reading an upstream's answers as above. */
export function readableAnswersFetch(base: typeof fetch = fetch): typeof fetch {
  return async (input, init) => {
    const response = await base(input, init);
    if (!response.ok || response.body === null) return response;
    const type = (response.headers.get('content-type') ?? '').split(';')[0]?.trim().toLowerCase();
    if (type === 'application/json') return withBody(response, readJsonBody(await response.text()));
    if (type !== 'text/event-stream') return response;
    let retry: number | undefined;
    const events = response.body
      .pipeThrough(new TextDecoderStream())
      .pipeThrough(new EventSourceParserStream({ onRetry: (ms) => (retry = ms) }))
      .pipeThrough(
        new TransformStream<EventSourceMessage, string>({
          transform(event, out) {
            if (retry !== undefined) out.enqueue(`retry: ${retry}\n\n`);
            retry = undefined;
            out.enqueue(eventText(event));
          },
          flush(out) {
            if (retry !== undefined) out.enqueue(`retry: ${retry}\n\n`);
          },
        }),
      )
      .pipeThrough(new TextEncoderStream());
    return withBody(response, events);
  };
}

/** A JSON body (one message or a batch), each message read; text that is not JSON as it is. */
function readJsonBody(text: string): string {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return text;
  }
  return JSON.stringify(Array.isArray(value) ? value.map(readOne) : readOne(value));
}

function readOne(value: unknown): unknown {
  const read = readValue(value);
  return 'message' in read ? read.message : value;
}

/** One SSE event as text again, its `message` data read. */
function eventText(event: EventSourceMessage): string {
  let data = event.data;
  if (data !== '' && (event.event === undefined || event.event === 'message')) {
    try {
      data = JSON.stringify(readOne(JSON.parse(data)));
    } catch {
      // not JSON: the transport reports it, as before
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
