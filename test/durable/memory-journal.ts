/** An in-memory {@link JournalStore} for replay tests; `freeze()` drops every later write, as a dead replica would. */
import type { JsonValue } from '../../src/json.js';
import type {
  JournalCall,
  JournalEntry,
  JournalStore,
  JournalValue,
} from '../../src/durable/journal-types.js';

export class MemoryJournal implements JournalStore {
  readonly calls = new Map<string, JournalCall[]>();
  readonly values = new Map<string, JournalValue[]>();
  #finishSeq = new Map<string, number>();
  #frozen = false;

  /** From now on, writes succeed and change nothing (the replica died). */
  freeze(): void {
    this.#frozen = true;
  }
  thaw(): void {
    this.#frozen = false;
  }

  #list(runId: string): JournalCall[] {
    let list = this.calls.get(runId);
    if (list === undefined) this.calls.set(runId, (list = []));
    return list;
  }

  startCall(call: { runId: string; status: 'pending' | 'started' } & JournalEntry): Promise<void> {
    if (this.#frozen) return Promise.resolve();
    const list = this.#list(call.runId);
    const found = list.find((c) => c.key === call.key);
    if (found === undefined)
      list.push({
        key: call.key,
        name: call.name,
        args: structuredClone(call.args),
        status: call.status,
        result: undefined,
        idempotent: call.idempotent,
      });
    else if (found.status === 'pending' && call.status === 'started') found.status = 'started';
    return Promise.resolve();
  }
  callArrived(runId: string, call: JournalEntry): Promise<void> {
    return this.startCall({ runId, status: 'pending', ...call });
  }
  callStarted(runId: string, call: JournalEntry): Promise<void> {
    return this.startCall({ runId, status: 'started', ...call });
  }
  callRetried(runId: string, key: string): Promise<void> {
    const c = this.#list(runId).find((x) => x.key === key);
    if (!this.#frozen && c?.status === 'started') c.status = 'pending';
    return Promise.resolve();
  }
  callFinished(
    runId: string,
    key: string,
    status: 'ok' | 'error',
    result: JsonValue,
  ): Promise<void> {
    const c = this.#list(runId).find((x) => x.key === key);
    if (this.#frozen || c === undefined) return Promise.resolve();
    const seq = (this.#finishSeq.get(runId) ?? 0) + 1;
    this.#finishSeq.set(runId, seq);
    Object.assign(c, { status, result: structuredClone(result), finishSeq: seq });
    return Promise.resolve();
  }
  listCalls(runId: string): Promise<JournalCall[]> {
    return Promise.resolve(structuredClone(this.#list(runId)));
  }
  recordValue(runId: string, kind: 'date' | 'random', value: number): Promise<number> {
    if (this.#frozen) return Promise.resolve(0);
    let list = this.values.get(runId);
    if (list === undefined) this.values.set(runId, (list = []));
    list.push({ seq: list.length + 1, kind, value });
    return Promise.resolve(list.length);
  }
  listValues(runId: string): Promise<JournalValue[]> {
    return Promise.resolve([...(this.values.get(runId) ?? [])]);
  }
}
