/**
 * What the console's browser tests share: Debian's chromium driven by playwright-core, the fixture
 * service (test/console/fixture-server.ts) in its own process, its two tenants' keys, the API as
 * the tests call it, and a signed-in page that records every request it makes and every CSP report.
 *
 * A test file calls {@link useConsole} inside its describe block; the suite is skipped with a
 * visible reason when chromium or the built console is absent, except under CI.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, expect } from 'vitest';
import { ROOT } from '../cli/helpers.js';
import { KEY_A, startFixtureService, type FixtureService } from './fixture-process.js';

export { KEY_A, KEY_B } from './fixture-process.js';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'];

/** Why the browser tests cannot run here (undefined: they can). */
export const missing = !existsSync(CHROMIUM)
  ? `chromium is not installed at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)`
  : !existsSync(join(ROOT, 'dist/console/console.js'))
    ? 'the console is not built (run npx tsup)'
    : undefined;
if (missing && process.env.CI)
  throw new Error(`console browser tests cannot run in CI: ${missing}`);

/** `expect.poll` with a limit that holds on a loaded machine. */
export const poll = <T>(probe: () => T | Promise<T>) =>
  expect.poll(probe, { timeout: 30_000, interval: 100 });

/** Polls until `probe` gives a value (generous limit; nothing about timing is asserted). */
export { until } from '../support/until.js';

/** A signed-in page, with every request it makes and every CSP report recorded. */
export interface SignedIn {
  context: BrowserContext;
  page: Page;
  requests: { url: string; method: string; authorization: string | undefined }[];
  violations: string[];
}

/** The service and browser of one test file. */
export interface ConsoleHarness {
  /** The service's origin. */
  url: () => string;
  browser: () => Browser;
  api: <T = Record<string, unknown>>(
    key: string,
    path: string,
    body?: unknown,
  ) => Promise<{ status: number; json: T }>;
  /** Starts a run as tenant A; resolves with its id. */
  startRun: (code: string, description: string) => Promise<string>;
  statusOf: (id: string) => Promise<string>;
  /** A new context signed in with `key`. */
  signedIn: (
    key: string,
    options?: {
      viewport?: { width: number; height: number };
      beforeGoto?: (page: Page) => Promise<void>;
    },
  ) => Promise<SignedIn>;
}

/** Starts the fixture service and a browser for the enclosing describe block. */
export function useConsole(): ConsoleHarness {
  let service: FixtureService | undefined;
  let url = '';
  let browser: Browser | undefined;

  beforeAll(async () => {
    service = await startFixtureService();
    url = service.url;
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: CHROMIUM_ARGS,
    });
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await service?.stop();
  }, 120_000);

  const api: ConsoleHarness['api'] = async <T>(key: string, path: string, body?: unknown) => {
    const res = await fetch(`${url}${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: res.status, json: (await res.json()) as T };
  };

  return {
    url: () => url,
    browser: () => browser!,
    api,
    async startRun(code, description) {
      const r = await api<{ id: string }>(KEY_A, '/v1/runs', { code, description });
      expect(r.status).toBe(202);
      return r.json.id;
    },
    async statusOf(id) {
      return (await api<{ status: string }>(KEY_A, `/v1/runs/${id}`)).json.status;
    },
    async signedIn(key, options = {}) {
      const context = await browser!.newContext({
        viewport: options.viewport ?? { width: 1360, height: 860 },
      });
      const page = await context.newPage();
      const requests: SignedIn['requests'] = [];
      const violations: string[] = [];
      page.on('request', (r) =>
        requests.push({
          url: r.url(),
          method: r.method(),
          authorization: r.headers()['authorization'],
        }),
      );
      page.on('console', (m) => {
        if (/Content Security Policy|Refused to/i.test(m.text())) violations.push(m.text());
      });
      await options.beforeGoto?.(page);
      await page.goto(`${url}/console/`);
      await page.locator('form.login input[name="key"]').fill(key);
      await page.locator('form.login button[type="submit"]').click();
      await poll(() => page.locator('[data-testid="who"]').textContent()).toBe(
        `key …${key.slice(-4)}`,
      );
      return { context, page, requests, violations };
    },
  };
}
