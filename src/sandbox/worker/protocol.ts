/**
 * The one protocol between the host and a sandbox worker process (Node IPC, JSON). The host is the
 * supervisor: it sends programs and answers binding calls; the worker transpiles, runs isolates and
 * sends back logs, calls and outcomes. The worker is trusted code, but it runs hostile programs: the
 * host validates the shape of every message it reads (see `isWorkerMessage`) and bounds what it
 * holds per run (calls in flight, log bytes), so a confused worker cannot grow the host.
 *
 * Both sides write through an {@link Outbox}: what one turn of the event loop produced (the calls
 * of a `Promise.all`, the replies of calls that settled together) crosses as one frame, a
 * {@link Batch}, with one write and one wake-up of the other process. A frame is read as the
 * messages it holds, in order, each checked as if it had come alone.
 */
import type { JsonValue } from '../../json.js';
import type { Diagnostic } from '../../compile/types.js';
import type {
  CallTrace,
  DispatchResult,
  DurableTape,
  LogEntry,
  RunOutcome,
  SandboxBinding,
  SandboxLimits,
} from '../types.js';

/** Options the host gives a worker at start (as one JSON argument on its command line). */
export interface WorkerSettings {
  /** Default limits of the worker's isolate pool. */
  limits: SandboxLimits;
  /** Resident memory the worker may use, in bytes; the worker reports itself when over. */
  rssBudgetBytes: number;
  /** How often the worker checks its own memory while it has work, in ms. */
  selfCheckMs: number;
  /**
   * Once the host has sent nothing for `quietAfterMs`, the worker checks its memory every
   * `quietCheckMs` instead (nothing runs in it: an idle isolate that spins is the host's to catch).
   */
  quietAfterMs: number;
  quietCheckMs: number;
  /** How often the in-worker watchdog polls a run's isolate clocks, in ms. */
  watchdogIntervalMs: number;
}

/** How many `tools` trees a worker keeps by key (and the host remembers having sent). */
export const BINDINGS_CACHE = 16;

/**
 * Host → worker. `id` names a run (or a transpile request) for the life of the worker. `init` is the
 * first message a worker reads, and only the first: the process can start before its settings are
 * known (a CLI starts it while it loads its config, `prestartWorker` in spawn.ts).
 */
export type HostMessage =
  | { t: 'init'; settings: WorkerSettings }
  | { t: 'transpile'; id: number; code: string }
  | {
      t: 'run';
      id: number;
      /**
       * The id of the `transpile` whose program this runs (it must have succeeded), or the program's
       * text: the worker transpiles it first and answers `transpiled` under this run's `id`; a
       * program that does not transpile does not run, and nothing more is sent for the run.
       */
      program: number | { code: string };
      /**
       * The `tools` tree: the list, the first time this worker sees `bindingsKey`; afterwards
       * only the key (the worker keeps the last few trees).
       */
      bindingsKey: number;
      bindings?: SandboxBinding[];
      limits: SandboxLimits;
      partition: string;
      /** Set for a durable run (see `RunRequest.durable`). */
      durable?: DurableTape;
    }
  | { t: 'reply'; id: number; call: number; result: DispatchResult }
  | { t: 'abort'; id: number }
  /** The run's wall clock stops (a nested call waits on a human) or runs again. */
  | { t: 'pause'; id: number; paused: boolean };

/** The verdict of a transpile: diagnostics in the program's own coordinates when it failed. */
export type TranspileReply =
  { ok: true; notes: string[] } | { ok: false; diagnostics: Diagnostic[] };

/** Worker → host. */
export type WorkerMessage =
  | { t: 'ready' }
  | { t: 'transpiled'; id: number; verdict: TranspileReply }
  | { t: 'log'; id: number; entry: LogEntry }
  | { t: 'call'; id: number; call: number; tool: string; args: JsonValue; trace?: CallTrace }
  | { t: 'done'; id: number; outcome: RunOutcome }
  /** The worker is going down on its own: over its memory budget, or V8 lost an isolate. */
  | { t: 'fatal'; reason: 'memory' | 'catastrophic'; message: string };

/** Several messages in one IPC frame, in the order they were sent (either way; never nested). */
export interface Batch<M> {
  t: 'batch';
  m: M[];
}

/** Most messages in one frame: an outbox splits longer runs of messages; a longer frame is refused. */
export const MAX_BATCH = 1024;

const TYPES = new Set(['ready', 'transpiled', 'log', 'call', 'done', 'fatal']);

/** A cheap shape check of a message from a worker: the type tag and, where used, a numeric id. */
export function isWorkerMessage(value: unknown): value is WorkerMessage {
  if (typeof value !== 'object' || value === null) return false;
  const m = value as { t?: unknown; id?: unknown };
  if (typeof m.t !== 'string' || !TYPES.has(m.t)) return false;
  return m.t === 'ready' || m.t === 'fatal' || Number.isSafeInteger(m.id);
}

/**
 * The messages a frame holds, in order: a batch's list, or the frame itself (checked by the reader
 * as one message). Undefined for a malformed batch: no list, or an empty one, or one longer than
 * {@link MAX_BATCH}. A batch inside a batch is a malformed message.
 */
export function frameMessages(frame: unknown): unknown[] | undefined {
  if (typeof frame !== 'object' || frame === null || (frame as { t?: unknown }).t !== 'batch')
    return [frame];
  const messages = (frame as { m?: unknown }).m;
  return Array.isArray(messages) && messages.length > 0 && messages.length <= MAX_BATCH
    ? (messages as unknown[])
    : undefined;
}

/**
 * Queues messages and writes them once the current turn's callbacks and microtasks are done
 * (`process.nextTick` from the first message): one message as it is, several as one
 * {@link Batch} (split every {@link MAX_BATCH} messages). Order is kept.
 */
export class Outbox<M> {
  private queue: M[] = [];

  constructor(private readonly write: (frame: M | Batch<M>) => void) {}

  /** Queues `message` for the end of this turn. */
  send(message: M): void {
    if (this.queue.push(message) === 1) process.nextTick(this.flush);
  }

  /** Writes what is queued now (before a message that must leave at once). */
  readonly flush = (): void => {
    const queue = this.queue;
    if (queue.length === 0) return;
    this.queue = [];
    if (queue.length === 1) this.write(queue[0] as M);
    else
      for (let i = 0; i < queue.length; i += MAX_BATCH)
        this.write({ t: 'batch', m: queue.slice(i, i + MAX_BATCH) });
  };
}
