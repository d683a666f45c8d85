/**
 * The HTTP client of OpenAPI sources: Node's fetch with redirects followed by hand (only within one
 * origin, at most five), and bodies read as a stream that stops at a byte limit. Whatever the remote
 * sends is hostile: a body is never buffered past the limit, and a redirect never leaves the origin.
 */
import { thrownText } from '../errors.js';
import { IsocodeError } from '../index.js';
import { cutText } from '../text/clip.js';
import { visible } from '../text/visible.js';

/** Redirects followed per request (same origin only). */
const MAX_REDIRECTS = 5;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/** A request before it is sent. */
export interface HttpRequest {
  method: string;
  url: URL;
  headers: Headers;
  body: string | undefined;
}

/** Why a request failed before an answer came (for the caller's error). */
export class HttpFailure extends Error {
  constructor(
    message: string,
    readonly kind: 'network' | 'redirect',
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'HttpFailure';
  }
}

/**
 * Sends a request; a redirect to the same origin is followed (303, and 301/302 of a POST, become a
 * GET without body, as fetch does), one to another origin fails. The response's body is not read.
 * @throws HttpFailure for a network error or a refused redirect; the signal's reason when aborted.
 */
export async function send(request: HttpRequest, signal: AbortSignal): Promise<Response> {
  let { method, url, body } = request;
  for (let hop = 0; ; hop++) {
    let response: Response;
    try {
      response = await fetch(url, {
        method,
        headers: request.headers,
        ...(body === undefined ? {} : { body }),
        redirect: 'manual',
        signal,
      });
    } catch (error) {
      if (signal.aborted) throw signal.reason;
      const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
      const why = thrownText(cause);
      throw new HttpFailure(`${method} ${url.origin}${url.pathname} failed: ${why}`, 'network', {
        cause: error,
      });
    }
    const location = response.headers.get('location');
    if (!REDIRECT_STATUSES.has(response.status) || location === null) return response;
    await response.body?.cancel().catch(() => undefined);
    const next = URL.canParse(location, url.href) ? new URL(location, url) : undefined;
    if (next === undefined || next.origin !== url.origin)
      throw new HttpFailure(
        `${method} ${url.pathname} was redirected to another origin (${next?.origin ?? 'an invalid URL'}); redirects are followed only within ${url.origin}`,
        'redirect',
      );
    if (hop >= MAX_REDIRECTS)
      throw new HttpFailure(
        `${method} ${url.pathname}: more than ${MAX_REDIRECTS} redirects`,
        'redirect',
      );
    if (
      response.status === 303 ||
      ((response.status === 301 || response.status === 302) && method === 'POST')
    ) {
      if (method !== 'HEAD') method = 'GET';
      body = undefined;
      request.headers.delete('content-type');
    }
    url = next;
  }
}

/** A body read up to a limit. */
export interface BoundedBody {
  bytes: Buffer;
  /** The body had more than the limit; reading stopped there (the stream was cancelled). */
  truncated: boolean;
}

/**
 * Reads at most `maxBytes` of a body (a `Content-Length` above the limit is not read at all).
 * @throws the signal's reason when aborted while reading.
 */
export async function readBounded(response: Response, maxBytes: number): Promise<BoundedBody> {
  const declared = Number(response.headers.get('content-length') ?? Number.NaN);
  if (Number.isFinite(declared) && declared > maxBytes) {
    await response.body?.cancel().catch(() => undefined);
    return { bytes: Buffer.alloc(0), truncated: true };
  }
  const reader: ReadableStreamDefaultReader<Uint8Array> | undefined = response.body?.getReader();
  if (reader === undefined) return { bytes: Buffer.alloc(0), truncated: false };
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (size + value.byteLength > maxBytes) {
        chunks.push(value.subarray(0, maxBytes - size));
        await reader.cancel().catch(() => undefined);
        return { bytes: Buffer.concat(chunks), truncated: true };
      }
      chunks.push(value);
      size += value.byteLength;
    }
  } finally {
    reader.releaseLock();
  }
  return { bytes: Buffer.concat(chunks), truncated: false };
}

/** Most characters of a remote body quoted in an error message. */
export const EXCERPT_CHARS = 500;

/**
 * The start of a body as text, for messages: at most {@link EXCERPT_CHARS} characters, on one line,
 * control and bidi characters shown as escapes (a model or a human reads it: decision 028).
 */
export function excerptOf(
  bytes: Buffer,
  truncated: boolean,
  secrets: readonly string[] = [],
): string {
  let text = bytes.toString('utf8').replace(/\s+/g, ' ').trim();
  for (const secret of secrets) text = text.split(secret).join('[redacted]');
  return text.length > EXCERPT_CHARS || truncated
    ? `${visible(cutText(text, EXCERPT_CHARS))}… (truncated)`
    : visible(text);
}

/**
 * What of the configured header values an excerpt must not quote (an upstream may echo a token):
 * each value of 8 characters or more, and its credential after a scheme ("Bearer <token>").
 */
export function secretsOf(headers: Readonly<Record<string, string>>): string[] {
  const secrets = new Set<string>();
  for (const value of Object.values(headers)) {
    const folded = value.replace(/\s+/g, ' ').trim();
    if (folded.length >= 8) secrets.add(folded);
    const credential = folded.slice(folded.indexOf(' ') + 1);
    if (credential !== folded && credential.length >= 8) secrets.add(credential);
  }
  // The longest first: a value is redacted whole before its credential part.
  return [...secrets].sort((a, b) => b.length - a.length);
}

/** Most characters of a remote HTTP reason phrase quoted in a message. */
const REASON_CHARS = 100;

/** An answer's status and reason phrase, for messages (the phrase bounded and shown visibly). */
export function statusOf(response: Response): string {
  const reason = response.statusText.replace(/\s+/g, ' ').trim();
  if (reason === '') return String(response.status);
  const cut = reason.length > REASON_CHARS ? `${cutText(reason, REASON_CHARS)}…` : reason;
  return `${response.status} ${visible(cut)}`;
}

/**
 * Reads a body as {@link readBounded} does; a connection that fails while the body is read (a reset,
 * broken chunking or compression, a body shorter than declared) is UPSTREAM_UNAVAILABLE saying where,
 * not the fetch library's bare "terminated". The signal's reason when aborted.
 */
export async function readBody(
  response: Response,
  maxBytes: number,
  signal: AbortSignal,
  where: string,
  details: Record<string, unknown>,
): Promise<BoundedBody> {
  try {
    return await readBounded(response, maxBytes);
  } catch (error) {
    if (signal.aborted) throw signal.reason;
    const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
    throw new IsocodeError(
      'UPSTREAM_UNAVAILABLE',
      `${where}: the connection failed while the answer was read (HTTP ${statusOf(response)}): ${visible(thrownText(cause))}`,
      { details: { ...details, httpStatus: response.status }, cause: error },
    );
  }
}

/** True for `application/json` and `*\/*+json` media types. */
export function isJsonMediaType(contentType: string | null | undefined): boolean {
  const type = (contentType ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  return type === 'application/json' || /^[a-z0-9.+-]+\/[a-z0-9.+-]*\+json$/.test(type);
}

/** Reads a spec document (or a `$ref`'d one) from a URL with a byte limit. @throws IsocodeError INVALID_CONFIG. */
export async function fetchDocument(
  url: URL,
  maxBytes: number,
  signal: AbortSignal,
): Promise<Buffer> {
  const headers = new Headers({ accept: 'application/json' });
  let response: Response;
  try {
    response = await send({ method: 'GET', url, headers, body: undefined }, signal);
  } catch (error) {
    const message = thrownText(error);
    throw new IsocodeError(
      'INVALID_CONFIG',
      `cannot fetch OpenAPI document ${url.href}: ${message}`,
      {
        cause: error,
      },
    );
  }
  const body = await readBounded(response, maxBytes);
  if (response.status < 200 || response.status > 299)
    throw new IsocodeError(
      'INVALID_CONFIG',
      `cannot fetch OpenAPI document ${url.href}: HTTP ${response.status} ${excerptOf(body.bytes, body.truncated)}`.trim(),
    );
  if (body.truncated)
    throw new IsocodeError(
      'INVALID_CONFIG',
      `OpenAPI document ${url.href} is larger than ${maxBytes} bytes`,
    );
  return body.bytes;
}
