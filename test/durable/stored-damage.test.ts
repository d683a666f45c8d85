/**
 * Stored values are hostile too: a column of a run, a journal call, an event or an approval that is
 * not text isocode wrote (edited by hand, damaged) never fails a list, a stream or the scan for
 * claimable runs. The run it belongs to is failed `STORE_CORRUPT` instead of run (again), and a
 * damaged approval can be rejected but not approved. Each engine: a runtime writes, closes, the
 * rows are damaged with plain SQL, a new runtime opens the same store.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from '../../src/index.js';
import {
  createDurableRuntime,
  type DurableRuntime,
  type StoreOptions,
} from '../../src/durable/index.js';
import { openPgClient } from '../../src/durable/pg-client.js';
import { openSqlite } from '../../src/durable/sqlite-driver.js';
import { buildHttpApp } from '../../src/server/app.js';
import { schemaName } from './stores.js';
import { until } from '../support/until.js';

const PG_URL = process.env.ISOCODE_TEST_PG_URL;
const KEY = 'key-damage-0123456789abcdef';
const dir = mkdtempSync(join(tmpdir(), 'isocode-damage-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Engine {
  name: string;
  skip: string | undefined;
  store(): StoreOptions;
  /** A value a real column takes that is not a finite number. */
  notFinite: string;
  /** Runs `statements` against the store's tables (`T.` prefixes a table name). */
  sql(statements: string[]): Promise<void>;
}

function engines(): Engine[] {
  const path = join(dir, 'runs.sqlite');
  const schema = schemaName();
  return [
    {
      name: 'sqlite',
      skip: undefined,
      store: () => ({ path }),
      notFinite: "'x'",
      sql(statements) {
        const { db } = openSqlite(path);
        try {
          for (const s of statements) db.exec(s.replaceAll('T.', ''));
        } finally {
          db.close();
        }
        return Promise.resolve();
      },
    },
    {
      name: 'postgres',
      skip: PG_URL === undefined && !process.env.CI ? 'ISOCODE_TEST_PG_URL is not set' : undefined,
      store: () => ({ url: PG_URL, schema }),
      notFinite: "'NaN'",
      async sql(statements) {
        const client = openPgClient({ url: PG_URL ?? '' });
        try {
          for (const s of statements) await client.query(s.replaceAll('T.', `"${schema}".`));
        } finally {
          await client.close();
        }
      },
    },
  ];
}

let bumps = 0;
const tools = [
  defineTool({
    name: 'count.bump',
    description: 'A side effect: counts its runs.',
    input: z.object({}),
    execute: () => ++bumps,
  }),
  defineTool({
    name: 'kv.delete',
    description: 'Deletes a key (asks a human first).',
    input: z.object({ key: z.string() }),
    execute: ({ key }: { key: string }) => ({ deleted: key }),
  }),
];
const open = (engine: Engine): Promise<DurableRuntime> =>
  createDurableRuntime({
    tools,
    store: engine.store(),
    scopes: { default: { mode: 'code' } },
    codeMode: { typecheck: 'off' },
    recovery: { leaseMs: 1_000 },
    hooks: {
      preExecute: (ctx) =>
        ctx.call.name === 'kv.delete' ? { action: 'ask', message: 'deletes data' } : undefined,
    },
  });
/** Turns a settled run back into one a replica would claim. */
const requeue = (id: string): string =>
  `UPDATE T.runs SET status = 'queued', finished_at = NULL, owner = NULL, lease_expires_at = NULL, result = NULL WHERE id = '${id}'`;

/** Waits until each run is failed `STORE_CORRUPT` with a message matching its pattern. */
async function failedCorrupt(
  runtime: DurableRuntime,
  expected: readonly (readonly [string, RegExp])[],
): Promise<void> {
  for (const [id, text] of expected) {
    const view = await until(async () => {
      const v = await runtime.runs.get(id);
      return v?.status === 'failed' ? v : undefined;
    });
    const error = view.error as { code?: unknown; message?: unknown } | undefined;
    expect(error?.code).toBe('STORE_CORRUPT');
    expect(String(error?.message)).toMatch(text);
  }
}

for (const engine of engines()) {
  describe.skipIf(engine.skip !== undefined)(`damaged stored values: ${engine.name}`, () => {
    it('lists and streams go on; a damaged run or journal is failed STORE_CORRUPT, not run again; a damaged approval cannot be approved', async () => {
      bumps = 0;
      const first = await open(engine);
      let ids: { shown: string; program: string; journal: string; asked: string };
      try {
        const done = async (code: string) => {
          const run = await first.start({ code });
          expect((await run.wait()).status).toBe('succeeded');
          return run.id;
        };
        ids = {
          shown: await done('return await tools.count.bump({});'),
          program: await done('return await tools.count.bump({});'),
          journal: await done('return await tools.count.bump({});'),
          asked: (await first.start({ code: 'return await tools.kv.delete({ key: "k" });' })).id,
        };
        await until(async () =>
          (await first.store.listApprovals({ runId: ids.asked, status: ['pending'] })).length === 1
            ? true
            : undefined,
        );
      } finally {
        await first.close(); // the asking run is released; its approval stays pending
      }
      expect(bumps).toBe(3);
      await engine.sql([
        `UPDATE T.runs SET result = '{not json', description = '"unterminated', status = 'paused-by-v9' WHERE id = '${ids.shown}'`,
        `UPDATE T.events SET data = '[' WHERE run_id = '${ids.shown}'`,
        requeue(ids.program),
        `UPDATE T.runs SET program = '{bad' WHERE id = '${ids.program}'`,
        requeue(ids.journal),
        `UPDATE T.calls SET result = '{x', status = 'done-by-v9' WHERE run_id = '${ids.journal}'`,
        `UPDATE T.approvals SET args = 'nope' WHERE run_id = '${ids.asked}'`,
      ]);

      const second = await open(engine);
      try {
        // The damaged runs are claimed and failed, without running anything again.
        await failedCorrupt(second, [
          [ids.program, /stored record of this run cannot be read \(program\); it was not run/],
          [ids.journal, /stored journal of this run cannot be read \(call .*: status, result\)/],
        ]);
        expect(bumps).toBe(3);

        // Lists, views and events read on, naming what they could not read.
        const listed = await second.runs.list('default');
        // A status this version never writes (a newer replica's, or an edit) is shown as stored.
        const damaged = ['description', 'status', 'result'];
        expect(listed.find((r) => r.id === ids.shown)).toMatchObject({
          status: 'paused-by-v9',
          damaged,
        });
        const shown = await second.runs.get(ids.shown);
        expect(shown).toMatchObject({ result: undefined, damaged });
        const events = await second.store.listEvents(ids.shown, 0);
        expect(events.length).toBeGreaterThan(0);
        expect(events.every((e) => e.data === null && e.damaged?.[0] === 'data')).toBe(true);

        // A new run still works.
        const fresh = await second.start({ code: 'return await tools.count.bump({});' });
        expect((await fresh.wait()).status).toBe('succeeded');
        expect(bumps).toBe(4);

        // The damaged approval: shown, not approvable (alone or in a batch), rejectable.
        const { app } = buildHttpApp({
          runtime: second,
          defaultScope: 'default',
          apiKeys: [{ key: KEY, scope: 'default' }],
          runs: second.runs,
        });
        const call = async (path: string, body?: unknown) => {
          const res = await app.request(path, {
            method: body === undefined ? 'GET' : 'POST',
            headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
            ...(body === undefined ? {} : { body: JSON.stringify(body) }),
          });
          return { status: res.status, body: (await res.json()) as Record<string, unknown> };
        };
        const pending = await call('/v1/approvals');
        const approvals = pending.body.approvals as {
          id: string;
          args: unknown;
          damaged?: string[];
        }[];
        expect(approvals).toHaveLength(1);
        const asked = approvals[0]!;
        expect(asked).toMatchObject({ args: null, damaged: ['args'] });
        // The store owns the rule: a library caller gets the same refusal as the HTTP face.
        await expect(
          second.store.decideApproval(asked.id, 'allowed-once', 'a library caller'),
        ).rejects.toMatchObject({ code: 'STORE_CORRUPT' });
        const approve = await call(`/v1/approvals/${asked.id}`, { decision: 'allowed-once' });
        expect(approve.status).toBe(500);
        expect(approve.body.error).toMatchObject({ code: 'STORE_CORRUPT' });
        const batch = await call('/v1/approvals', {
          decisions: [{ id: asked.id, decision: 'allowed-once' }],
        });
        expect(batch.status).toBe(200);
        const results = batch.body.results as { id: string; error?: { code: string } }[];
        expect(results).toHaveLength(1);
        expect(results[0]).toMatchObject({ id: asked.id, error: { code: 'STORE_CORRUPT' } });
        const reject = await call(`/v1/approvals/${asked.id}`, { decision: 'rejected' });
        expect(reject.status).toBe(200);
        expect(reject.body).toMatchObject({ applied: true, approval: { status: 'rejected' } });
        const ended = await until(async () => {
          const v = await second.runs.get(ids.asked);
          return v?.finishedAt !== undefined ? v : undefined;
        });
        expect(ended.status).toBe('failed');
      } finally {
        await second.close();
      }
    }, 180_000);

    it('a number that is not one isocode wrote: an integer past 2^53, a NaN clock, a die outside [0, 1), a missing recorded value', async () => {
      bumps = 0;
      const first = await open(engine);
      const ids: string[] = [];
      try {
        for (let i = 0; i < 5; i++) {
          const run = await first.start({
            code: 'const t = Date.now(); const d = Math.random(); await tools.count.bump({}); return [t, d];',
          });
          expect((await run.wait()).status).toBe('succeeded');
          ids.push(run.id);
        }
      } finally {
        await first.close();
      }
      expect(bumps).toBe(5);
      const [shown = '', clock = '', dice = '', gap = '', started = ''] = ids;
      const huge = '9000000000000000000';
      await engine.sql([
        `UPDATE T.runs SET created_at = ${huge} WHERE id = '${shown}'`,
        `UPDATE T.events SET at = ${huge} WHERE run_id = '${shown}'`,
        ...[clock, dice, gap, started].map(requeue),
        `UPDATE T.run_values SET value = ${engine.notFinite} WHERE run_id = '${clock}' AND kind = 'date'`,
        `UPDATE T.run_values SET value = 7 WHERE run_id = '${dice}' AND kind = 'random'`,
        `DELETE FROM T.run_values WHERE run_id = '${gap}' AND seq = 1`,
        `UPDATE T.calls SET started_at = ${huge} WHERE run_id = '${started}'`,
      ]);

      const second = await open(engine);
      try {
        await failedCorrupt(second, [
          [clock, /recorded value 1: value\)/],
          [dice, /recorded value 2: value\)/],
          [gap, /recorded value 1: missing\)/],
          [started, /\(call .*: started_at\)/],
        ]);
        expect(bumps).toBe(5);
        // Read whole, the bad integer named: the list, the view and the run's events.
        const listed = await second.runs.list('default');
        expect(listed.find((r) => r.id === shown)).toMatchObject({
          status: 'succeeded',
          damaged: ['created_at'],
        });
        expect(await second.runs.get(shown)).toMatchObject({ damaged: ['created_at'] });
        const events = await second.store.listEvents(shown, 0);
        expect(events.length).toBeGreaterThan(0);
        expect(events.every((e) => e.damaged?.[0] === 'at')).toBe(true);
        const fresh = await second.start({ code: 'return await tools.count.bump({});' });
        expect((await fresh.wait()).status).toBe('succeeded');
        expect(bumps).toBe(6);
      } finally {
        await second.close();
      }
    }, 180_000);
  });
}
