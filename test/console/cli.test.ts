/** `isocode serve --console` and `server.console` in the config: the console is served only when asked for. */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CONSOLE_CSP } from '../../src/server/console.js';
import { CLI_ARGS, ROOT } from '../cli/helpers.js';

const built = existsSync(join(ROOT, 'dist/console/index.html'));
if (!built && process.env.CI) throw new Error('the console is not built (run npx tsup)');
const dir = mkdtempSync(join(tmpdir(), 'isocode-console-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs `isocode serve --port 0 <extra>`, calls `probe` with its URL, then stops it (exit 0). */
async function withServe(extra: string[], probe: (url: string) => Promise<void>): Promise<string> {
  const child = spawn(process.execPath, [...CLI_ARGS, 'serve', '--port', '0', ...extra], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.setEncoding('utf8');
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  try {
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no URL: ${stderr}`)), 60_000);
      child.stderr.on('data', (d: string) => {
        stderr += d;
        const m = /listening on (http:\/\/\S+)/.exec(stderr);
        if (m?.[1]) {
          clearTimeout(timer);
          resolve(m[1]);
        }
      });
      void exited.then((code) => reject(new Error(`serve exited ${code}: ${stderr}`)));
    });
    await probe(url);
  } finally {
    child.kill('SIGTERM');
  }
  expect(await exited).toBe(0);
  return stderr;
}

describe.skipIf(!built)(
  built ? 'isocode serve --console' : 'isocode serve --console (skipped: run npx tsup first)',
  () => {
    it('serves the console with --console and says where; not without', async () => {
      const said = await withServe(['--console'], async (url) => {
        const page = await fetch(`${url}/console/`);
        expect(page.status).toBe(200);
        expect(page.headers.get('content-security-policy')).toBe(CONSOLE_CSP);
        const html = await page.text();
        expect(html).toContain('<script type="module" src="console.js"></script>');
        // No inline script or style anywhere in the page.
        expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>|<style|\sstyle=|\son\w+=/i);
        const js = await fetch(`${url}/console/console.js`);
        expect(js.status).toBe(200);
        expect((await js.text()).length).toBeGreaterThan(1000);
      });
      expect(said).toMatch(/web console: http:\/\/127\.0\.0\.1:\d+\/console\//);
      await withServe([], async (url) => {
        expect((await fetch(`${url}/console/`)).status).toBe(404);
      });
    }, 120_000);

    it('serves it when the config says server.console.enabled', async () => {
      const config = join(dir, 'isocode.config.json');
      writeFileSync(config, JSON.stringify({ server: { console: { enabled: true } } }));
      await withServe(['--config', config], async (url) => {
        expect((await fetch(`${url}/console/`)).status).toBe(200);
      });
    }, 120_000);
  },
);
