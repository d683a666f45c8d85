/**
 * Read-only routes over the caller's scope: wire tools, the SDK (with an ETag), the system prompt,
 * and discovery (search and describe the SDK's tools, the compact-mode decision).
 */
import type { Hono } from 'hono';
import { WIRE_FORMATS, type Runtime, type WireFormat } from '../index.js';
import { errorResponse, type HttpEnv } from './respond.js';

const isFormat = (v: string): v is WireFormat => (WIRE_FORMATS as readonly string[]).includes(v);

/** True when an `If-None-Match` value matches `etag` (weak comparison, `*` matches anything). */
export function etagMatches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (ifNoneMatch === undefined) return false;
  const bare = (t: string): string => t.trim().replace(/^W\//, '');
  return ifNoneMatch.split(',').some((t) => t.trim() === '*' || bare(t) === bare(etag));
}

const MAX_DESCRIBE_PARAMS = 20;

/** An integer query parameter, undefined when absent; a non-integer stays as text (refused later). */
function intParam(v: string | undefined): number | string | undefined {
  if (v === undefined) return undefined;
  return /^\d{1,4}$/.test(v) ? Number(v) : v;
}

/**
 * Installs `GET /v1/tools`, `GET /v1/sdk`, `GET /v1/prompt`, `GET /v1/discovery`,
 * `GET /v1/tools/search` and `GET /v1/tools/describe`.
 */
export function catalogRoutes(app: Hono<HttpEnv>, runtime: Runtime): void {
  app.get('/v1/tools', (c) => {
    const format = c.req.query('format') ?? 'mcp';
    if (!isFormat(format))
      return errorResponse(c, 'BAD_REQUEST', `format must be one of ${WIRE_FORMATS.join(', ')}`, {
        format,
      });
    return c.json({ format, tools: runtime.wireTools(format, c.get('scope')) });
  });

  app.get('/v1/sdk', (c) => {
    const sdk = runtime.sdk(c.get('scope'));
    const etag = `"${sdk.hash}"`;
    c.header('ETag', etag);
    c.header('Cache-Control', 'private, no-cache');
    c.header('Vary', 'Authorization');
    if (etagMatches(c.req.header('if-none-match'), etag)) return c.body(null, 304);
    return c.text(sdk.text, 200, { 'Content-Type': 'text/plain; charset=utf-8' });
  });

  app.get('/v1/prompt', (c) => {
    const scope = c.get('scope');
    return c.json({ mode: runtime.mode(scope), sections: runtime.systemPrompt(scope) });
  });

  // Discovery: the same answers as the search_tools and describe_tool helpers (src/discovery).
  app.get('/v1/discovery', (c) => {
    const scope = c.get('scope');
    return c.json({ mode: runtime.mode(scope), discovery: runtime.discovery(scope) ?? null });
  });

  app.get('/v1/tools/search', (c) => {
    const query = c.req.query('query') ?? c.req.query('q') ?? '';
    const limit = intParam(c.req.query('limit'));
    // A limit that is not an integer reaches the library as text: its INVALID_ARGS says why.
    return c.json(runtime.searchTools(query, c.get('scope'), limit as number | undefined));
  });

  app.get('/v1/tools/describe', (c) => {
    const names = (c.req.queries('name') ?? []).flatMap((n) => n.split(','));
    if (names.length === 0 || names.length > MAX_DESCRIBE_PARAMS)
      return errorResponse(
        c,
        'BAD_REQUEST',
        `give 1 to ${MAX_DESCRIBE_PARAMS} tool names as name=… query parameters`,
      );
    return c.json(runtime.describeTools(names, c.get('scope')));
  });
}
