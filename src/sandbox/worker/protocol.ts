/**
 * The one protocol between the host and a sandbox worker process (Node IPC, JSON). The host is the
 * supervisor: it sends programs and answers binding calls; the worker transpiles, runs isolates and
 * sends back logs, calls and outcomes. The worker is trusted code, but it runs hostile programs: the
 * host validates the shape of every message it reads (see `isWorkerMessage`) and bounds what it
 * holds per run (calls in flight, log bytes), so a confused worker cannot grow the host.
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
  /** How often the worker checks its own memory, in ms. */
  selfCheckMs: number;
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
      /** The id of the `transpile` whose program this runs (it must have succeeded). */
      program: number;
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

const TYPES = new Set(['ready', 'transpiled', 'log', 'call', 'done', 'fatal']);

/** A cheap shape check of a message from a worker: the type tag and, where used, a numeric id. */
export function isWorkerMessage(value: unknown): value is WorkerMessage {
  if (typeof value !== 'object' || value === null) return false;
  const m = value as { t?: unknown; id?: unknown };
  if (typeof m.t !== 'string' || !TYPES.has(m.t)) return false;
  return m.t === 'ready' || m.t === 'fatal' || Number.isSafeInteger(m.id);
}
