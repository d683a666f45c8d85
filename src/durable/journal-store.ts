/**
 * The journal's view of a {@link RunStore}. A store that journals arrivals (`startCall` with
 * `status: "pending"` and `markCallStarted`) gets them; with one that does not, a call is written
 * when its body starts, so a call that only waited (for an approval) leaves no record and replays
 * as a new call. Completion order is the store's `finishSeq` when it has one, else the order of
 * `finishedAt` (ties: start order).
 */
import type { JournalCall, JournalStore } from './replay.js';
import type { CallRecord, NewCall, RunStore } from './store.js';

/** What a store may add for the journal (see notes in docs/decisions/021-replay.md). */
interface PendingCapable {
  markCallStarted?: (runId: string, key: string) => Promise<boolean>;
}

type Recorded = CallRecord & { status: string; finishSeq?: number | undefined };

/** Completion order: the store's own, else by `finishedAt`, then start order. */
function completionOrder(records: readonly Recorded[]): Map<string, number> {
  const settled = records
    .map((r, index) => ({ r, index }))
    .filter(({ r }) => r.status === 'ok' || r.status === 'error')
    .sort(
      (a, b) =>
        (a.r.finishSeq ?? a.r.finishedAt ?? Infinity) -
          (b.r.finishSeq ?? b.r.finishedAt ?? Infinity) || a.index - b.index,
    );
  return new Map(settled.map(({ r }, i) => [r.key, i + 1]));
}

/** The {@link JournalStore} of `store`. */
export function journalStoreOf(store: RunStore): JournalStore {
  const native = store as RunStore & PendingCapable;
  const markStarted = native.markCallStarted?.bind(store);
  return {
    async callArrived(runId, call) {
      if (markStarted === undefined) return;
      await store.startCall({ runId, ...call, status: 'pending' } as NewCall);
    },
    async callStarted(runId, call) {
      if (markStarted !== undefined && (await markStarted(runId, call.key))) return;
      await store.startCall({ runId, ...call });
    },
    callFinished: (runId, key, status, result) => store.finishCall(runId, key, status, result),
    async listCalls(runId) {
      const records = (await store.listCalls(runId)) as Recorded[];
      const order = completionOrder(records);
      return records.map((r): JournalCall => ({
        key: r.key,
        name: r.name,
        args: r.args,
        status: r.status,
        result: r.result,
        idempotent: r.idempotent,
        finishSeq: order.get(r.key),
      }));
    },
    recordValue: (runId, kind, value) => store.recordValue(runId, kind, value),
    async listValues(runId) {
      return (await store.listValues(runId)).map((v) => ({ kind: v.kind, value: v.value }));
    },
  };
}
