/**
 * The journal of a durable run, and how a run is replayed from it (docs/decisions/021-replay.md).
 *
 * Every nested call of a durable run arrives here (through the run_code seam, see
 * src/run-code/durable-seam.ts) with its trace: the call site and the clock and dice values the
 * program drew since its previous call. In arrival order, the journal stores the values, keys the
 * call ({@link CallKeys}) and looks the key up in what the run's earlier lives recorded:
 * - `ok` / `error`: the call completed before; its recorded result is the answer and the tool is not
 *   called again. Recorded answers are handed back in their original completion order, so a
 *   program whose later calls depend on which earlier call settled first (`.then` chains in a
 *   `Promise.all`) takes the same path;
 * - `pending`: the call arrived but its body never started (it was waiting for an approval): it
 *   runs again — through the whole pipeline, so it re-parks on its pending approval;
 * - `started`: the body was running when the run's replica died. An idempotent tool runs again;
 *   any other makes the run `interrupted`, with the call's name and arguments, for a human or the
 *   caller to resolve — it is never silently run twice;
 * - no record: a new call. It runs once every recorded call has been replayed; arriving while
 *   recorded calls remain unreplayed means the program took another path: `REPLAY_DIVERGED`, and
 *   nothing new runs.
 * A live call is journaled `pending` when it arrives, `started` (awaited) just before its body
 * runs ({@link durableCallsMiddleware}) and `ok`/`error` with its result when it settles, before the
 * program sees the result.
 */
import { type ErrorCode, thrownText } from '../errors.js';
import type { ToolResult } from '../executor/types.js';
import type { JsonValue } from '../json.js';
import { markReplayed, type DurableSeam } from '../run-code/durable-seam.js';
import type { CallTrace, DurableTape } from '../sandbox/types.js';
import { CallKeys } from './call-key.js';
import type {
  InterruptedCall,
  JournalCall,
  JournalEntry,
  JournalOptions,
  JournalStore,
  ReplayVerdict,
} from './journal-types.js';
import { cutText } from '../text/clip.js';

type Stop =
  | { kind: 'diverged'; message: string }
  | { kind: 'interrupted'; call: InterruptedCall }
  | { kind: 'lost'; message: string }
  | { kind: 'store'; message: string };

interface Entry {
  record: JournalCall;
  consumed: boolean;
  /** Its place in the completion order (settled records only). */
  turn: number | undefined;
}

function failed(name: string, key: string, code: ErrorCode, message: string): ToolResult {
  return {
    ok: false,
    error: { code, message },
    content: [{ type: 'text', text: `${code}: ${message}` }],
    meta: {
      callId: key,
      toolName: name,
      scope: '',
      parentId: undefined,
      durationMs: 0,
      stages: [],
    },
  };
}

const codeOf = (e: unknown): unknown =>
  typeof e === 'object' && e !== null ? (e as { code?: unknown }).code : undefined;
const isUnavailable = (e: unknown): boolean => codeOf(e) === 'STORE_UNAVAILABLE';
const isLostLease = (e: unknown): boolean => e instanceof Error && e.name === 'LostLeaseError';

/** The journal of one life of a durable run. Attach it as the run's {@link DurableSeam}. */
export class RunJournal implements DurableSeam {
  readonly tape: DurableTape;
  readonly #store: JournalStore;
  readonly #runId: string;
  readonly #idempotent: (tool: string) => boolean;
  readonly #stallMs: number;
  readonly #lifeSignal: AbortSignal | undefined;
  readonly #onBodies: ((running: number) => void) | undefined;
  readonly #storeRetryMs: number;
  /** Calls whose body runs now (started, not settled). */
  readonly #bodies = new Set<string>();
  readonly #keys = new CallKeys();
  readonly #entries = new Map<string, Entry>();
  readonly #abort = new AbortController();
  /** Calls running live in this life, by key (their body start is journaled). */
  readonly #live = new Map<string, JournalEntry>();
  /** Recorded answers by turn, and the next turn to hand back. */
  readonly #waiting = new Map<number, () => void>();
  #turn = 0;
  /** How many recorded answers there are to hand back (settled calls). */
  readonly #recordedAnswers: number;
  /** Live answers held until every recorded answer has been handed back. */
  readonly #held = new Set<() => void>();
  #unconsumed: number;
  #writes: Promise<unknown> = Promise.resolve();
  #stop: Stop | undefined;
  #stall: NodeJS.Timeout | undefined;

  constructor(
    store: JournalStore,
    runId: string,
    recorded: { calls: readonly JournalCall[]; tape: DurableTape },
    options: JournalOptions = {},
  ) {
    this.#store = store;
    this.#runId = runId;
    this.#idempotent = options.idempotent ?? (() => false);
    this.#stallMs = options.stallMs ?? 10_000;
    this.#lifeSignal = options.lifeSignal;
    this.#onBodies = options.onBodies;
    this.#storeRetryMs = options.storeRetryMs ?? 30_000;
    this.tape = recorded.tape;
    const settled = recorded.calls
      .map((record, index) => ({ record, index }))
      .filter(({ record }) => record.status === 'ok' || record.status === 'error')
      .sort(
        (a, b) =>
          (a.record.finishSeq ?? Infinity) - (b.record.finishSeq ?? Infinity) || a.index - b.index,
      );
    const turns = new Map(settled.map(({ record }, turn) => [record.key, turn]));
    this.#recordedAnswers = settled.length;
    for (const record of recorded.calls)
      this.#entries.set(record.key, { record, consumed: false, turn: turns.get(record.key) });
    this.#unconsumed = this.#entries.size;
  }

  /** Aborts when the run must stop (diverged, interrupted, the store failed). */
  get signal(): AbortSignal {
    return this.#abort.signal;
  }

  /** Call bodies running now in this life. */
  get bodiesRunning(): number {
    return this.#bodies.size;
  }

  /** Recorded calls this life has not replayed yet. */
  get unconsumed(): number {
    return this.#unconsumed;
  }

  /** True when the run's earlier lives recorded anything (this life is a replay). */
  get replaying(): boolean {
    return this.#entries.size > 0 || this.tape.clock.length > 0 || this.tape.random.length > 0;
  }

  call(
    name: string,
    args: unknown,
    trace: CallTrace,
    run: (callId: string) => Promise<ToolResult>,
  ): Promise<ToolResult> {
    this.#touch();
    for (const v of trace.clock) this.#queue(() => this.#store.recordValue(this.#runId, 'date', v));
    for (const v of trace.random)
      this.#queue(() => this.#store.recordValue(this.#runId, 'random', v));
    const key = this.#keys.next(trace.site, name, args);
    if (this.#stop !== undefined) return Promise.resolve(this.#refusal(name, key));
    const entry = this.#entries.get(key);
    if (entry === undefined) {
      if (this.#unconsumed > 0) {
        this.#halt({
          kind: 'diverged',
          message: `the program took another path on replay: its call ${name}(${preview(args)}) at ${trace.site === '' ? 'an unknown site' : `program position ${trace.site}`} was not made by the run before, while ${this.#unconsumed} recorded call(s) were not replayed yet; nothing new was run`,
        });
        return Promise.resolve(this.#refusal(name, key));
      }
      const fresh = { key, name, args: args as JsonValue, idempotent: this.#idempotent(name) };
      this.#queue(() => this.#store.callArrived(this.#runId, fresh));
      return this.#runLive(fresh, run);
    }
    entry.consumed = true;
    this.#unconsumed--;
    const { record } = entry;
    switch (record.status) {
      case 'ok':
      case 'error':
        return this.#answer(entry);
      case 'pending':
        return this.#runLive(record, run);
      case 'started':
        if (record.idempotent || this.#idempotent(name)) {
          this.#queue(() => this.#store.callRetried(this.#runId, key));
          return this.#runLive(record, run);
        }
        this.#halt({ kind: 'interrupted', call: { key, name, args: record.args } });
        return Promise.resolve(this.#refusal(name, key));
    }
  }

  /** Journals that the body of call `callId` starts (awaited before it runs). */
  async bodyStarts(callId: string): Promise<void> {
    const key = callId.slice(callId.indexOf('/') + 1);
    const entry = this.#live.get(key);
    if (entry === undefined) return;
    if (this.#ended()) throw new Error('the durable run has stopped');
    // Counted from before the write: the parking watch never parks a run whose body is starting.
    this.#bodies.add(key);
    this.#onBodies?.(this.#bodies.size);
    try {
      await this.#write(() => this.#store.callStarted(this.#runId, entry));
    } catch (error) {
      this.#bodies.delete(key);
      this.#onBodies?.(this.#bodies.size);
      throw error;
    }
    if (this.#ended()) {
      // The life ended while the start was written: the body does not run, so say it did not.
      this.#queue(() => this.#store.callRetried(this.#runId, key));
      this.#bodies.delete(key);
      this.#onBodies?.(this.#bodies.size);
      throw new Error('the durable run has stopped');
    }
  }

  /** True once the journal stopped the run or the life's own signal aborted. */
  #ended(): boolean {
    return this.#stop !== undefined || this.#lifeSignal?.aborted === true;
  }

  /** Waits for every journal write; then {@link verdict} is final. */
  async flush(): Promise<void> {
    await this.#writes.catch(() => undefined);
    if (this.#stall !== undefined) clearTimeout(this.#stall);
  }

  /** How the run ended, given run_code's result (call after {@link flush}). */
  verdict(result: ToolResult): ReplayVerdict {
    const stop = this.#stop;
    if (stop?.kind === 'interrupted') {
      const message = `the run was interrupted: call ${stop.call.name} was running when the run's life ended (its replica stopped or lost its lease), and the tool is not idempotent; resolve it (did it take effect? POST /v1/runs/<id>/resolve with succeeded, failed or retry) and the run continues by replay`;
      return {
        status: 'interrupted',
        call: stop.call,
        error: { code: 'ABORTED', message, details: { call: stop.call } },
      };
    }
    if (stop?.kind === 'diverged')
      return {
        status: 'failed',
        error: { code: 'REPLAY_DIVERGED', message: stop.message },
        result,
      };
    if (stop?.kind === 'store')
      return {
        status: 'failed',
        error: { code: 'STORE_UNAVAILABLE', message: `the run store failed: ${stop.message}` },
        result,
      };
    if (stop?.kind === 'lost')
      return {
        status: 'failed',
        error: { code: 'ABORTED', message: stop.message },
        result,
      };
    if (this.#unconsumed > 0)
      return {
        status: 'failed',
        error: {
          code: 'REPLAY_DIVERGED',
          message: `the program took another path on replay: it ${result.ok ? 'finished' : `failed (${result.error.code})`} without making ${this.#unconsumed} call(s) the run made before`,
        },
        result,
      };
    return result.ok
      ? { status: 'succeeded', result }
      : { status: 'failed', error: { ...result.error }, result };
  }

  /** A recorded answer, in its turn. */
  async #answer(entry: Entry): Promise<ToolResult> {
    const turn = entry.turn ?? 0;
    if (turn !== this.#turn) {
      await new Promise<void>((resolve) => {
        this.#waiting.set(turn, resolve);
        this.#touch();
      });
    }
    if (this.#stop !== undefined) return this.#refusal(entry.record.name, entry.record.key);
    this.#turn = turn + 1;
    this.#waiting.get(this.#turn)?.();
    this.#waiting.delete(this.#turn);
    if (this.#turn >= this.#recordedAnswers) this.#releaseHeld();
    return markReplayed(entry.record.result as unknown as ToolResult);
  }

  async #runLive(
    entry: JournalEntry,
    run: (callId: string) => Promise<ToolResult>,
  ): Promise<ToolResult> {
    const { key, name } = entry;
    this.#live.set(key, entry);
    const result = await run(`${this.#runId}/${key}`);
    this.#live.delete(key);
    const ranBody = this.#bodies.delete(key);
    if (ranBody) this.#onBodies?.(this.#bodies.size);
    if (this.#stop?.kind === 'store' || this.#stop?.kind === 'lost')
      return this.#refusal(name, key);
    // Cut short by the life's own end (parking, shutdown, cancel): a call whose body never started
    // stays `pending`, one whose body failed meanwhile stays `started` (did it take effect? the next
    // life must not guess); a body that completed is the truth and is journaled.
    if (this.#lifeSignal?.aborted === true && (!ranBody || !result.ok)) return result;
    try {
      await this.#write(() =>
        this.#store.callFinished(
          this.#runId,
          key,
          result.ok ? 'ok' : 'error',
          result as unknown as JsonValue,
        ),
      );
    } catch {
      return this.#refusal(name, key);
    }
    await this.#afterRecordedAnswers();
    return result;
  }

  /**
   * Resolves once every recorded answer has been handed back. Everything the journal holds happened
   * before anything this life does live, so a live answer (a call decided while the run was
   * parked, one run again) reaches the program only after them: its branch then reads the clock
   * and the dice after the recorded draws, in the original order, instead of taking a recorded
   * value of another branch (which diverged the replay, or gave that branch's value to this one).
   */
  #afterRecordedAnswers(): Promise<void> {
    if (this.#turn >= this.#recordedAnswers || this.#stop !== undefined) return Promise.resolve();
    return new Promise<void>((resolve) => {
      this.#held.add(resolve);
      this.#touch();
    });
  }

  #releaseHeld(): void {
    for (const release of this.#held) release();
    this.#held.clear();
  }

  /** {@link #write} whose outcome nobody awaits (a failure still stops the run). */
  #queue(work: () => Promise<unknown>): void {
    this.#write(work).catch(() => undefined);
  }

  /**
   * Queues a store write after every earlier one. An unreachable store is retried with backoff for
   * up to `storeRetryMs`; a lost fence, or any other failure, stops the run.
   */
  #write<T>(work: () => Promise<T>): Promise<T> {
    const next = this.#writes.then(() => this.#retrying(work));
    this.#writes = next.catch((e: unknown) => {
      this.#halt(
        isLostLease(e)
          ? { kind: 'lost', message: thrownText(e) }
          : { kind: 'store', message: thrownText(e) },
      );
    });
    return next;
  }

  async #retrying<T>(work: () => Promise<T>): Promise<T> {
    const deadline = Date.now() + this.#storeRetryMs;
    for (let delay = 50; ; delay = Math.min(delay * 2, 2000)) {
      try {
        return await work();
      } catch (error) {
        if (!isUnavailable(error) || Date.now() + delay > deadline || this.#stop !== undefined)
          throw error;
        await new Promise((resolve) => setTimeout(resolve, delay));
      }
    }
  }

  #refusal(name: string, key: string): ToolResult {
    const stop = this.#stop;
    if (stop?.kind === 'diverged') return failed(name, key, 'REPLAY_DIVERGED', stop.message);
    if (stop?.kind === 'interrupted')
      return failed(name, key, 'ABORTED', `the run was interrupted on call ${stop.call.name}`);
    if (stop?.kind === 'lost')
      return failed(name, key, 'ABORTED', 'this replica no longer holds the run; it was not run');
    return failed(name, key, 'INTERNAL_ERROR', 'the durable run could not journal this call');
  }

  #halt(stop: Stop): void {
    if (this.#stop !== undefined) return;
    this.#stop = stop;
    for (const wake of this.#waiting.values()) wake();
    this.#waiting.clear();
    this.#releaseHeld();
    this.#abort.abort(new Error(stop.kind));
  }

  /** A call arrived (or an answer is held): restart the stall clock while answers are held. */
  #touch(): void {
    if (this.#stall !== undefined) clearTimeout(this.#stall);
    this.#stall = undefined;
    if (this.#waiting.size === 0 && this.#held.size === 0 && this.#unconsumed === 0) return;
    this.#stall = setTimeout(() => {
      if (this.#waiting.size === 0 && this.#held.size === 0) return;
      this.#halt({
        kind: 'diverged',
        message: `the program took another path on replay: ${this.#unconsumed} recorded call(s) were never made again (waited ${this.#stallMs} ms); nothing new was run`,
      });
    }, this.#stallMs);
    this.#stall.unref();
  }
}

function preview(args: unknown): string {
  const text = JSON.stringify(args) ?? '';
  return text.length > 120 ? `${cutText(text, 120)}…` : text;
}
