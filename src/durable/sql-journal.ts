/** The PostgreSQL store's journal: a run's calls, its recorded values and its events. */
import { encodeJson, encodeText, isStorableId } from './encode.js';
import { toCall, toEvent, toRun, toValue, type Row } from './rows.js';
import { clamp, type SqlContext } from './sql-context.js';
import type { CallResolution, Resumed, RunStoreJournal } from './store.js';

/** The journal methods of the store on `ctx`. */
export function journalMethods(ctx: SqlContext): RunStoreJournal {
  const { s, query, inTx, append, fenced, wakeChannel } = ctx;

  /** Settles (or puts back to `pending`) a `started` call in one statement; false when none is. */
  const resolveStarted = async (
    q: (sql: string, params?: unknown[]) => Promise<unknown[]>,
    runId: string,
    key: string,
    res: CallResolution,
  ): Promise<boolean> => {
    if (res.status === 'pending')
      return (
        (
          await q(
            `UPDATE ${s}.calls SET status = 'pending' WHERE run_id = $1 AND key = $2 AND status = 'started' RETURNING key`,
            [runId, key],
          )
        ).length > 0
      );
    const text = encodeJson(res.result) ?? 'null';
    const rows = await q(
      `WITH n AS (UPDATE ${s}.runs SET next_finish = next_finish + 1, bytes = bytes + $6 WHERE id = $1
           AND EXISTS (SELECT 1 FROM ${s}.calls WHERE run_id = $1 AND key = $2 AND status = 'started') RETURNING next_finish)
       UPDATE ${s}.calls SET status = $3, result = $4, finish_seq = (SELECT next_finish FROM n), finished_at = $5
       WHERE run_id = $1 AND key = $2 AND status = 'started' RETURNING key`,
      [runId, key, res.status, text, Date.now(), text.length],
    );
    return rows.length > 0;
  };

  return {
    async recordArrival(c, f) {
      const args = encodeJson(c.args) ?? 'null';
      const rows = await query(
        `WITH ok AS (SELECT 1 WHERE ${fenced('$1', '$7', '$8')}),
         ins AS (
           INSERT INTO ${s}.calls (run_id, key, name, args, status, idempotent, started_at)
           SELECT $1, $2, $3, $4, 'pending', $5, $6 FROM ok
           ON CONFLICT (run_id, key) DO NOTHING RETURNING *),
         b AS (UPDATE ${s}.runs SET bytes = bytes + $9 WHERE id = $1 AND EXISTS (SELECT 1 FROM ins) RETURNING id)
         SELECT ins.*, true AS inserted, (SELECT count(*) FROM b) AS billed FROM ins
         UNION ALL SELECT c.*, false, 0 FROM ${s}.calls c, ok WHERE c.run_id = $1 AND c.key = $2 AND NOT EXISTS (SELECT 1 FROM ins)`,
        [
          c.runId,
          c.key,
          encodeText(c.name),
          args,
          c.idempotent === true,
          Date.now(),
          f.owner,
          f.epoch,
          args.length,
        ],
      );
      if (!rows[0]) return undefined;
      return { inserted: rows[0].inserted === true, record: toCall(rows[0]) };
    },

    async markCallStarted(runId, key, f) {
      const rows = await query(
        `UPDATE ${s}.calls SET status = 'started', epoch = $4
         WHERE run_id = $1 AND key = $2 AND status = 'pending' AND ${fenced('$1', '$3', '$4')} RETURNING key`,
        [runId, key, f.owner, f.epoch],
      );
      return rows.length > 0;
    },

    async finishCall(runId, key, status, result) {
      const text = encodeJson(result) ?? 'null';
      const rows = await query(
        `WITH n AS (UPDATE ${s}.runs SET next_finish = next_finish + 1, bytes = bytes + $5 WHERE id = $1 RETURNING next_finish)
         UPDATE ${s}.calls SET status = $3, result = $4, finish_seq = (SELECT next_finish FROM n), finished_at = $6
         WHERE run_id = $1 AND key = $2 AND status IN ('pending', 'started') RETURNING key`,
        [runId, key, status, text, text.length, Date.now()],
      );
      return rows.length > 0;
    },

    resolveCall: (runId, key, res) => resolveStarted(query, runId, key, res),

    async resolveInterrupted(runId, key, res, data) {
      if (!isStorableId(runId)) return undefined;
      return inTx(async (q): Promise<Resumed | undefined> => {
        const [row] = await q<Row>(`SELECT * FROM ${s}.runs WHERE id = $1 FOR UPDATE`, [runId]);
        if (!row) return undefined;
        const r = toRun(row);
        if (r.status !== 'interrupted' || r.owner !== undefined) return 'not-interrupted';
        if (!(await resolveStarted(q, runId, key, res))) return 'not-started';
        await q(
          `UPDATE ${s}.runs SET status = 'queued', error = NULL, finished_at = NULL, updated_at = $2 WHERE id = $1`,
          [runId, Date.now()],
        );
        const event = await append(q, runId, 'status', data);
        const [queued] = await q<Row>(`SELECT * FROM ${s}.runs WHERE id = $1`, [runId]);
        await q('SELECT pg_notify($1, $2)', [wakeChannel, runId]);
        return { run: toRun(queued!), event: event! };
      });
    },

    async getCall(runId, key) {
      const rows = await query(`SELECT * FROM ${s}.calls WHERE run_id = $1 AND key = $2`, [
        runId,
        key,
      ]);
      return rows[0] ? toCall(rows[0]) : undefined;
    },

    async listCalls(runId) {
      return (await query(`SELECT * FROM ${s}.calls WHERE run_id = $1 ORDER BY ord`, [runId])).map(
        toCall,
      );
    },

    async countCalls(ids) {
      const counts = new Map<string, number>();
      if (ids.length === 0) return counts;
      const rows = await query(
        `SELECT run_id, count(*) AS n FROM ${s}.calls WHERE status <> 'pending' AND run_id = ANY($1) GROUP BY run_id`,
        [[...ids]],
      );
      for (const row of rows) counts.set(String(row.run_id), Number(row.n));
      return counts;
    },

    async recordValue(runId, kind, value, f) {
      const rows = await query(
        `WITH n AS (UPDATE ${s}.runs SET next_value = next_value + 1, bytes = bytes + 16
           WHERE id = $1 AND owner = $4 AND epoch = $5 RETURNING next_value)
         INSERT INTO ${s}.run_values (run_id, seq, kind, value) SELECT $1, next_value, $2, $3 FROM n RETURNING seq`,
        [runId, kind, value, f.owner, f.epoch],
      );
      return rows[0] ? Number(rows[0].seq) : undefined;
    },

    async listValues(runId) {
      return (
        await query(`SELECT * FROM ${s}.run_values WHERE run_id = $1 ORDER BY seq`, [runId])
      ).map(toValue);
    },

    async appendEvent(runId, type, data) {
      // A settled run's stream ended with its result: nothing is appended after it (the update
      // of the run's row re-checks it after a settlement holding the row commits).
      return inTx((q) => append(q, runId, type, data, true));
    },

    async listEvents(runId, after = 0, limit) {
      const rows = await query(
        `SELECT * FROM ${s}.events WHERE run_id = $1 AND seq > $2 ORDER BY seq LIMIT ${clamp(limit)}`,
        [runId, after],
      );
      return rows.map(toEvent);
    },
  };
}
