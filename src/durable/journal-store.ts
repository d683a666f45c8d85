/**
 * The journal's view of a {@link RunStore} for one life of a run: every write that can lead to a
 * side effect (an arrival, a body start, a recorded value) is fenced by the life's
 * `{ owner, epoch }`, so a replica whose lease was taken over writes nothing the new holder reads
 * and starts no body the new holder also starts. A fenced write that fails its fence rejects with
 * {@link LostLeaseError}: the journal stops the life.
 */
import { IsocodeError } from '../errors.js';
import type { JournalCall, JournalStore } from './journal-types.js';
import type { Fence, RunStore } from './store.js';

/** Thrown by a fenced journal write when the life no longer holds the run. */
export class LostLeaseError extends IsocodeError {
  constructor(runId: string) {
    super('ABORTED', `this replica no longer holds run ${runId} (another replica took it over)`);
    this.name = 'LostLeaseError';
  }
}

/** The {@link JournalStore} of `store` for the life fenced by `fence`. */
export function journalStoreOf(store: RunStore, fence: Fence): JournalStore {
  return {
    async callArrived(runId, call) {
      const done = await store.recordArrival({ runId, ...call }, fence);
      if (done === undefined) throw new LostLeaseError(runId);
    },
    async callStarted(runId, call) {
      if (!(await store.markCallStarted(runId, call.key, fence))) throw new LostLeaseError(runId);
    },
    async callRetried(runId, key) {
      await store.resolveCall(runId, key, { status: 'pending' });
    },
    callFinished: (runId, key, status, result) => store.finishCall(runId, key, status, result),
    async listCalls(runId) {
      return (await store.listCalls(runId)).map((r): JournalCall => ({
        key: r.key,
        name: r.name,
        args: r.args,
        status: r.status,
        result: r.result,
        idempotent: r.idempotent,
        finishSeq: r.finishSeq,
        damaged: r.damaged,
      }));
    },
    async recordValue(runId, kind, value) {
      const seq = await store.recordValue(runId, kind, value, fence);
      if (seq === undefined) throw new LostLeaseError(runId);
      return seq;
    },
    async listValues(runId) {
      return (await store.listValues(runId)).map((v) => ({
        seq: v.seq,
        kind: v.kind,
        value: v.value,
        damaged: v.damaged,
      }));
    },
  };
}
