/** The console's static route: off by default, strict headers, revalidation, no data and no way around /v1. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRuntime, type Runtime } from '../../src/index.js';
import { createHttpApp } from '../../src/server/index.js';
import { CONSOLE_CSP, loadConsoleAssets } from '../../src/server/console.js';
import { parseConfig } from '../../src/sources/config.js';

let runtime: Runtime;
let dir: string;
const KEY = 'console-route-test-key-0123456789';

beforeAll(async () => {
  runtime = await createRuntime({ tools: [], codeMode: false });
  dir = mkdtempSync(join(tmpdir(), 'isocode-console-'));
  writeFileSync(join(dir, 'index.html'), '<!doctype html><title>t</title>');
  writeFileSync(join(dir, 'console.js'), 'export {};');
  writeFileSync(join(dir, 'console.css'), 'body{}');
});
afterAll(async () => {
  await runtime.close();
  rmSync(dir, { recursive: true, force: true });
});

const app = (enabled: boolean) =>
  createHttpApp({
    runtime,
    defaultScope: 'default',
    apiKeys: [{ key: KEY, scope: 'default' }],
    console: { enabled, assetsDir: dir },
  });

describe('the console route', () => {
  it('is off unless enabled', async () => {
    expect(
      (await createHttpApp({ runtime, defaultScope: 'default', apiKeys: [] }).request('/console/'))
        .status,
    ).toBe(404);
    expect((await app(false).request('/console/')).status).toBe(404);
  });

  it('serves the page, its script and stylesheet without a key, with strict headers', async () => {
    const a = app(true);
    const page = await a.request('/console/');
    expect(page.status).toBe(200);
    expect(await page.text()).toBe('<!doctype html><title>t</title>');
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('content-security-policy')).toBe(CONSOLE_CSP);
    expect(CONSOLE_CSP).toContain("script-src 'self'");
    expect(CONSOLE_CSP).not.toContain('unsafe-inline');
    expect(page.headers.get('x-content-type-options')).toBe('nosniff');
    expect(page.headers.get('referrer-policy')).toBe('no-referrer');
    expect(page.headers.get('cache-control')).toBe('no-cache');
    expect(page.headers.get('set-cookie')).toBeNull();
    const js = await a.request('/console/console.js');
    expect(js.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(await js.text()).toBe('export {};');
    expect((await a.request('/console/console.css')).headers.get('content-type')).toBe(
      'text/css; charset=utf-8',
    );
    const bare = await a.request('/console');
    expect(bare.status).toBe(308);
    expect(bare.headers.get('location')).toBe('/console/');
  });

  it('answers 304 to a matching If-None-Match', async () => {
    const a = app(true);
    const etag = (await a.request('/console/console.js')).headers.get('etag')!;
    expect(etag).toMatch(/^"[\w-]+"$/);
    const again = await a.request('/console/console.js', { headers: { 'if-none-match': etag } });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe('');
  });

  it('serves nothing else: no other file, no traversal, no data, and /v1 still wants the key', async () => {
    const a = app(true);
    for (const path of [
      '/console/x.js',
      '/console/../package.json',
      '/console/%2e%2e/package.json',
      '/console/index.html/x',
    ])
      expect((await a.request(path)).status).toBe(404);
    expect((await a.request('/console/', { method: 'POST' })).status).toBe(404);
    expect((await a.request('/v1/tools')).status).toBe(401);
  });

  it('refuses to start when enabled without its files', () => {
    expect(() => loadConsoleAssets(join(dir, 'missing'))).toThrow(
      /console is enabled but its file/,
    );
  });

  it('is a config key: server.console.enabled', () => {
    const on = parseConfig({ server: { console: { enabled: true } } }, dir);
    expect(on.server.console).toEqual({ enabled: true });
    expect(parseConfig({}, dir).server.console).toBeUndefined();
    expect(() => parseConfig({ server: { console: { enabled: 'yes' } } }, dir)).toThrow(
      /server\.console\.enabled/,
    );
  });
});
