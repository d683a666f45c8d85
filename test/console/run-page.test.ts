/**
 * The run page in a real browser (issue 23's console defects): a settled run's lines and calls
 * appear once each, nested calls show their arguments, calls are marked by call id (queued,
 * waiting for approval), a run of nobody's or another scope's is a "not found" page with a way
 * back, and the "cannot be reached" banner goes once the event stream is live again.
 */
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { KEY_A, KEY_B, missing, poll, until, useConsole } from './browser-harness.js';

describe.skipIf(missing !== undefined)(
  missing ? `the run page (skipped: ${missing})` : 'the run page',
  () => {
    const harness = useConsole();
    const { startRun, statusOf } = harness;
    /** Every delete asks: the first waits alone, then a delete and a put are issued together. */
    const WAITS = `await tools.kv.delete({ key: 'first' });
await Promise.all([tools.kv.delete({ key: 'second' }), tools.kv.put({ key: 'p', value: 'v' })]);
return 1;`;
    /** The timeline rows' states, in order. */
    const timelineStates = (page: Page) => async (): Promise<(string | null)[]> =>
      Promise.all(
        (await page.locator('[data-testid="timeline"] tbody tr').all()).map((r) =>
          r.getAttribute('data-state'),
        ),
      );
    /** The id of run `id`'s pending approval, once there is one. */
    const pendingApproval = (id: string): Promise<string> =>
      until(async () => {
        const { json } = await harness.api<{ approvals: { id: string; status: string }[] }>(
          KEY_A,
          `/v1/runs/${id}/approvals`,
        );
        return json.approvals.find((a) => a.status === 'pending')?.id;
      });
    /** Resolves once run `id`'s event stream has said `parked` `times` times. */
    const parkedEvent = (id: string, times = 1): Promise<true> =>
      until(async () => {
        const res = await fetch(`${harness.url()}/v1/runs/${id}/events`, {
          headers: { authorization: `Bearer ${KEY_A}`, accept: 'text/event-stream' },
        });
        const reader = res.body!.getReader();
        let text = '';
        const deadline = Date.now() + 1_000;
        try {
          while (Date.now() < deadline) {
            const chunk = await Promise.race([
              reader.read(),
              new Promise<undefined>((r) => setTimeout(() => r(undefined), 200)),
            ]);
            if (chunk === undefined) continue;
            if (chunk.done) break;
            text += new TextDecoder().decode(chunk.value as Uint8Array);
          }
        } finally {
          await reader.cancel().catch(() => undefined);
        }
        return (text.match(/"parked":true/g)?.length ?? 0) >= times ? true : undefined;
      });
    const settled = (id: string): Promise<true> =>
      until(async () => (['succeeded', 'failed'].includes(await statusOf(id)) ? true : undefined));

    it('shows each of a settled run’s 500 log lines and its calls exactly once', async () => {
      const id = await startRun(
        `for (let i = 0; i < 500; i++) console.log('line ' + i);
await tools.kv.put({ key: 'a', value: 'x' });
await tools.kv.put({ key: 'b', value: 'y' });
return 'done';`,
        'five hundred lines',
      );
      await settled(id);
      const { page, context } = await harness.signedIn(KEY_A);
      await page.goto(`${harness.url()}/console/#/runs/${id}`);
      // The stream replayed the run from its first event and ended at its result.
      await poll(() => page.locator('[data-testid="live"]').getAttribute('data-state')).toBe(
        'closed',
      );
      await poll(() => page.locator('[data-testid="result"]').textContent()).toBe('"done"');
      // Logs and calls are events of their own: polled, not read once after the result.
      const lines = page.locator('[data-testid="logs"] li');
      await poll(() => lines.count()).toBe(500);
      expect(await lines.first().textContent()).toBe('logline 0');
      expect(await lines.last().textContent()).toBe('logline 499');
      const rows = page.locator('[data-testid="timeline"] tbody tr');
      // The Arguments column shows each call's arguments (JSON, truncated to one line).
      await poll(() => rows.locator('td.args').allTextContents()).toEqual([
        '{"key":"a","value":"x"}',
        '{"key":"b","value":"y"}',
      ]);
      await context.close();
    }, 120_000);

    it('cuts long arguments and shows hidden characters in them as marked escapes', async () => {
      const long = 'z'.repeat(5_000);
      const id = await startRun(
        `await tools.kv.put({ key: 'k\\u202E', value: '${long}' });\nreturn 1;`,
        'long arguments',
      );
      await settled(id);
      const { page, context } = await harness.signedIn(KEY_A);
      await page.goto(`${harness.url()}/console/#/runs/${id}`);
      const cell = page.locator('[data-testid="timeline"] tbody tr td.args');
      await poll(() => cell.textContent()).toMatch(/^\{"key":"k\\u202E","value":"z+…$/);
      expect((await cell.textContent())!.length).toBeLessThanOrEqual(80);
      expect(await cell.locator('.esc').allTextContents()).toEqual(['\\u202E']);
      await context.close();
    }, 120_000);

    it('marks the call whose approval is pending, by call id, and a call behind it as queued', async () => {
      // Every delete asks. The first waits alone; then a delete and a put are issued together:
      // the delete asks, the put (not concurrency-safe) is queued behind it.
      const id = await startRun(WAITS, 'which call waits');
      const { page, context } = await harness.signedIn(KEY_A);
      await page.goto(`${harness.url()}/console/#/runs/${id}`);
      const approve = page.locator(
        '[data-testid="pending"] tr[data-approval-id] [data-action="approve"]',
      );
      await approve.waitFor({ timeout: 30_000 });
      const rows = page.locator('[data-testid="timeline"] tbody tr');
      const states = timelineStates(page);
      await poll(states).toEqual(['waiting-approval']);
      await approve.click();
      // The second delete asks; the put issued with it is queued, not running, meanwhile.
      await poll(states).toEqual(['ok', 'waiting-approval', 'queued']);
      const { json } = await harness.api<{ approvals: { callKey: string; status: string }[] }>(
        KEY_A,
        `/v1/runs/${id}/approvals`,
      );
      const pendingKey = json.approvals.find((a) => a.status === 'pending')!.callKey;
      expect(await rows.nth(1).getAttribute('data-call-id')).toBe(pendingKey);
      expect(await rows.nth(0).getAttribute('data-call-id')).not.toBe(pendingKey);
      await page.locator('[data-testid="pending"] [data-action="approve"]').click();
      await poll(states).toEqual(['ok', 'ok', 'ok']);
      await context.close();
    }, 120_000);

    it('shows each call once after the run parked and resumed by replay', async () => {
      // The fixture parks a run whose calls all wait for a human for 3 s; the resumed life starts
      // the replayed calls again, with the same call ids.
      const id = await startRun(WAITS, 'parked and resumed');
      await parkedEvent(id);
      const first = await pendingApproval(id);
      await harness.api(KEY_A, `/v1/approvals/${first}`, { decision: 'allowed-once' });
      const { page, context } = await harness.signedIn(KEY_A);
      await page.goto(`${harness.url()}/console/#/runs/${id}`);
      const states = timelineStates(page);
      await poll(states).toEqual(['ok', 'waiting-approval', 'queued']);
      // Parked again while the second delete waits, then decided: still one row per call.
      await parkedEvent(id, 2);
      const second = await pendingApproval(id);
      await harness.api(KEY_A, `/v1/approvals/${second}`, { decision: 'allowed-once' });
      await poll(states).toEqual(['ok', 'ok', 'ok']);
      await context.close();
    }, 120_000);

    it('says "not found" with a way back for an unknown run and for another scope’s run', async () => {
      const id = await startRun('return 1;', 'alpha only');
      await settled(id);
      const { page, context } = await harness.signedIn(KEY_B);
      for (const target of [id, 'run_does-not-exist']) {
        await page.goto(`${harness.url()}/console/#/runs/${target}`);
        const box = page.locator('[data-testid="not-found"]');
        await box.waitFor({ timeout: 30_000 });
        expect(await box.textContent()).toContain(target);
        expect(await page.locator('main').textContent()).not.toContain('Loading…');
        await page.locator('[data-testid="not-found"] [data-action="back"]').click();
        await poll(() => new URL(page.url()).hash).toBe('#/runs');
      }
      await context.close();
    }, 120_000);

    it('drops the "cannot be reached" banner once the event stream is live again', async () => {
      const id = await startRun(
        "await tools.kv.delete({ key: 'held' });\nreturn 1;",
        'held for the banner',
      );
      const { page, context } = await harness.signedIn(KEY_A);
      // The run's reads fail at the network (as with the server away) until the route is lifted.
      const blocked = `${harness.url()}/v1/runs/${id}**`;
      let refusedStreams = 0;
      await page.route(blocked, (route) => {
        if (route.request().url().endsWith('/events')) refusedStreams++;
        return route.abort('connectionrefused');
      });
      await page.goto(`${harness.url()}/console/#/runs/${id}`);
      const banner = page.locator('[data-testid="banner"]');
      await poll(() => banner.textContent()).toBe('NETWORK: the server cannot be reached');
      // The page is retrying its event stream.
      await poll(() => refusedStreams).toBeGreaterThanOrEqual(1);
      await page.unroute(blocked);
      await poll(() => page.locator('[data-testid="live"]').getAttribute('data-state')).toBe(
        'live',
      );
      await poll(() => banner.isHidden()).toBe(true);
      await page.locator('[data-testid="pending"] [data-action="approve"]').click();
      await settled(id);
      await context.close();
    }, 120_000);

    it('shows each call’s wait and run time and its result, one line that expands', async () => {
      const id = await startRun(
        `await tools.kv.put({ key: 'a', value: 'x' });
const d = await tools.kv.delete({ key: 'gone-${'y'.repeat(100)}' });
return d.deleted.length;`,
        'times and results',
      );
      const { page, context } = await harness.signedIn(KEY_A);
      await page.goto(`${harness.url()}/console/#/runs/${id}`);
      const approve = page.locator('[data-testid="pending"] [data-action="approve"]');
      await approve.waitFor({ timeout: 30_000 });
      // Held for the human a measurable while before the decision.
      await new Promise((r) => setTimeout(r, 300));
      await approve.click();
      await settled(id);
      const rows = page.locator('[data-testid="timeline"] tbody tr');
      await poll(async () =>
        Promise.all((await rows.all()).map((r) => r.getAttribute('data-state'))),
      ).toEqual(['ok', 'ok']);
      // The delete waited for its approval (≥ the 300 ms held), then ran; the put did not wait.
      const ms = (text: string | null): number => {
        const m = /^([\d.]+) (ms|s)$/.exec(text ?? '');
        return m ? Number(m[1]) * (m[2] === 's' ? 1000 : 1) : NaN;
      };
      expect(ms(await rows.nth(1).locator('td.waited').textContent())).toBeGreaterThanOrEqual(300);
      expect(ms(await rows.nth(0).locator('td.waited').textContent())).toBeLessThan(300);
      expect(ms(await rows.nth(1).locator('td.ran').textContent())).toBeGreaterThanOrEqual(0);
      // A short result is shown whole; a long one as a clipped summary that opens to all of it.
      expect(await rows.nth(0).locator('td.result').textContent()).toBe('{"ok":true}');
      const long = rows.nth(1).locator('td.result details');
      const summary = (await long.locator('summary').textContent()) ?? '';
      expect(summary.length).toBeLessThanOrEqual(60);
      expect(summary.endsWith('…')).toBe(true);
      expect(await long.locator('pre').isVisible()).toBe(false);
      await long.locator('summary').click();
      expect(await long.locator('pre').isVisible()).toBe(true);
      expect(JSON.parse((await long.locator('pre').textContent()) ?? '')).toEqual({
        deleted: `gone-${'y'.repeat(100)}`,
      });
      await context.close();
    }, 120_000);

    it('numbers log lines, filters them by a search, and follows the tail until scrolled up', async () => {
      const id = await startRun(
        `for (let i = 0; i < 300; i++) console.log(i % 50 === 7 ? 'needle ' + i : 'hay ' + i);
return 1;`,
        'searchable logs',
      );
      await settled(id);
      const { page, context } = await harness.signedIn(KEY_A);
      await page.goto(`${harness.url()}/console/#/runs/${id}`);
      const lines = page.locator('[data-testid="logs"] li');
      await poll(() => lines.count()).toBe(300);
      expect(await lines.nth(41).getAttribute('data-line')).toBe('42');
      expect(await page.locator('[data-testid="log-count"]').textContent()).toBe('300 lines');
      // Followed to the end as the lines came.
      const atEnd = (): Promise<boolean> =>
        page.evaluate<boolean>(
          `(() => { const el = document.querySelector('[data-testid="logs"]'); return el.scrollTop + el.clientHeight >= el.scrollHeight - 8; })()`,
        );
      await poll(atEnd).toBe(true);
      await page.locator('[data-testid="log-search"]').fill('NEEDLE');
      const shown = page.locator('[data-testid="logs"] li:visible');
      await poll(() => shown.count()).toBe(6);
      expect(await shown.first().textContent()).toBe('logneedle 7');
      expect(await shown.first().getAttribute('data-line')).toBe('8');
      expect(await page.locator('[data-testid="log-count"]').textContent()).toBe('6 of 300 lines');
      await page.locator('[data-testid="log-search"]').fill('');
      await poll(() => shown.count()).toBe(300);
      // Scrolling up stops following; the box turns it back on and jumps to the end.
      await page.evaluate(
        `(() => { const el = document.querySelector('[data-testid="logs"]'); el.scrollTop = 0; el.dispatchEvent(new Event('scroll')); })()`,
      );
      await poll(() => page.locator('[data-testid="log-follow"]').isChecked()).toBe(false);
      await page.locator('[data-testid="log-follow"]').check();
      await poll(atEnd).toBe(true);
      await context.close();
    }, 120_000);

    it('marks the line a program failed at, with the error and its stack, in the program and the error card', async () => {
      const id = await startRun(
        `const a = 1;
const b = a + 1;
function fail(): never { throw new Error('broken at four ' + b); }
fail();`,
        'fails on line 4',
      );
      await settled(id);
      const { page, context } = await harness.signedIn(KEY_A);
      await page.goto(`${harness.url()}/console/#/runs/${id}`);
      const mark = page.locator('[data-testid="fail-line"]');
      await poll(() => mark.textContent()).toBe('3');
      expect(await mark.getAttribute('title')).toContain('broken at four 2');
      // The band, the error card and its frames may be drawn after the mark (a loaded machine
      // showed the mark with no frames yet): each is polled.
      await poll(() => page.locator('.program .fail-band').count()).toBe(1);
      await poll(() => page.locator('[data-testid="error-at"]').textContent()).toMatch(
        /^at line 3(, column \d+)? of the program$/,
      );
      // The stack's program frames: the throw in fail() on line 3, its call on line 4.
      const frames = page.locator('[data-testid="error-frames"] li');
      await poll(() => frames.allTextContents()).toEqual([
        expect.stringMatching(/^fail line 3, column \d+$/),
        expect.stringMatching(/^\(top level\) line 4, column \d+$/),
      ]);
      await context.close();
    }, 120_000);

    it('pages the runs list: the newest 100, then older ones on request, each run once', async () => {
      const ids: string[] = [];
      for (let i = 0; i < 105; i++) ids.push(await startRun('return 1;', `page run ${i}`));
      const { page, context } = await harness.signedIn(KEY_A);
      await page.goto(`${harness.url()}/console/#/runs`);
      const rows = page.locator('tr[data-run-id]');
      await poll(() => rows.count()).toBe(100);
      const older = page.locator('[data-action="older-runs"]');
      expect(await older.isVisible()).toBe(true);
      // The newest run is on the first page; the first of the 105 is not.
      expect(await page.locator(`tr[data-run-id="${ids.at(-1)!}"]`).count()).toBe(1);
      expect(await page.locator(`tr[data-run-id="${ids[0]!}"]`).count()).toBe(0);
      await older.click();
      await poll(() => page.locator(`tr[data-run-id="${ids[0]!}"]`).count()).toBe(1);
      const shown = await page.evaluate<string[]>(
        "[...document.querySelectorAll('tr[data-run-id]')].map((r) => r.getAttribute('data-run-id'))",
      );
      expect(new Set(shown).size).toBe(shown.length);
      for (const id of ids) expect(shown).toContain(id);
      await context.close();
    }, 180_000);
  },
);
