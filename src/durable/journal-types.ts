/**
 * The journal's contract: the calls and values a durable run's journal reads and writes, what it
 * needs of a store, its options, and how a run's execution ends (the verdict). The journal itself
 * is replay.ts.
 */
import type { ErrorCode } from '../errors.js';
import type { ToolResult } from '../executor/types.js';
import type { JsonValue } from '../json.js';
import type { Readback } from './store.js';

/** The state of a journaled call. */
export type JournalCallStatus = 'pending' | 'started' | 'ok' | 'error';

/** A journaled call as the store returns it. */
export interface JournalCall extends Readback {
  key: string;
  name: string;
  args: JsonValue;
  status: JournalCallStatus;
  /** The ToolResult JSON once settled. */
  result: JsonValue | undefined;
  idempotent: boolean;
  /** Completion order, 1, 2, 3… per run (settled calls only). */
  finishSeq?: number | undefined;
}

/** A recorded clock reading or die as the store returns it. */
export interface JournalValue extends Readback {
  seq: number;
  kind: 'date' | 'random';
  value: number;
}

/** A call as the journal writes it. */
export interface JournalEntry {
  key: string;
  name: string;
  args: JsonValue;
  idempotent: boolean;
}

/** What the journal needs of the run store (see {@link journalStoreOf} for a `RunStore`). */
export interface JournalStore {
  /** The call arrived (its body has not run: it may wait for an approval). */
  callArrived(runId: string, call: JournalEntry): Promise<unknown>;
  /**
   * The call's body starts (awaited before it runs): `pending` → `started`, fenced on the life.
   * Rejects when this life may not start it (its lease was taken over).
   */
  callStarted(runId: string, call: JournalEntry): Promise<unknown>;
  /** A `started` call of an idempotent tool goes back to `pending`, to run again in this life. */
  callRetried(runId: string, key: string): Promise<unknown>;
  /** The call settled with `result` (a ToolResult). */
  callFinished(
    runId: string,
    key: string,
    status: 'ok' | 'error',
    result: JsonValue,
  ): Promise<unknown>;
  listCalls(runId: string): Promise<JournalCall[]>;
  recordValue(runId: string, kind: 'date' | 'random', value: number): Promise<number>;
  /** The recorded values in `seq` order (1, 2, 3…). */
  listValues(runId: string): Promise<JournalValue[]>;
}

/** Options of {@link openJournal}. */
export interface JournalOptions {
  /** Whether a tool may run twice harmlessly (see `ToolDefinition.idempotent`). @default () => false */
  idempotent?: ((tool: string) => boolean) | undefined;
  /**
   * How long a replay may wait, with recorded answers held back for their turn, without any call
   * arriving, before it is declared diverged (a recorded call the program no longer makes).
   * @default 10000
   */
  stallMs?: number | undefined;
  /**
   * The life's own stop (cancel, parking, shutdown, a lost lease): a call that settles after it
   * aborted is not journaled as settled — it keeps `pending` (its body never started: it runs again
   * in the next life) or `started` (it is the next life's to resolve) — so a call cut short by the
   * life's end never replays as if the program had seen that failure. @default never
   */
  lifeSignal?: AbortSignal | undefined;
  /** Told whenever the number of call bodies running in this life changes (parking watch). */
  onBodies?: ((running: number) => void) | undefined;
  /**
   * How long journal writes keep being retried while the store is unreachable (STORE_UNAVAILABLE),
   * in ms, before the life stops with a store failure. @default 30000
   */
  storeRetryMs?: number | undefined;
}

/** A call a run was interrupted on. */
export interface InterruptedCall {
  key: string;
  name: string;
  args: JsonValue;
}

/** How a durable run's execution ended, as the run manager records it. */
export type ReplayVerdict =
  | { status: 'succeeded'; result: ToolResult }
  | {
      status: 'failed';
      error: { code: ErrorCode; message: string; details?: Record<string, unknown> | undefined };
      result?: ToolResult | undefined;
    }
  | {
      status: 'interrupted';
      error: { code: ErrorCode; message: string; details: { call: InterruptedCall } };
      call: InterruptedCall;
    };
