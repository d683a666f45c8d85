/**
 * One call of an OpenAPI operation: the request built from the tool's (validated) arguments, sent
 * with the source's base URL and headers, and the answer turned into a value or a typed error.
 * Errors: a non-2xx answer is TOOL_ERROR (4xx: the call was wrong) or UPSTREAM_ERROR (5xx and
 * anything else), with the status and a bounded excerpt of the body; a body over the limit is
 * LIMIT_EXCEEDED; invalid JSON, a wrong content type or a refused redirect is UPSTREAM_ERROR; a
 * network failure is UPSTREAM_UNAVAILABLE.
 */
import { thrownText } from '../errors.js';
import { IsocodeError } from '../index.js';
import type { JsonValue } from '../index.js';
import { jsonTooDeep } from '../json.js';
import type { OperationSpec, ParameterSpec } from './openapi-operations.js';
import {
  HttpFailure,
  excerptOf,
  isJsonMediaType,
  readBody,
  secretsOf,
  send,
  statusOf,
} from './openapi-http.js';
import type { HttpRequest } from './openapi-http.js';

type Rec = Record<string, unknown>;

/** What every call of a source shares. */
export interface CallSettings {
  /** The source's namespace, for messages and details. */
  source: string;
  /** The base URL every operation path is appended to. */
  baseUrl: URL;
  /** Headers of every request (already interpolated); they win over header parameters. */
  headers: Record<string, string>;
  /** Most bytes of a response body read. */
  maxResponseBytes: number;
}

/** Most bytes of an error answer read (for its excerpt). */
const ERROR_BODY_BYTES = 8_192;

const scalar = (v: unknown): string => (typeof v === 'string' ? v : JSON.stringify(v));

function toolError(message: string, details: Rec): IsocodeError {
  return new IsocodeError('TOOL_ERROR', message, { details });
}

/** A path segment's value: `simple` style, percent-encoded; `.`, `..` and empty values are refused. */
function pathValue(p: ParameterSpec, value: unknown, where: string): string {
  let raw: string;
  if (p.json) raw = JSON.stringify(value);
  else if (Array.isArray(value)) raw = value.map(scalar).join(',');
  else if (value !== null && typeof value === 'object')
    raw = Object.entries(value)
      .map(([k, v]) => (p.explode ? `${k}=${scalar(v)}` : `${k},${scalar(v)}`))
      .join(',');
  else raw = scalar(value);
  if (raw === '' || raw === '.' || raw === '..')
    throw toolError(`${where}: path parameter "${p.key}" may not be ${JSON.stringify(raw)}`, {
      parameter: p.key,
    });
  return encodeURIComponent(raw);
}

function addQuery(query: URLSearchParams, p: ParameterSpec, value: unknown): void {
  if (p.json) return query.append(p.name, JSON.stringify(value));
  if (Array.isArray(value)) {
    const items = value.map(scalar);
    if (p.style === 'form' && p.explode) for (const item of items) query.append(p.name, item);
    else
      query.append(
        p.name,
        items.join(p.style === 'spaceDelimited' ? ' ' : p.style === 'pipeDelimited' ? '|' : ','),
      );
    return;
  }
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value);
    if (p.style === 'deepObject')
      for (const [k, v] of entries) query.append(`${p.name}[${k}]`, scalar(v));
    else if (p.explode) for (const [k, v] of entries) query.append(k, scalar(v));
    else query.append(p.name, entries.flatMap(([k, v]) => [k, scalar(v)]).join(','));
    return;
  }
  query.append(p.name, scalar(value));
}

function headerValue(p: ParameterSpec, value: unknown): string {
  if (p.json) return JSON.stringify(value);
  if (Array.isArray(value)) return value.map(scalar).join(',');
  if (value !== null && typeof value === 'object')
    return Object.entries(value)
      .map(([k, v]) => (p.explode ? `${k}=${scalar(v)}` : `${k},${scalar(v)}`))
      .join(',');
  return scalar(value);
}

/** The request of a call. @throws IsocodeError TOOL_ERROR for a value that cannot be sent. */
export function buildRequest(
  op: OperationSpec,
  args: Rec,
  settings: CallSettings,
  where: string,
): HttpRequest {
  const has = (key: string): boolean => Object.hasOwn(args, key) && args[key] !== undefined;
  let path = op.path;
  const query = new URLSearchParams();
  const headers = new Headers();
  const cookies: string[] = [];
  try {
    for (const p of op.params) {
      if (!has(p.key)) continue;
      const value = args[p.key];
      if (p.in === 'path') path = path.split(`{${p.name}}`).join(pathValue(p, value, where));
      else if (p.in === 'query') addQuery(query, p, value);
      else if (p.in === 'header') headers.set(p.name, headerValue(p, value));
      else
        cookies.push(`${encodeURIComponent(p.name)}=${encodeURIComponent(headerValue(p, value))}`);
    }
  } catch (error) {
    if (error instanceof IsocodeError) throw error;
    throw toolError(`${where}: a parameter cannot be sent: ${thrownText(error)}`, {});
  }
  if (cookies.length > 0) headers.set('cookie', cookies.join('; '));
  if (!headers.has('accept'))
    headers.set('accept', op.acceptsText ? 'application/json, text/*;q=0.5' : 'application/json');
  for (const [name, value] of Object.entries(settings.headers)) headers.set(name, value);
  const base = settings.baseUrl;
  const basePath = base.pathname.replace(/\/+$/, '');
  const search = query.toString();
  const url = new URL(`${basePath}${path}${search === '' ? '' : `?${search}`}`, base.origin);
  // Encoded segments cannot climb, but check: the request stays under the base URL.
  if (url.origin !== base.origin || !`${url.pathname}/`.startsWith(`${basePath}/`))
    throw toolError(`${where}: the request would leave the base URL ${base.href}`, {});
  let body: string | undefined;
  if (op.body !== undefined && has(op.body.key)) {
    body = JSON.stringify(args[op.body.key]);
    headers.set('content-type', op.body.mediaType);
  }
  return { method: op.method, url, headers, body };
}

/** The value of a 2xx answer: JSON parsed, an empty body as null, text as a string when the operation declares text. */
async function valueOf(
  op: OperationSpec,
  response: Response,
  settings: CallSettings,
  signal: AbortSignal,
  where: string,
  details: Rec,
): Promise<JsonValue> {
  const { bytes, truncated } = await readBody(
    response,
    settings.maxResponseBytes,
    signal,
    where,
    details,
  );
  if (truncated)
    throw new IsocodeError(
      'LIMIT_EXCEEDED',
      `${where}: the response is larger than ${settings.maxResponseBytes} bytes (maxResponseBytes); ask for less (a page, a filter)`,
      {
        details: { ...details, limit: 'maxResponseBytes', limitBytes: settings.maxResponseBytes },
      },
    );
  if (bytes.length === 0 || response.status === 204) return null;
  const type = response.headers.get('content-type');
  // A byte-order mark is not part of the text (JSON.parse refuses it).
  const text = bytes.toString('utf8').replace(/^\uFEFF/, '');
  if (isJsonMediaType(type) || (type === null && !op.acceptsText)) {
    if (jsonTooDeep(text))
      throw new IsocodeError('UPSTREAM_ERROR', `${where}: the response JSON nests too deeply`, {
        details,
      });
    try {
      return JSON.parse(text) as JsonValue;
    } catch (error) {
      throw new IsocodeError(
        'UPSTREAM_ERROR',
        `${where}: the response is not valid JSON (${error instanceof Error ? error.message : 'parse error'}): ${excerptOf(bytes, false, secretsOf(settings.headers))}`,
        { details, cause: error },
      );
    }
  }
  if (op.acceptsText && (type ?? '').toLowerCase().startsWith('text/')) return text;
  throw new IsocodeError(
    'UPSTREAM_ERROR',
    `${where}: expected a JSON response, got content type ${JSON.stringify(type ?? 'none')}: ${excerptOf(bytes, false, secretsOf(settings.headers))}`,
    {
      details: { ...details, contentType: type },
    },
  );
}

/** Sends one call and returns its value. @throws IsocodeError (see the module comment); the signal's reason when aborted. */
export async function callOperation(
  op: OperationSpec,
  args: Rec,
  settings: CallSettings,
  signal: AbortSignal,
): Promise<JsonValue> {
  const where = `${settings.source}.${op.id} (${op.method} ${op.path})`;
  const details: Rec = { source: settings.source, operation: op.id };
  const request = buildRequest(op, args, settings, where);
  let response: Response;
  try {
    response = await send(request, signal);
  } catch (error) {
    if (!(error instanceof HttpFailure)) throw error;
    const code = error.kind === 'network' ? 'UPSTREAM_UNAVAILABLE' : 'UPSTREAM_ERROR';
    throw new IsocodeError(code, `${where}: ${error.message}`, { details, cause: error });
  }
  if (response.status >= 200 && response.status <= 299)
    return valueOf(op, response, settings, signal, where, details);
  const { bytes, truncated } = await readBody(response, ERROR_BODY_BYTES, signal, where, details);
  const excerpt = excerptOf(bytes, truncated, secretsOf(settings.headers));
  const status = statusOf(response);
  const message = `${where} answered HTTP ${status}${excerpt === '' ? '' : `: ${excerpt}`}`;
  const errDetails = { ...details, httpStatus: response.status, body: excerpt };
  if (response.status >= 400 && response.status <= 499) throw toolError(message, errDetails);
  throw new IsocodeError('UPSTREAM_ERROR', message, { details: errDetails });
}
