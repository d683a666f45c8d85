/**
 * The embedded store (SQLite): one process per file — a second process is refused at open with a
 * clear error, and the file is free again once the holder dies (even by SIGKILL) — and every code
 * point a value can hold round-trips through it exactly.
 */
import { fork } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { openRunStore } from '../../src/durable/open-store.js';
import { childMessage } from '../support/child-message.js';

const FIXTURE = fileURLToPath(new URL('./fixtures/hold-store.ts', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'isocode-embedded-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the embedded store', () => {
  it('one process per file: a second is refused with STORE_UNAVAILABLE; after the holder is SIGKILLed the file opens with its data', async () => {
    const path = join(dir, 'runs.db');
    const holder = fork(FIXTURE, [], {
      execArgv: ['--expose-gc', '--import', 'tsx'],
      env: { ...process.env, STORE_PATH: path },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    let exited: string | undefined;
    holder.once('exit', (code, signal) => (exited = `${String(code)}/${String(signal)}`));
    expect(await childMessage(holder)).toBe(`ready:${path}`);
    expect(existsSync(path)).toBe(true);
    const second = openRunStore({ path });
    // If the second open were let in, say whether the holder was still alive then (a dead holder's
    // lock is gone by design; a live one's must refuse).
    await second.then(
      (store) => store.close(),
      () => undefined,
    );
    expect(exited, 'the holder died before the second open').toBeUndefined();
    await expect(second).rejects.toMatchObject({
      code: 'STORE_UNAVAILABLE',
      message: expect.stringContaining('in use by another process') as unknown,
    });
    const gone = new Promise((resolve) => holder.once('exit', resolve));
    holder.kill('SIGKILL');
    await gone;
    const store = await openRunStore({ path });
    expect((await store.getRun('run_held'))?.program).toBe('return 1;');
    await store.close();
  }, 60_000);

  it("refuses a file holding another application's database (INVALID_CONFIG) and leaves it as it was", async () => {
    const file = join(dir, 'theirs.db');
    const { openSqlite } = await import('../../src/durable/sqlite-driver.js');
    const { db: theirs } = openSqlite(file);
    theirs.exec('CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT)');
    theirs.exec("INSERT INTO customers (name) VALUES ('ada')");
    theirs.close();
    await expect(openRunStore({ path: file })).rejects.toMatchObject({
      code: 'INVALID_CONFIG',
      message: expect.stringContaining("another application's database") as unknown,
    });
    const { db: again } = openSqlite(file);
    try {
      const tables = again
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
        .all()
        .map((r) => r.name);
      expect(tables).toEqual(['customers']);
      expect(again.prepare('PRAGMA journal_mode').get()?.journal_mode).toBe('delete');
    } finally {
      again.close();
    }
  });

  it('every code point class round-trips: programs, descriptions, arguments, results, events, reasons', async () => {
    const store = await openRunStore({});
    const lone = [
      '\u0000',
      '\uD800',
      '\uDFFF',
      '\u001b]52;c;x\u0007',
      '\u0085\u009b',
      '\uFFFE\uFFFF',
      '\u202E',
      '😀',
    ];
    let n = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.string({ unit: 'binary' }),
          fc.constantFrom(...lone),
          fc.string({ unit: 'grapheme' }),
        ),
        async (text) => {
          const id = `run_${n++}`;
          const fence = { owner: 'r', epoch: 1 };
          await store.createRun({
            id,
            scope: 's',
            program: text,
            description: text,
            lease: { owner: 'r', expiresAt: Date.now() + 60_000 },
          });
          await store.recordArrival(
            { runId: id, key: 'k', name: 'tool', args: { [text]: [text] } },
            fence,
          );
          await store.finishCall(id, 'k', 'ok', { ok: true, value: text });
          await store.appendEvent(id, 'log', { text });
          await store.createApproval({
            id: `apr_${n}`,
            runId: id,
            callKey: text,
            tool: 't',
            args: text,
            scope: 's',
            reason: text,
          });
          await store.settleRun(id, fence, {
            status: 'failed',
            error: { message: text },
            result: [text],
          });
          const run = await store.getRun(id);
          expect(run?.program).toBe(text);
          expect(run?.description).toBe(text);
          expect(run?.error).toEqual({ message: text });
          expect(run?.result).toEqual([text]);
          const [call] = await store.listCalls(id);
          expect(call?.args).toEqual({ [text]: [text] });
          expect(call?.result).toEqual({ ok: true, value: text });
          expect((await store.listEvents(id)).find((e) => e.type === 'log')?.data).toEqual({
            text,
          });
          const a = await store.getApproval(`apr_${n}`);
          expect([a?.callKey, a?.args, a?.reason]).toEqual([text, text, text]);
        },
      ),
      { numRuns: 200 },
    );
    for (const id of ['', 'x\u0000', 'a'.repeat(201), 'a b', '\u202E'])
      expect(await store.getRun(id)).toBeUndefined();
    await store.close();
  }, 60_000);
});
