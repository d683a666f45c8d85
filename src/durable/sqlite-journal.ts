/** The embedded store's journal: a run's calls, its recorded values and its events (one transaction each). */
import { encodeJson, encodeText } from './encode.js';
import { toCall as callOf, toEvent as eventOf, toValue as valueOf } from './rows.js';
import { RollBack, clamp, marks, unwrapRollBack, type SqliteContext } from './sqlite-context.js';
import type { CallResolution, Resumed, RunStoreJournal } from './store.js';

/** The journal methods of the store on `ctx`. */
export function journalMethods(ctx: SqliteContext): RunStoreJournal {
  const { tx, one, all, run, holds, addBytes, append, getRun, wake } = ctx;

  /** Settles (or puts back to `pending`) a `started` call, inside a transaction; false when none is. */
  const resolveStarted = (runId: string, key: string, res: CallResolution): boolean => {
    const started = one(
      `SELECT 1 AS ok FROM calls WHERE run_id = ? AND key = ? AND status = 'started'`,
      runId,
      key,
    );
    if (!started) return false;
    if (res.status === 'pending') {
      run(`UPDATE calls SET status = 'pending' WHERE run_id = ? AND key = ?`, runId, key);
      return true;
    }
    const text = encodeJson(res.result) ?? 'null';
    const seq = one(
      'UPDATE runs SET next_finish = next_finish + 1, bytes = bytes + ? WHERE id = ? RETURNING next_finish',
      text.length,
      runId,
    );
    run(
      `UPDATE calls SET status = ?, result = ?, finish_seq = ?, finished_at = ? WHERE run_id = ? AND key = ?`,
      res.status,
      text,
      Number(seq?.next_finish ?? 0),
      Date.now(),
      runId,
      key,
    );
    return true;
  };

  return {
    recordArrival: (c, f) =>
      tx(() => {
        if (!holds(c.runId, f)) return undefined;
        const existing = one('SELECT * FROM calls WHERE run_id = ? AND key = ?', c.runId, c.key);
        if (existing) return { inserted: false, record: callOf(existing) };
        const args = encodeJson(c.args) ?? 'null';
        const ord = Number(
          one('SELECT count(*) AS n FROM calls WHERE run_id = ?', c.runId)?.n ?? 0,
        );
        const row = one(
          `INSERT INTO calls (run_id, key, ord, name, args, status, idempotent, started_at)
           VALUES (?, ?, ?, ?, ?, 'pending', ?, ?) RETURNING *`,
          c.runId,
          c.key,
          ord,
          encodeText(c.name),
          args,
          c.idempotent === true ? 1 : 0,
          Date.now(),
        );
        addBytes(c.runId, args.length);
        return { inserted: true, record: callOf(row!) };
      }),

    markCallStarted: (runId, key, f) =>
      tx(
        () =>
          holds(runId, f) &&
          run(
            `UPDATE calls SET status = 'started', epoch = ? WHERE run_id = ? AND key = ? AND status = 'pending'`,
            f.epoch,
            runId,
            key,
          ) > 0,
      ),

    finishCall: (runId, key, status, result) =>
      tx(() => {
        const text = encodeJson(result) ?? 'null';
        const seq = one(
          'UPDATE runs SET next_finish = next_finish + 1, bytes = bytes + ? WHERE id = ? RETURNING next_finish',
          text.length,
          runId,
        );
        if (!seq) return false;
        const n = run(
          `UPDATE calls SET status = ?, result = ?, finish_seq = ?, finished_at = ?
           WHERE run_id = ? AND key = ? AND status IN ('pending', 'started')`,
          status,
          text,
          Number(seq.next_finish),
          Date.now(),
          runId,
          key,
        );
        if (n === 0) throw new RollBack(false);
        return true;
      }).catch((e: unknown) => unwrapRollBack<boolean>(e)),

    resolveCall: (runId, key, res) => tx(() => resolveStarted(runId, key, res)),

    resolveInterrupted: (runId, key, res, data) =>
      tx((): Resumed | undefined => {
        const r = getRun(runId);
        if (!r) return undefined;
        if (r.status !== 'interrupted' || r.owner !== undefined) return 'not-interrupted';
        if (!resolveStarted(runId, key, res)) return 'not-started';
        const now = Date.now();
        run(
          `UPDATE runs SET status = 'queued', error = NULL, finished_at = NULL, updated_at = ? WHERE id = ?`,
          now,
          runId,
        );
        const event = append(runId, 'status', data, now);
        wake();
        return { run: getRun(runId)!, event: event! };
      }),

    getCall: (runId, key) =>
      tx(() => {
        const row = one('SELECT * FROM calls WHERE run_id = ? AND key = ?', runId, key);
        return row ? callOf(row) : undefined;
      }),

    listCalls: (runId) =>
      tx(() => all('SELECT * FROM calls WHERE run_id = ? ORDER BY ord', runId).map(callOf)),

    countCalls: (ids) =>
      tx(() => {
        const counts = new Map<string, number>();
        if (ids.length === 0) return counts;
        for (const row of all(
          `SELECT run_id, count(*) AS n FROM calls WHERE status <> 'pending' AND run_id IN (${marks(ids.length)}) GROUP BY run_id`,
          ...ids,
        ))
          counts.set(String(row.run_id), Number(row.n));
        return counts;
      }),

    recordValue: (runId, kind, value, f) =>
      tx(() => {
        const row = one(
          'UPDATE runs SET next_value = next_value + 1, bytes = bytes + 16 WHERE id = ? AND owner = ? AND epoch = ? RETURNING next_value',
          runId,
          f.owner,
          f.epoch,
        );
        if (!row) return undefined;
        const seq = Number(row.next_value);
        run(
          'INSERT INTO run_values (run_id, seq, kind, value) VALUES (?, ?, ?, ?)',
          runId,
          seq,
          kind,
          value,
        );
        return seq;
      }),

    listValues: (runId) =>
      tx(() => all('SELECT * FROM run_values WHERE run_id = ? ORDER BY seq', runId).map(valueOf)),

    // A settled run's stream ended with its result: nothing is appended after it.
    appendEvent: (runId, type, data) => tx(() => append(runId, type, data, Date.now(), true)),

    listEvents: (runId, after = 0, limit) =>
      tx(() =>
        all(
          `SELECT * FROM events WHERE run_id = ? AND seq > ? ORDER BY seq LIMIT ${clamp(limit)}`,
          runId,
          after,
        ).map(eventOf),
      ),
  };
}
