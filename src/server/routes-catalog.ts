/** Read-only routes over the caller's scope: wire tools, the SDK (with an ETag) and the system prompt. */
import type { Hono } from 'hono';
import type { Runtime } from '../index.js';
import { errorResponse, type HttpEnv } from './respond.js';

const FORMATS = ['openai', 'anthropic', 'mcp'] as const;
type Format = (typeof FORMATS)[number];
const isFormat = (v: string): v is Format => (FORMATS as readonly string[]).includes(v);

/** True when an `If-None-Match` value matches `etag` (weak comparison, `*` matches anything). */
export function etagMatches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (ifNoneMatch === undefined) return false;
  const bare = (t: string): string => t.trim().replace(/^W\//, '');
  return ifNoneMatch.split(',').some((t) => t.trim() === '*' || bare(t) === bare(etag));
}

/** Installs `GET /v1/tools`, `GET /v1/sdk` and `GET /v1/prompt`. */
export function catalogRoutes(app: Hono<HttpEnv>, runtime: Runtime): void {
  app.get('/v1/tools', (c) => {
    const format = c.req.query('format') ?? 'mcp';
    if (!isFormat(format))
      return errorResponse(c, 'BAD_REQUEST', `format must be one of ${FORMATS.join(', ')}`, {
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
}
