/**
 * A `text/event-stream` parser (the WHATWG "server-sent events" interpretation rules), fed with
 * decoded text chunks as they arrive from `fetch`. `EventSource` cannot send an `Authorization`
 * header, so the console reads the stream itself. No DOM here: it is tested under Node.
 */

/** One dispatched event. */
export interface SseEvent {
  /** The `event:` field. @default "message" */
  type: string;
  data: string;
  /** The last event id seen so far (the stream's, not only this event's). */
  lastEventId: string;
}

/** Incremental parser: `feed` text, get back the events completed by it. */
export class SseParser {
  #buffer = '';
  #data: string[] = [];
  #type = '';
  /** The stream's last event id: committed when an event is dispatched (a blank line). */
  #lastEventId = '';
  /** The `id:` of the event being read, not yet dispatched. */
  #idBuffer = '';
  /** A chunk ended with `\r`: a `\n` opening the next chunk belongs to that line end. */
  #pendingCr = false;
  /** The `retry:` field's value, in milliseconds, once the server sent one. */
  retryMs: number | undefined;

  constructor(lastEventId = '') {
    this.#lastEventId = this.#idBuffer = lastEventId;
  }

  /** The id to resume from (`Last-Event-ID`): the last dispatched event's, never a half-read one's. */
  get lastEventId(): string {
    return this.#lastEventId;
  }

  /** Parses a chunk; returns the events it completed. */
  feed(chunk: string): SseEvent[] {
    let text = chunk;
    if (this.#pendingCr && text.startsWith('\n')) text = text.slice(1);
    this.#pendingCr = false;
    this.#buffer += text;
    const events: SseEvent[] = [];
    for (;;) {
      const m = /\r\n|\r|\n/.exec(this.#buffer);
      if (!m) break;
      // A lone `\r` at the very end may be the first half of `\r\n`.
      if (m[0] === '\r' && m.index === this.#buffer.length - 1) {
        this.#pendingCr = true;
      }
      const line = this.#buffer.slice(0, m.index);
      this.#buffer = this.#buffer.slice(m.index + m[0].length);
      const event = this.#line(line);
      if (event) events.push(event);
    }
    return events;
  }

  #line(line: string): SseEvent | undefined {
    if (line === '') return this.#dispatch();
    if (line.startsWith(':')) return undefined;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    switch (field) {
      case 'event':
        this.#type = value;
        break;
      case 'data':
        this.#data.push(value);
        break;
      case 'id':
        if (!value.includes('\0')) this.#idBuffer = value;
        break;
      case 'retry':
        if (/^\d+$/.test(value)) this.retryMs = Number(value);
        break;
      default:
        break;
    }
    return undefined;
  }

  #dispatch(): SseEvent | undefined {
    this.#lastEventId = this.#idBuffer;
    const type = this.#type;
    const data = this.#data;
    this.#type = '';
    this.#data = [];
    if (data.length === 0) return undefined;
    return {
      type: type === '' ? 'message' : type,
      data: data.join('\n'),
      lastEventId: this.#lastEventId,
    };
  }
}
