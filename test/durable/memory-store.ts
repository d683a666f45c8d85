/**
 * An in-memory {@link RunStore} for tests of the run manager: the contract's semantics (fences,
 * claimability, settlement) in plain maps, one process only. Values are copied through JSON text,
 * as the real stores hold them. The SQL stores are proven by the contract suite (store.test.ts).
 */
import type { JsonValue } from '../../src/json.js';
import type {
  ApprovalRecord,
  CallRecord,
  CallResolution,
  Fence,
  RunEvent,
  RunRecord,
  RunStore,
  RecordedValue,
} from '../../src/durable/store.js';
import {
  approvalEventData,
  isFinalStatus,
  lifeEventData,
  PARKED_EVENT,
  planSettlement,
  QUEUED_EVENT,
} from '../../src/durable/store.js';
import { IsocodeError } from '../../src/errors.js';
import { isStorableId } from '../../src/durable/encode.js';

const copy = <T>(v: T): T => (v === undefined ? v : (JSON.parse(JSON.stringify(v)) as T));

export function createMemoryStore(): RunStore {
  const runs = new Map<string, RunRecord>();
  const calls = new Map<string, CallRecord[]>();
  const values = new Map<string, RecordedValue[]>();
  const approvals = new Map<string, ApprovalRecord>();
  const events = new Map<string, RunEvent[]>();
  const finishSeq = new Map<string, number>();
  const wakers = new Set<() => void>();
  const waiters = new Map<string, Set<() => void>>();
  const wake = (): void => {
    for (const w of wakers) queueMicrotask(w);
  };
  const wakeApproval = (id: string): void => {
    for (const w of waiters.get(id) ?? []) w();
  };
  const holds = (run: RunRecord | undefined, f: Fence): run is RunRecord =>
    run !== undefined && run.owner === f.owner && run.epoch === f.epoch;
  const pendingOf = (runId: string): boolean =>
    [...approvals.values()].some((a) => a.runId === runId && a.status === 'pending');
  const claimable = (r: RunRecord, now: number): boolean =>
    !isFinalStatus(r.status) &&
    r.status !== 'interrupted' &&
    r.finishedAt === undefined &&
    (r.owner === undefined || (r.leaseExpiresAt ?? 0) < now) &&
    (!r.parked || !pendingOf(r.id));
  const touch = (r: RunRecord): void => {
    r.updatedAt = Date.now();
  };
  const listeners = new Set<(e: RunEvent) => void>();
  const append = (runId: string, type: string, data: JsonValue): RunEvent | undefined => {
    const run = runs.get(runId);
    if (!run) return undefined;
    const list = events.get(runId) ?? [];
    events.set(runId, list);
    const e: RunEvent = { runId, seq: list.length + 1, type, data: copy(data), at: Date.now() };
    list.push(e);
    run.bytes += JSON.stringify(data).length;
    for (const l of listeners) l(copy(e));
    return copy(e);
  };
  const resolveStarted = (runId: string, key: string, res: CallResolution): boolean => {
    const c = calls.get(runId)?.find((x) => x.key === key);
    if (c?.status !== 'started') return false;
    if (res.status === 'pending') c.status = 'pending';
    else {
      const seq = (finishSeq.get(runId) ?? 0) + 1;
      finishSeq.set(runId, seq);
      Object.assign(c, { status: res.status, result: copy(res.result), finishSeq: seq });
    }
    return true;
  };
  const decide = (
    a: ApprovalRecord,
    status: ApprovalRecord['status'],
    by: string,
  ): ApprovalRecord => {
    a.status = status;
    a.decidedBy = by;
    a.decidedAt = Date.now();
    wakeApproval(a.id);
    wake();
    return copy(a);
  };
  /** An approval's change is written with its event. */
  const eventOf = (a: ApprovalRecord): RunEvent | undefined =>
    append(a.runId, 'approval', approvalEventData(a));

  const store: RunStore = {
    kind: 'sqlite',
    createRun(n) {
      if (n.idempotencyKey !== undefined) {
        const existing = [...runs.values()].find(
          (r) => r.scope === n.scope && r.idempotencyKey === n.idempotencyKey,
        );
        if (existing) return Promise.resolve({ run: copy(existing), created: false });
      }
      const t = Date.now();
      const run: RunRecord = {
        id: n.id,
        scope: n.scope,
        program: n.program,
        description: n.description,
        status: n.lease ? 'running' : 'queued',
        owner: n.lease?.owner,
        leaseExpiresAt: n.lease?.expiresAt,
        epoch: n.lease ? 1 : 0,
        parked: false,
        limits: copy(n.limits),
        result: undefined,
        error: undefined,
        idempotencyKey: n.idempotencyKey,
        requestHash: n.requestHash,
        bytes: n.program.length,
        createdAt: t,
        updatedAt: t,
        startedAt: n.lease ? t : undefined,
        finishedAt: undefined,
      };
      runs.set(run.id, run);
      if (n.lease) append(run.id, 'status', lifeEventData(n.lease.owner, 1));
      else {
        append(run.id, 'status', QUEUED_EVENT);
        wake();
      }
      return Promise.resolve({ run: copy(run), created: true });
    },
    getRun(id, scope) {
      const r = isStorableId(id) ? runs.get(id) : undefined;
      return Promise.resolve(r && (scope === undefined || r.scope === scope) ? copy(r) : undefined);
    },
    listRuns(f = {}) {
      const out = [...runs.values()]
        .filter(
          (r) =>
            (f.scope === undefined || r.scope === f.scope) &&
            (f.status === undefined || f.status.includes(r.status)) &&
            (f.unsettled !== true || r.finishedAt === undefined) &&
            (f.leaseExpiredBefore === undefined ||
              r.leaseExpiresAt === undefined ||
              r.leaseExpiresAt < f.leaseExpiredBefore) &&
            (f.idempotencyKey === undefined || r.idempotencyKey === f.idempotencyKey) &&
            (f.createdBefore === undefined || r.createdAt < f.createdBefore),
        )
        .sort((a, b) => b.createdAt - a.createdAt)
        .slice(0, f.limit ?? 100);
      return Promise.resolve(out.map(copy));
    },
    updateRun(id, p, e = {}) {
      const r = runs.get(id);
      if (
        !r ||
        (e.status && !e.status.includes(r.status)) ||
        (e.owner !== undefined && (r.owner ?? null) !== e.owner) ||
        (e.epoch !== undefined && r.epoch !== e.epoch)
      )
        return Promise.resolve(undefined);
      if (p.status !== undefined) r.status = p.status;
      if (p.owner !== undefined) r.owner = p.owner ?? undefined;
      if (p.leaseExpiresAt !== undefined) r.leaseExpiresAt = p.leaseExpiresAt ?? undefined;
      if (p.parked !== undefined) r.parked = p.parked;
      if (p.result !== undefined) r.result = copy(p.result);
      if (p.error !== undefined) r.error = p.error === null ? undefined : copy(p.error);
      if (p.startedAt !== undefined) r.startedAt = p.startedAt;
      if (p.finishedAt !== undefined) r.finishedAt = p.finishedAt ?? undefined;
      touch(r);
      if (r.status === 'queued' && r.owner === undefined) wake();
      return Promise.resolve(copy(r));
    },
    changeStatus(id, status, from) {
      const r = runs.get(id);
      if (!r || !from.includes(r.status)) return Promise.resolve(undefined);
      r.status = status;
      touch(r);
      append(id, 'status', { status });
      return Promise.resolve(copy(r));
    },
    claimRun(id, owner, until, now) {
      const r = runs.get(id);
      if (!r || !claimable(r, now)) return Promise.resolve(undefined);
      r.owner = owner;
      r.leaseExpiresAt = until;
      r.epoch++;
      r.parked = false;
      if (r.status === 'queued') {
        r.status = 'running';
        r.startedAt ??= now;
      }
      touch(r);
      append(id, 'status', lifeEventData(owner, r.epoch));
      return Promise.resolve(copy(r));
    },
    listClaimable(now, limit = 100, skipScopes = []) {
      return Promise.resolve(
        [...runs.values()]
          .filter((r) => claimable(r, now) && !skipScopes.includes(r.scope))
          .sort((a, b) => a.createdAt - b.createdAt)
          .map((r, _, all) => ({
            r,
            turn: all.filter((o) => o.scope === r.scope && o.createdAt <= r.createdAt).length,
          }))
          .sort((a, b) => a.turn - b.turn || a.r.createdAt - b.r.createdAt)
          .slice(0, limit)
          .map(({ r }) => copy(r)),
      );
    },
    renewLease(id, f, until) {
      const r = runs.get(id);
      if (!holds(r, f) || r.finishedAt !== undefined) return Promise.resolve(false);
      r.leaseExpiresAt = until;
      return Promise.resolve(true);
    },
    releaseRun(id, f, o = {}) {
      const r = runs.get(id);
      if (!holds(r, f)) return Promise.resolve(false);
      r.owner = undefined;
      r.leaseExpiresAt = undefined;
      r.parked = o.parked === true;
      touch(r);
      if (r.parked) append(id, 'status', PARKED_EVENT);
      wake();
      return Promise.resolve(true);
    },
    settleRun(id, f, s) {
      const r = runs.get(id);
      if (!r || r.finishedAt !== undefined) return Promise.resolve(undefined);
      if (
        f === null ? r.owner !== undefined && (r.leaseExpiresAt ?? 0) >= Date.now() : !holds(r, f)
      )
        return Promise.resolve(undefined);
      const plan = planSettlement(copy(r), s, Date.now());
      r.status = plan.status;
      if (plan.result !== undefined) r.result = copy(plan.result);
      if (plan.error !== undefined) r.error = copy(plan.error);
      r.finishedAt = plan.finishedAt ?? undefined;
      r.owner = undefined;
      r.leaseExpiresAt = undefined;
      r.parked = false;
      touch(r);
      const cancelled: ApprovalRecord[] = [];
      const appended: RunEvent[] = [];
      if (s.cancelPendingApprovalsAs !== undefined)
        for (const a of approvals.values())
          if (a.runId === id && a.status === 'pending') {
            const d = decide(a, 'cancelled', s.cancelPendingApprovalsAs);
            cancelled.push(d);
            const e = eventOf(d);
            if (e) appended.push(e);
          }
      for (const ev of plan.events) {
        const e = append(id, ev.type, ev.data);
        if (e) appended.push(e);
      }
      return Promise.resolve({ run: copy(r), events: appended, approvals: cancelled });
    },
    recordArrival(c, f) {
      if (!holds(runs.get(c.runId), f)) return Promise.resolve(undefined);
      const list = calls.get(c.runId) ?? [];
      calls.set(c.runId, list);
      const found = list.find((x) => x.key === c.key);
      if (found) return Promise.resolve({ inserted: false, record: copy(found) });
      const rec: CallRecord = {
        runId: c.runId,
        key: c.key,
        name: c.name,
        args: copy(c.args),
        status: 'pending',
        result: undefined,
        idempotent: c.idempotent ?? false,
        epoch: 0,
        finishSeq: undefined,
        startedAt: Date.now(),
        finishedAt: undefined,
      };
      list.push(rec);
      return Promise.resolve({ inserted: true, record: copy(rec) });
    },
    markCallStarted(runId, key, f) {
      const c = calls.get(runId)?.find((x) => x.key === key);
      if (!holds(runs.get(runId), f) || c?.status !== 'pending') return Promise.resolve(false);
      c.status = 'started';
      c.epoch = f.epoch;
      return Promise.resolve(true);
    },
    finishCall(runId, key, status, result) {
      const c = calls.get(runId)?.find((x) => x.key === key);
      if (!c || c.status === 'ok' || c.status === 'error') return Promise.resolve(false);
      const seq = (finishSeq.get(runId) ?? 0) + 1;
      finishSeq.set(runId, seq);
      Object.assign(c, { status, result: copy(result), finishSeq: seq, finishedAt: Date.now() });
      return Promise.resolve(true);
    },
    resolveCall(runId, key, res) {
      return Promise.resolve(resolveStarted(runId, key, res));
    },
    resolveInterrupted(runId, key, res, data) {
      const r = runs.get(runId);
      if (!r) return Promise.resolve(undefined);
      if (r.status !== 'interrupted' || r.owner !== undefined)
        return Promise.resolve('not-interrupted' as const);
      if (!resolveStarted(runId, key, res)) return Promise.resolve('not-started' as const);
      r.status = 'queued';
      r.error = undefined;
      r.finishedAt = undefined;
      touch(r);
      const event = append(runId, 'status', data)!;
      wake();
      return Promise.resolve({ run: copy(r), event });
    },
    getCall(runId, key) {
      return Promise.resolve(copy(calls.get(runId)?.find((x) => x.key === key)));
    },
    listCalls(runId) {
      return Promise.resolve((calls.get(runId) ?? []).map(copy));
    },
    countCalls(ids) {
      const m = new Map<string, number>();
      for (const id of ids) {
        const n = (calls.get(id) ?? []).filter((c) => c.status !== 'pending').length;
        if (n > 0) m.set(id, n);
      }
      return Promise.resolve(m);
    },
    recordValue(runId, kind, value, f) {
      if (!holds(runs.get(runId), f)) return Promise.resolve(undefined);
      const list = values.get(runId) ?? [];
      values.set(runId, list);
      list.push({ runId, seq: list.length + 1, kind, value });
      return Promise.resolve(list.length);
    },
    listValues(runId) {
      return Promise.resolve((values.get(runId) ?? []).map(copy));
    },
    createApproval(n) {
      const run = runs.get(n.runId);
      if (!run) return Promise.reject(new IsocodeError('NOT_FOUND', 'unknown run'));
      if (run.finishedAt !== undefined)
        return Promise.reject(new IsocodeError('NOT_FOUND', 'the run is settled'));
      const a: ApprovalRecord = {
        ...copy(n),
        status: 'pending',
        decidedBy: undefined,
        decidedAt: undefined,
        createdAt: Date.now(),
        expiresAt: n.expiresAt,
      };
      approvals.set(a.id, a);
      eventOf(a);
      return Promise.resolve(copy(a));
    },
    getApproval(id, scope) {
      const a = approvals.get(id);
      return Promise.resolve(a && (scope === undefined || a.scope === scope) ? copy(a) : undefined);
    },
    listApprovals(f = {}) {
      const ordered = [...approvals.values()];
      if (f.newestFirst) ordered.reverse();
      const cursor = ordered.findIndex(
        (a) => a.id === f.after && (f.scope === undefined || a.scope === f.scope),
      );
      // A cursor that names no approval of the scope is past the end.
      const from = f.after === undefined ? 0 : cursor < 0 ? ordered.length : cursor + 1;
      return Promise.resolve(
        ordered
          .slice(from)
          .filter(
            (a) =>
              (f.scope === undefined || a.scope === f.scope) &&
              (f.runId === undefined || a.runId === f.runId) &&
              (f.status === undefined || f.status.includes(a.status)),
          )
          .slice(0, f.limit ?? 100)
          .map(copy),
      );
    },
    decideApproval(id, status, by, scope) {
      const a = approvals.get(id);
      if (!a || a.status !== 'pending' || (scope !== undefined && a.scope !== scope))
        return Promise.resolve(undefined);
      const d = decide(a, status, by);
      eventOf(d);
      return Promise.resolve(d);
    },
    expireApprovals(now, by) {
      const out: ApprovalRecord[] = [];
      for (const a of approvals.values())
        if (a.status === 'pending' && a.expiresAt !== undefined && a.expiresAt < now)
          out.push(decide(a, 'unavailable', by));
      for (const d of out) eventOf(d);
      return Promise.resolve(out);
    },
    async waitForDecision(id, o = {}) {
      const deadline = o.timeoutMs === undefined ? Infinity : Date.now() + o.timeoutMs;
      for (;;) {
        const a = approvals.get(id);
        if (!a || a.status !== 'pending' || o.signal?.aborted || Date.now() >= deadline)
          return copy(a);
        await new Promise<void>((resolve) => {
          const set = waiters.get(id) ?? new Set();
          waiters.set(id, set);
          const done = (): void => {
            clearTimeout(t);
            set.delete(done);
            o.signal?.removeEventListener('abort', done);
            resolve();
          };
          const t = setTimeout(done, Math.min(1000, Math.max(0, deadline - Date.now())));
          set.add(done);
          o.signal?.addEventListener('abort', done, { once: true });
        });
      }
    },
    appendEvent(runId, type, data) {
      if (runs.get(runId)?.finishedAt !== undefined) return Promise.resolve(undefined);
      return Promise.resolve(append(runId, type, data));
    },
    listEvents(runId, after = 0, limit = 100) {
      return Promise.resolve(
        (events.get(runId) ?? [])
          .filter((e) => e.seq > after)
          .slice(0, limit)
          .map(copy),
      );
    },
    onWake(listener) {
      wakers.add(listener);
      return () => wakers.delete(listener);
    },
    onEvent(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    usage(scope) {
      const mine = [...runs.values()].filter((r) => r.scope === scope);
      return Promise.resolve({
        queued: mine.filter((r) => r.status === 'queued').length,
        unsettled: mine.filter((r) => r.finishedAt === undefined).length,
        bytes: mine.reduce((n, r) => n + r.bytes, 0),
      });
    },
    stats() {
      return Promise.resolve({
        runs: runs.size,
        events: [...events.values()].reduce((n, l) => n + l.length, 0),
        calls: [...calls.values()].reduce((n, l) => n + l.length, 0),
        approvalsPending: [...approvals.values()].filter((a) => a.status === 'pending').length,
        bytes: [...runs.values()].reduce((n, r) => n + r.bytes, 0),
      });
    },
    deleteSettled(before, limit = 100) {
      let n = 0;
      for (const r of [...runs.values()])
        if (
          n < limit &&
          isFinalStatus(r.status) &&
          r.finishedAt !== undefined &&
          r.finishedAt < before
        ) {
          runs.delete(r.id);
          calls.delete(r.id);
          events.delete(r.id);
          values.delete(r.id);
          for (const a of [...approvals.values()]) if (a.runId === r.id) approvals.delete(a.id);
          n++;
        }
      return Promise.resolve(n);
    },
    ping: () => Promise.resolve(),
    close: () => Promise.resolve(),
  };
  return store;
}
