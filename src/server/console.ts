/**
 * The web console's static files at `/console` (decision record 023). Three files, built by tsup
 * into `dist/console/`: the page, one script, one stylesheet. They hold no data and need no key:
 * the page reads and acts only through the `/v1` API with the viewer's bearer key, so this module
 * adds no route that could bypass the API's auth, scope checks or audit.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Hono } from 'hono';
import { IsocodeError } from '../index.js';
import { errorResponse, type HttpEnv } from './respond.js';

/** Options of the console. */
export interface ConsoleOptions {
  /** Serve the console at `/console`. @default false */
  enabled: boolean;
  /**
   * The directory holding `index.html`, `console.js` and `console.css`.
   * @default the package's `dist/console/`
   */
  assetsDir?: string | undefined;
}

/** The path the console is served at. */
export const CONSOLE_PATH = '/console';

/** The files of the console, by name, with their content types. */
const FILES = {
  'index.html': 'text/html; charset=utf-8',
  'console.js': 'text/javascript; charset=utf-8',
  'console.css': 'text/css; charset=utf-8',
} as const;

type FileName = keyof typeof FILES;

/**
 * The console's Content-Security-Policy: nothing inline, nothing from another origin; the page may
 * only talk to its own origin (the `/v1` API).
 */
export const CONSOLE_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** Headers of every console response. */
const SECURITY_HEADERS = {
  'Content-Security-Policy': CONSOLE_CSP,
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
};

interface Asset {
  body: Uint8Array;
  type: string;
  etag: string;
}

/** Where the built console lives, next to the bundle (`dist/`) or, from a source checkout, in `dist/`. */
function defaultAssetsDir(): string {
  const candidates = [
    new URL('./console/', import.meta.url),
    new URL('../../dist/console/', import.meta.url),
  ];
  const found = candidates.find((u) => existsSync(new URL('index.html', u)));
  return fileURLToPath(found ?? candidates[0]!);
}

/**
 * Reads the console's files into memory.
 * @throws IsocodeError INVALID_CONFIG when a file is missing (the package was not built).
 */
export function loadConsoleAssets(dir: string = defaultAssetsDir()): Map<string, Asset> {
  const assets = new Map<string, Asset>();
  for (const [name, type] of Object.entries(FILES)) {
    const path = `${dir.replace(/\/?$/, '/')}${name}`;
    let body: Buffer;
    try {
      body = readFileSync(path);
    } catch (err) {
      throw new IsocodeError(
        'INVALID_CONFIG',
        `the console is enabled but its file ${path} is missing (build the package: npm run build)`,
        { details: { path }, cause: err },
      );
    }
    const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`;
    assets.set(name, { body, type, etag });
  }
  return assets;
}

/** Installs `GET /console` (redirect), `/console/` and its files. Unknown console paths are 404. */
export function consoleRoutes(app: Hono<HttpEnv>, options: ConsoleOptions): void {
  if (!options.enabled) return;
  const assets = loadConsoleAssets(options.assetsDir);
  const send = (name: FileName, ifNoneMatch: string | undefined, head: boolean): Response => {
    const asset = assets.get(name)!;
    const headers = {
      ...SECURITY_HEADERS,
      'Content-Type': asset.type,
      // Revalidate every time (the names carry no hash): a 304 costs one round trip.
      'Cache-Control': 'no-cache',
      ETag: asset.etag,
    };
    if (ifNoneMatch !== undefined && ifNoneMatch.split(/\s*,\s*/).includes(asset.etag))
      return new Response(null, { status: 304, headers });
    return new Response(head ? null : asset.body, {
      status: 200,
      headers: { ...headers, 'Content-Length': String(asset.body.byteLength) },
    });
  };
  app.on(['GET', 'HEAD'], CONSOLE_PATH, (c) => c.redirect(`${CONSOLE_PATH}/`, 308));
  app.on(['GET', 'HEAD'], `${CONSOLE_PATH}/*`, (c) => {
    const rest = c.req.path.slice(CONSOLE_PATH.length + 1);
    const name = rest === '' ? 'index.html' : rest;
    if (!Object.prototype.hasOwnProperty.call(FILES, name))
      return errorResponse(
        c,
        'NOT_FOUND',
        `no console file ${c.req.path}`,
        undefined,
        SECURITY_HEADERS,
      );
    return send(name as FileName, c.req.header('if-none-match'), c.req.method === 'HEAD');
  });
}
