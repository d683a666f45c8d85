/**
 * Regenerates the console screenshots the README embeds (docs/console/*.png): the runs list, one
 * run waiting for approval and the approvals view at 1280×800, and the run and approvals views at
 * phone width (390×844), against the console's fixture service, with Debian's chromium
 * (CHROMIUM_PATH to use another). Run with `npm run console:screenshots` (it builds first).
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Page } from 'playwright-core';
import { ROOT } from '../test/cli/helpers.js';
import { KEY_A, startFixtureService } from '../test/console/fixture-process.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const OUT = join(ROOT, 'docs/console');

const WAITING = `// Stores a value, then deletes another: the delete waits for a human.
console.log('starting');
await tools.kv.put({ key: 'greeting', value: 'hello' });
const gone = await tools.kv.delete({ key: 'stale' });
console.log('after approval');
await tools.kv.put({ key: 'audit', value: \`deleted \${gone.deleted}\` });
return { done: true, deleted: gone.deleted };`;

const SETTLED = `const keys = ['alpha', 'beta', 'gamma'];
for (const key of keys) {
  await tools.kv.put({ key, value: key.toUpperCase() });
  console.log('stored', key);
}
return { stored: keys.length };`;

const BATCH = `// Three deletes at once: three asks, decided together.
await Promise.all(['tmp-1', 'tmp-2', 'tmp-3'].map((key) => tools.kv.delete({ key })));`;

async function until(probe: () => Promise<boolean>, what: string): Promise<void> {
  const end = Date.now() + 60_000;
  while (!(await probe())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function main(): Promise<void> {
  const service = await startFixtureService();
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
  });
  try {
    const post = async (path: string, body: unknown): Promise<{ id: string }> => {
      const res = await fetch(`${service.url}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${KEY_A}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return (await res.json()) as { id: string };
    };
    const status = async (id: string): Promise<string> =>
      (
        (await (
          await fetch(`${service.url}/v1/runs/${id}`, {
            headers: { authorization: `Bearer ${KEY_A}` },
          })
        ).json()) as { status: string }
      ).status;
    const settled = await post('/v1/runs', { code: SETTLED, description: 'store three keys' });
    await until(async () => (await status(settled.id)) === 'succeeded', 'the settled run');
    const waiting = await post('/v1/runs', { code: WAITING, description: 'clean up stale keys' });
    await post('/v1/runs', { code: BATCH, description: 'delete temporary keys' });
    await until(async () => (await status(waiting.id)) === 'waiting-approval', 'the ask');

    mkdirSync(OUT, { recursive: true });
    const shoot = async (
      viewport: { width: number; height: number },
      views: [hash: string, ready: string, file: string][],
    ): Promise<void> => {
      const context = await browser.newContext({ viewport, deviceScaleFactor: 1 });
      const page: Page = await context.newPage();
      await page.goto(`${service.url}/console/`);
      await page.locator('form.login input[name="key"]').fill(KEY_A);
      await page.locator('form.login button[type="submit"]').click();
      await page.locator('[data-testid="who"]').waitFor();
      for (const [hash, ready, file] of views) {
        await page.goto(`${service.url}/console/${hash}`);
        await page.locator(ready).first().waitFor({ timeout: 60_000 });
        await page.waitForTimeout(300); // let the last event land before the picture
        await page.screenshot({ path: join(OUT, file) });
        process.stdout.write(`wrote docs/console/${file}\n`);
      }
      await context.close();
    };
    await shoot({ width: 1280, height: 800 }, [
      ['#/runs', `tr[data-run-id="${waiting.id}"] [data-status="waiting-approval"]`, 'runs.png'],
      [`#/runs/${waiting.id}`, '[data-testid="pending"] [data-action="approve"]', 'run.png'],
      ['#/approvals', '[data-testid="pending"] tr[data-approval-id]', 'approvals.png'],
    ]);
    await shoot({ width: 390, height: 844 }, [
      [`#/runs/${waiting.id}`, '[data-testid="pending"] [data-action="approve"]', 'run-phone.png'],
      ['#/approvals', '[data-testid="pending"] tr[data-approval-id]', 'approvals-phone.png'],
    ]);
  } finally {
    await browser.close();
    await service.stop();
  }
}

await main();
