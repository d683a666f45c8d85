/**
 * The web console in a real browser (Debian's chromium driven by playwright-core) against a real
 * HTTP service in its own process: sign in with a key, see a run appear, open it, watch a nested
 * call and a log line arrive, approve (one, then two at once) and see runs complete; a key of
 * another tenant sees none of it, in the page and through the API the page calls.
 *
 * Skipped with a visible reason when chromium or the built console is absent, except under CI.
 * The README's screenshots come from `npm run console:screenshots` (scripts/console-screenshots.ts).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import {
  CHROMIUM,
  CHROMIUM_ARGS,
  KEY_A,
  KEY_B,
  missing,
  poll,
  until,
  useConsole,
  type SignedIn,
} from './browser-harness.js';
import { withServe } from './helpers.js';

const APPROVAL_PROGRAM = `// Stores a value, then deletes another: the delete waits for a human.
console.log('starting');
await tools.kv.put({ key: 'greeting', value: 'hello' });
const gone = await tools.kv.delete({ key: 'stale' });
console.log('after approval');
await tools.kv.put({ key: 'audit', value: \`deleted \${gone.deleted}\` });
return { done: true, deleted: gone.deleted };`;

describe.skipIf(missing !== undefined)(
  missing ? `the console in a browser (skipped: ${missing})` : 'the console in a browser',
  () => {
    const harness = useConsole();
    const { api, startRun, statusOf } = harness;
    const signedIn = (key: string): Promise<SignedIn> => harness.signedIn(key);
    let a: SignedIn;
    let runId = '';

    it('signs in with a key and sees a run appear in the list, live', async (ctx) => {
      a = await signedIn(KEY_A);
      runId = await startRun(APPROVAL_PROGRAM, 'clean up stale keys');
      if ((await api(KEY_A, '/v1/runs')).status === 404)
        ctx.skip('GET /v1/runs (the runs list) is not served by this build yet');
      const row = a.page.locator(`tr[data-run-id="${runId}"]`);
      await row.waitFor({ timeout: 30_000 });
      expect(await row.locator('td.title a').textContent()).toBe('clean up stale keys');
      await poll(() => row.locator('[data-status]').getAttribute('data-status')).toBe(
        'waiting-approval',
      );
    }, 120_000);

    it('opens the run, watches a call and a log line arrive, approves, and sees it complete', async () => {
      a ??= await signedIn(KEY_A);
      runId ||= await startRun(APPROVAL_PROGRAM, 'clean up stale keys');
      const { page } = a;
      await page.goto(`${harness.url()}/console/#/runs/${runId}`);
      const view = await api<{ program?: string }>(KEY_A, `/v1/runs/${runId}`);
      if (typeof view.json.program === 'string') {
        await poll(() => page.locator('.program .source').textContent()).toBe(APPROVAL_PROGRAM);
        expect(await page.locator('.program .tok-keyword').first().textContent()).toBe('await');
        expect(await page.locator('.program .tok-comment').first().textContent()).toMatch(
          /^\/\/ Stores/,
        );
      }
      // Parked on the approval: the first call and log line are there, the approval is offered.
      const pending = page.locator('tr[data-approval-id][data-tool="kv.delete"]');
      await pending.waitFor({ timeout: 30_000 });
      const timeline = page.locator('[data-testid="timeline"] tbody tr');
      const calls = async (): Promise<string[]> =>
        Promise.all(
          (await timeline.all()).map(
            async (r) =>
              `${await r.getAttribute('data-call')}:${await r.getAttribute('data-state')}`,
          ),
        );
      // The waiting call is the one whose approval is pending (matched by call id, not tool name).
      await poll(calls).toEqual(['kv.put:ok', 'kv.delete:waiting-approval']);
      // Each read below comes from its own event or fetch, so each is polled.
      await poll(() => timeline.nth(1).textContent()).toContain('waiting for approval');
      await poll(() => page.locator('[data-testid="logs"] li').allTextContents()).toEqual([
        'logstarting',
      ]);
      await poll(() => page.locator('[data-testid="live"]').getAttribute('data-state')).toBe(
        'live',
      );
      await pending.locator('[data-action="approve"]').click();
      // Arriving live over the event stream: the approved call, a log line, one more call, the result.
      await poll(() => page.locator('[data-testid="logs"] li').allTextContents()).toEqual([
        'logstarting',
        'logafter approval',
      ]);
      await poll(calls).toEqual(['kv.put:ok', 'kv.delete:ok', 'kv.put:ok']);
      await poll(() => page.locator('.run-title [data-status]').getAttribute('data-status')).toBe(
        'succeeded',
      );
      await poll(() => page.locator('[data-testid="result"]').textContent()).toContain(
        '"deleted": "stale"',
      );
      expect(await page.locator('[data-action="cancel"]').isDisabled()).toBe(true);
      expect(await statusOf(runId)).toBe('succeeded');
    }, 120_000);

    it('approves two pending calls at once from the approvals view (the batch API)', async () => {
      a ??= await signedIn(KEY_A);
      const { page } = a;
      const id = await startRun(
        `const [x, y] = await Promise.all([tools.kv.delete({ key: 'a' }), tools.kv.delete({ key: 'b' })]);\nreturn [x.deleted, y.deleted];`,
        'delete two keys',
      );
      await page.goto(`${harness.url()}/console/#/approvals`);
      const rows = page.locator(`[data-testid="pending"] tr[data-approval-id]`);
      await poll(() => rows.count()).toBe(2);
      expect(await page.locator('[data-testid="pending-count"]').textContent()).toBe('2');
      for (const box of await rows.locator('input[type="checkbox"]').all()) await box.check();
      const batch = page.waitForRequest(
        (r) => r.url() === `${harness.url()}/v1/approvals` && r.method() === 'POST',
      );
      await page.locator('[data-action="approve-selected"]').click();
      expect(JSON.parse((await batch).postData() ?? '{}')).toMatchObject({
        decisions: [{ decision: 'allowed-once' }, { decision: 'allowed-once' }],
      });
      await until(async () => ((await statusOf(id)) === 'succeeded' ? true : undefined));
      await page.locator('[data-testid="no-pending"]').waitFor({ timeout: 30_000 });
      const decided = page.locator('[data-testid="decided"] tr[data-approval-id]');
      await poll(() => decided.count()).toBeGreaterThanOrEqual(3);
      expect(await decided.first().locator('[data-status]').textContent()).toBe('allowed-once');
      expect(a.violations).toEqual([]);
    }, 120_000);

    it('shows hidden and control characters as marked escapes, never interpreted (decision 028)', async () => {
      a ??= await signedIn(KEY_A);
      const { page } = a;
      // Raw U+202E in the description and in a comment of the source (Trojan Source); the program
      // logs ANSI colour codes and asks to delete a key with a right-to-left override.
      const program = [
        '// owner: \u202Eevil',
        "console.log('\\x1b[31mred\\x1b[0m \\x07');",
        "await tools.kv.delete({ key: 'invoice-\\u202Efdp.exe' });",
        "await tools.kv.delete({ key: 'second' });",
        'return 1;',
      ].join('\n');
      const id = await startRun(program, 'hostile \u202Etxt.exe');
      await page.goto(`${harness.url()}/console/#/approvals`);
      const row = page.locator(
        `[data-testid="pending"] tr[data-approval-id][data-tool="kv.delete"]`,
      );
      await poll(() => row.count()).toBe(1);
      expect(await row.locator('pre.json').textContent()).toBe(
        '{\n  "key": "invoice-\\u202Efdp.exe"\n}',
      );
      expect(await row.locator('pre.json .esc').allTextContents()).toEqual(['\\u202E']);
      await row.locator('[data-action="approve"]').click();
      // The run page: description, program, logs; then cancel the run parked on the second call.
      await page.goto(`${harness.url()}/console/#/runs/${id}`);
      await page
        .locator('[data-testid="pending"] tr[data-approval-id][data-tool="kv.delete"]')
        .waitFor({ timeout: 30_000 });
      await poll(() => page.locator('.run-title h2').textContent()).toBe('hostile \\u202Etxt.exe');
      await poll(() => page.locator('[data-testid="logs"] li').allTextContents()).toEqual([
        'log\\u001B[31mred\\u001B[0m \\u0007',
      ]);
      expect(await page.locator('[data-testid="logs"] li .esc').count()).toBe(3);
      await poll(() => page.locator('.program .source').textContent()).toContain(
        '// owner: \\u202Eevil',
      );
      // Who approved the first call, readable (not `http:<scope>:<uuid>`).
      await poll(() => page.locator('[data-testid="decided-by"]').allTextContents()).toEqual([
        'a key of scope alpha',
      ]);
      await page.locator('[data-action="cancel"]').click();
      await poll(() => page.locator('.run-title [data-status]').getAttribute('data-status')).toBe(
        'cancelled',
      );
      await poll(() => page.locator('[data-testid="no-result"]').textContent()).toBe(
        'The run was cancelled: it has no result.',
      );
      expect(await page.locator('[data-testid="outcome"]').textContent()).not.toContain(
        'undefined',
      );
      // Nothing of the dangerous classes reached the page's text, anywhere.
      const body = (await page.locator('body').textContent()) ?? '';
      expect(body).not.toMatch(
        // eslint-disable-next-line no-control-regex
        /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/,
      );
      expect(a.violations).toEqual([]);
    }, 120_000);

    it('cancels a run waiting for approval from its page', async () => {
      a ??= await signedIn(KEY_A);
      const { page } = a;
      const id = await startRun(APPROVAL_PROGRAM, 'to be cancelled');
      await page.goto(`${harness.url()}/console/#/runs/${id}`);
      await page
        .locator('tr[data-approval-id][data-tool="kv.delete"]')
        .waitFor({ timeout: 30_000 });
      await page.locator('[data-action="cancel"]').click();
      await poll(() => page.locator('.run-title [data-status]').getAttribute('data-status')).toBe(
        'cancelled',
      );
      expect(await page.locator('[data-action="cancel"]').isDisabled()).toBe(true);
      await until(async () => ((await statusOf(id)) === 'cancelled' ? true : undefined));
      // `cancelled` shows at once; the run is settled (its approvals with it) once its life ended.
      await until(async () => {
        const run = await api<{ finishedAt?: number }>(KEY_A, `/v1/runs/${id}`);
        return run.json.finishedAt === undefined ? undefined : true;
      });
      const { json } = await api<{ approvals: { status: string }[] }>(
        KEY_A,
        `/v1/runs/${id}/approvals`,
      );
      expect(json.approvals.map((x) => x.status)).not.toContain('pending');
    }, 120_000);

    it('a key of another tenant sees none of it, in the page and through the API', async () => {
      a ??= await signedIn(KEY_A);
      runId ||= await startRun(APPROVAL_PROGRAM, 'clean up stale keys');
      const b = await signedIn(KEY_B);
      const listed = await api<{ runs?: { id: string }[] }>(KEY_B, '/v1/runs');
      if (listed.status !== 404) {
        expect(listed.json.runs?.map((r) => r.id)).not.toContain(runId);
        await b.page.locator('td.empty').waitFor();
        expect(await b.page.locator('tr[data-run-id]').count()).toBe(0);
      }
      await b.page.goto(`${harness.url()}/console/#/approvals`);
      await b.page.locator('[data-testid="no-pending"]').waitFor();
      expect(await b.page.locator('tr[data-approval-id]').count()).toBe(0);
      await b.page.goto(`${harness.url()}/console/#/runs/${runId}`);
      await b.page.locator('[data-testid="not-found"]').waitFor({ timeout: 30_000 });
      expect(await b.page.locator('.program').count()).toBe(0);
      // The API the page calls, with B's key: A's run and approvals do not exist.
      expect((await api(KEY_B, `/v1/runs/${runId}`)).status).toBe(404);
      expect((await api(KEY_B, `/v1/runs/${runId}/events`)).status).toBe(404);
      expect((await api(KEY_B, `/v1/runs/${runId}/cancel`, {})).status).toBe(404);
      const mine = await api<{ approvals: { id: string }[] }>(KEY_A, '/v1/approvals?status=all');
      const theirs = await api<{ approvals: { id: string }[] }>(KEY_B, '/v1/approvals?status=all');
      expect(mine.json.approvals.length).toBeGreaterThan(0);
      expect(theirs.json.approvals).toEqual([]);
      expect(
        (await api(KEY_B, `/v1/approvals/${mine.json.approvals[0]!.id}`, { decision: 'rejected' }))
          .status,
      ).toBe(404);
      // Every request of both pages stayed on this origin; every API call carried its own key.
      for (const [page, key] of [
        [a, KEY_A],
        [b, KEY_B],
      ] as const) {
        expect(page.requests.length).toBeGreaterThan(3);
        for (const r of page.requests) {
          expect(r.url.startsWith(`${harness.url()}/`)).toBe(true);
          // The one request without a key is the probe for anonymous loopback access before sign-in.
          if (new URL(r.url).pathname.startsWith('/v1/'))
            expect(
              r === page.requests.find((q) => q.url.includes('/v1/'))
                ? [undefined, `Bearer ${key}`]
                : [`Bearer ${key}`],
            ).toContain(r.authorization);
          else expect(new URL(r.url).pathname).toMatch(/^\/console\//);
          expect(r.url).not.toContain(key);
        }
        expect(page.violations).toEqual([]);
        expect((await page.context.cookies()).length).toBe(0);
      }
      await b.context.close();
      await a.context.close();
    }, 120_000);
  },
);

describe.skipIf(missing !== undefined)(
  missing
    ? `the console with anonymous loopback access (skipped: ${missing})`
    : 'the console with anonymous loopback access',
  () => {
    it('needs no key on a loopback server without keys, and says when durable runs are off', async () => {
      // `isocode serve --console` with a config that has no API keys (anonymous loopback) and turns
      // durable runs off (`"store": false`; with no config at all they are on, in memory).
      const dir = mkdtempSync(join(tmpdir(), 'isocode-console-nostore-'));
      const config = join(dir, 'isocode.config.json');
      writeFileSync(config, JSON.stringify({ store: false }));
      await withServe(['--console', '--config', config], async (base) => {
        const b = await chromium.launch({
          executablePath: CHROMIUM,
          headless: true,
          args: CHROMIUM_ARGS,
        });
        try {
          const page = await b.newPage();
          const requests: string[] = [];
          page.on('request', (r) => requests.push(r.url()));
          await page.goto(`${base}/console/`);
          await poll(() => page.locator('[data-testid="who"]').textContent()).toBe(
            'anonymous (loopback)',
          );
          expect(await page.locator('form.login').count()).toBe(0);
          await poll(() => page.locator('[data-testid="banner"]').textContent()).toBe(
            'This server does not offer durable runs (the /v1/runs API).',
          );
          expect(requests.every((u) => u.startsWith(`${base}/`))).toBe(true);
        } finally {
          await b.close();
        }
      });
    }, 120_000);
  },
);
