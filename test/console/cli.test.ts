/** `isocode serve --console` and `server.console` in the config: the console is served only when asked for. */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CONSOLE_CSP } from '../../src/server/console.js';
import { ROOT } from '../cli/helpers.js';
import { withServe } from './helpers.js';

const built = existsSync(join(ROOT, 'dist/console/index.html'));
if (!built && process.env.CI) throw new Error('the console is not built (run npx tsup)');
const dir = mkdtempSync(join(tmpdir(), 'isocode-console-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

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
