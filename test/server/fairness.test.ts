/**
 * Fairness through `isocode serve` (the built bin, a real process; docs/decisions/029-host-work.md):
 * for each class of host work a hostile tenant can cause (test/support/hostile-classes.ts), its run
 * goes on while a benign tenant
 * runs one-line programs one after another and a probe asks `/healthz`. The hostile run ends as its
 * class must; the benign runs all succeed; neither the benign tenant nor `/healthz` waits longer than a
 * generous, load-proof bound. The real figures (benign p99 under each class as a ratio of solo p99) are
 * in benchmarks/fairness.ts.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ToolResult } from '../../src/index.js';
import { BENIGN, HOSTILE_CLASSES } from '../support/hostile-classes.js';
import { listeningUrl } from '../support/listening.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

const KEY_H = 'key-hostile-0123456789abcdef';
const KEY_B = 'key-benign-0123456789abcdefgh';
/** Generous: a stalled host is stalled for the hostile run's whole length (seconds to tens of seconds). */
const BOUND_MS = 10_000;

const dir = mkdtempSync(join(tmpdir(), 'isocode-fairness-'));
let child: ChildProcess;
let url: string;
beforeAll(async () => {
  const config = join(dir, 'isocode.config.json');
  writeFileSync(
    config,
    JSON.stringify({
      sources: [{ module: join(ROOT, 'test/support/fairness-tools.ts') }],
      scopes: { hostile: { mode: 'code' }, benign: { mode: 'code' } },
      defaultScope: 'benign',
      server: {
        apiKeys: [
          { key: KEY_H, scope: 'hostile' },
          { key: KEY_B, scope: 'benign' },
        ],
      },
    }),
  );
  child = spawn(
    process.execPath,
    [join(ROOT, 'bin/isocode.js'), 'serve', '--config', config, '--port', '0'],
    {
      cwd: dir,
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  ({ url } = await listeningUrl(child, { label: 'isocode serve', timeoutMs: 60_000 }));
}, 90_000);
afterAll(async () => {
  if (child.exitCode === null && child.signalCode === null) {
    const gone = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await gone;
  }
  rmSync(dir, { recursive: true, force: true });
});

const run = async (key: string, code: string): Promise<ToolResult> =>
  (await (
    await fetch(`${url}/v1/run`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: JSON.stringify({ code, description: 'fairness' }),
    })
  ).json()) as ToolResult;

/** Runs `probe` one after another until `done` settles (at least twice); the longest single wait. */
async function longest(done: Promise<unknown>, probe: () => Promise<void>): Promise<number> {
  let over = false;
  void done.finally(() => (over = true));
  let worst = 0;
  for (let n = 0; n < 2 || !over; n++) {
    const t = performance.now();
    await probe();
    worst = Math.max(worst, performance.now() - t);
  }
  return worst;
}

describe('a hostile tenant cannot slow another tenant or the health check', () => {
  for (const hostile of HOSTILE_CLASSES) {
    it(
      hostile.name,
      async () => {
        const attack = run(KEY_H, hostile.code);
        const [benign, health] = await Promise.all([
          longest(attack, async () => {
            const r = await run(KEY_B, BENIGN);
            expect(r.ok && r.value).toMatchObject({ result: 'hi' });
          }),
          longest(attack, async () => {
            expect((await fetch(`${url}/healthz`)).status).toBe(200);
          }),
        ]);
        const r = await attack;
        if (hostile.expect.ok) expect(r.ok).toBe(true);
        else {
          expect(r.ok).toBe(false);
          if (!r.ok) {
            if (hostile.expect.kind !== undefined)
              expect(r.error.details).toMatchObject({ kind: hostile.expect.kind });
            if (hostile.expect.message !== undefined)
              expect(r.error.message).toMatch(hostile.expect.message);
          }
        }
        expect(benign).toBeLessThan(BOUND_MS);
        expect(health).toBeLessThan(BOUND_MS);
      },
      120_000,
    );
  }
});
