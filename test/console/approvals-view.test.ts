/**
 * The approvals view in a real browser (issue 23): rows stay where they are and keep keyboard
 * focus when the list changes (oldest first, a new ask appended), select-all feeds the batch API,
 * an idle tab makes no requests while time passes (the list is pushed, not polled; reads are
 * bounded) and its "Asked" times still move; at phone width nothing overflows and every Approve
 * button can be reached.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { KEY_A, missing, poll, until, useConsole } from './browser-harness.js';

const ASK = (key: string): string => `await tools.kv.delete({ key: '${key}' });\nreturn 1;`;

/** The approval id of the row holding keyboard focus. */
const focusedRow = (page: Page): Promise<unknown> =>
  page.evaluate("document.activeElement?.closest('tr')?.dataset.approvalId ?? null");

describe.skipIf(missing !== undefined)(
  missing ? `the approvals view (skipped: ${missing})` : 'the approvals view',
  () => {
    const harness = useConsole();
    const { startRun, statusOf } = harness;
    const pendingIds = (page: Page): Promise<(string | null)[]> =>
      page.evaluate<(string | null)[]>(
        `[...document.querySelectorAll('[data-testid="pending"] tr[data-approval-id]')].map((r) => r.getAttribute('data-approval-id'))`,
      );

    it('keeps the focused row in place while a new ask is appended; select-all decides the batch', async () => {
      const first = await startRun(ASK('one'), 'first ask');
      const { page, context } = await harness.signedIn(KEY_A);
      await page.goto(`${harness.url()}/console/#/approvals`);
      await poll(() => pendingIds(page)).toHaveLength(1);
      const [oldest] = await pendingIds(page);
      const row = page.locator(`tr[data-approval-id="${oldest!}"]`);
      // Mark the row element: a rebuilt row would lose the mark.
      await page.evaluate(
        `document.querySelector('tr[data-approval-id="${oldest!}"]').setAttribute('data-probe', 'kept')`,
      );
      await row.locator('[data-action="approve"]').focus();
      expect(await focusedRow(page)).toBe(oldest);
      const second = await startRun(ASK('two'), 'second ask');
      await poll(() => pendingIds(page)).toHaveLength(2);
      const ids = await pendingIds(page);
      expect(ids[0]).toBe(oldest); // oldest first: the new ask went below
      expect(await row.getAttribute('data-probe')).toBe('kept');
      expect(await focusedRow(page)).toBe(oldest);
      expect(await page.locator('[data-testid="pending-count"]').textContent()).toBe('2');
      // Select all, approve them in one batch request.
      await page.locator('[data-action="select-all"]').check();
      expect(await page.locator('[data-testid="selected-count"]').textContent()).toBe('2 selected');
      const batch = page.waitForRequest(
        (r) => r.url() === `${harness.url()}/v1/approvals` && r.method() === 'POST',
      );
      await page.locator('[data-action="approve-selected"]').click();
      const body = JSON.parse((await batch).postData() ?? '{}') as { decisions: { id: string }[] };
      expect(body.decisions.map((d) => d.id).sort()).toEqual([...ids].sort());
      for (const id of [first, second])
        await until(async () => ((await statusOf(id)) === 'succeeded' ? true : undefined));
      await page.locator('[data-testid="no-pending"]').waitFor({ timeout: 30_000 });
      await context.close();
    }, 120_000);

    it('shows beside each ask the description of the run that asks, and its program one click away', async () => {
      const id = await startRun(`// cleans up\n${ASK('beside')}`, 'tidy the cache \u202Eevil');
      const { page, context } = await harness.signedIn(KEY_A);
      await page.goto(`${harness.url()}/console/#/approvals`);
      const row = page.locator('[data-testid="pending"] tr[data-approval-id]');
      await poll(() => row.count()).toBe(1);
      const description = row.locator('[data-testid="ask-description"]');
      // The description through the visible-text rule: the override is a marked escape.
      await poll(() => description.textContent()).toBe('tidy the cache \\u202Eevil');
      const program = row.locator('[data-testid="ask-program"]');
      expect(await program.locator('pre.source').isVisible()).toBe(false);
      await program.locator('summary').click();
      expect(await program.locator('pre.source').textContent()).toContain(
        "await tools.kv.delete({ key: 'beside' });",
      );
      await row.locator('[data-action="approve"]').click();
      await until(async () => ((await statusOf(id)) === 'succeeded' ? true : undefined));
      await context.close();
    }, 120_000);

    it('makes no request while an idle tab’s timers run for two minutes, and its Asked times move', async () => {
      const id = await startRun(ASK('idle'), 'idle ask');
      const { page, context, requests } = await harness.signedIn(KEY_A, {
        // Timers under the test's hand: two minutes of them run at once, load cannot bend it.
        beforeGoto: (p) => p.clock.install(),
      });
      await page.goto(`${harness.url()}/console/#/approvals`);
      const asked = page.locator('[data-testid="pending"] tr[data-approval-id] td.asked');
      await poll(() => asked.count()).toBe(1);
      const api = (): string[] =>
        requests.filter((r) => new URL(r.url).pathname.startsWith('/v1/')).map((r) => r.url);
      // Settled: the page's reads are done (the shared approvals stream stays open).
      await poll(() => api().filter((u) => u.includes('/v1/approvals?')).length).toBeGreaterThan(0);
      await page.clock.runFor(1_000);
      const before = api().length;
      expect(await asked.textContent()).toMatch(/^(just now|\d+ s ago)$/);
      await page.clock.runFor(120_000);
      expect(api().slice(before)).toEqual([]);
      expect(await asked.textContent()).toMatch(/^2 min ago$/);
      // Every list read was bounded; nothing asked for the unbounded `status=all`.
      for (const u of api().filter((x) => x.includes('/v1/approvals?'))) {
        expect(u).toMatch(/[?&]limit=\d+/);
        expect(u).not.toContain('status=all');
      }
      expect(api().filter((u) => u.endsWith('/v1/approvals/events')).length).toBe(1);
      await page.locator('[data-testid="pending"] [data-action="approve"]').click();
      await until(async () => ((await statusOf(id)) === 'succeeded' ? true : undefined));
      await context.close();
    }, 120_000);

    it('fits a 375 px phone: no table wider than the screen, each Approve on screen', async () => {
      const id = await startRun(
        `await tools.kv.put({ key: 'a-rather-long-key-name-for-a-phone', value: '${'v'.repeat(300)}' });
await tools.kv.delete({ key: 'a-rather-long-key-name-for-a-phone-screen-too' });
return 1;`,
        'a phone-sized approval with a long description to wrap',
      );
      const { page, context } = await harness.signedIn(KEY_A, {
        viewport: { width: 375, height: 812 },
      });
      const fits = async (): Promise<void> => {
        const widths = await page.evaluate<number[]>(
          "[document.documentElement.clientWidth, document.documentElement.scrollWidth, ...[...document.querySelectorAll('table')].map((t) => t.getBoundingClientRect().right), ...[...document.querySelectorAll('table')].map((t) => t.scrollWidth)]",
        );
        const [client, ...rest] = widths;
        for (const w of rest) expect(w).toBeLessThanOrEqual(client!);
      };
      await page.goto(`${harness.url()}/console/#/runs`);
      await page.locator(`tr[data-run-id="${id}"]`).waitFor({ timeout: 30_000 });
      await fits();
      for (const path of [`#/runs/${id}`, '#/approvals']) {
        await page.goto(`${harness.url()}/console/${path}`);
        const approve = page.locator('[data-testid="pending"] [data-action="approve"]').first();
        await approve.waitFor({ timeout: 30_000 });
        await fits();
        await approve.scrollIntoViewIfNeeded();
        const box = (await approve.boundingBox())!;
        expect(box.x).toBeGreaterThanOrEqual(0);
        expect(box.x + box.width).toBeLessThanOrEqual(375);
        expect(box.y).toBeGreaterThanOrEqual(0);
        expect(box.y + box.height).toBeLessThanOrEqual(812);
      }
      await page.locator('[data-testid="pending"] [data-action="approve"]').first().click();
      await until(async () => ((await statusOf(id)) === 'succeeded' ? true : undefined));
      await context.close();
    }, 120_000);

    it('marks what the store could not read, offers only Reject for such an ask, and survives a time no Date holds', async () => {
      const id = await startRun(ASK('unreadable'), 'an ask the store cannot read');
      // The API as it answers for damaged rows (test/durable/stored-damage.test.ts makes them):
      // the column empty and named in `damaged`; a time past what a Date holds.
      const damage = async (page: Page): Promise<void> => {
        await page.route(/\/v1\/(approvals|runs)(\?|$)/, async (route) => {
          if (route.request().method() !== 'GET') return route.continue();
          // The list's refresh timer keeps reading: a read in flight when the page closes ends here.
          try {
            const res = await route.fetch();
            const body = (await res.json()) as {
              approvals?: Record<string, unknown>[];
              runs?: Record<string, unknown>[];
            };
            for (const a of body.approvals ?? [])
              if (a.runId === id) Object.assign(a, { args: null, damaged: ['args'] });
            for (const r of body.runs ?? [])
              if (r.id === id) Object.assign(r, { createdAt: 9e15, damaged: ['created_at'] });
            await route.fulfill({ response: res, json: body });
          } catch {
            await route.abort().catch(() => undefined);
          }
        });
      };
      const { page, context } = await harness.signedIn(KEY_A, { beforeGoto: damage });
      await page.goto(`${harness.url()}/console/#/runs`);
      const listed = page.locator(`tr[data-run-id="${id}"]`);
      await listed.waitFor({ timeout: 30_000 });
      expect(await listed.locator('[data-testid="damaged"]').textContent()).toBe(
        'unreadable: created_at',
      );
      await page.goto(`${harness.url()}/console/#/approvals`);
      const row = page.locator('[data-testid="pending"] tr[data-approval-id]');
      await poll(() => row.count()).toBe(1);
      expect(await row.locator('[data-testid="damaged"]').textContent()).toBe('unreadable: args');
      expect(await row.locator('[data-action="approve"]').isDisabled()).toBe(true);
      await row.locator('[data-action="reject"]').click();
      await until(async () => ((await statusOf(id)) === 'running' ? undefined : true));
      await page.locator('[data-testid="no-pending"]').waitFor({ timeout: 30_000 });
      await page.unrouteAll({ behavior: 'wait' });
      await context.close();
    }, 120_000);
  },
);
