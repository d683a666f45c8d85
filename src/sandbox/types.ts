/** The public shapes of the sandbox: limits, requests, outcomes. */
import type { JsonValue } from '../json.js';
import type { PauseClock } from '../pause-clock.js';

/** Limits of one run. Every limit is enforced; each maps to a distinct failure. */
export interface SandboxLimits {
  /**
   * Heap limit of the run's isolate in MiB (isolated-vm `memoryLimit`, minimum 8). Exceeding it
   * disposes the isolate → kind `memory`.
   * @default 64
   */
  memoryMb: number;
  /**
   * CPU time the program may use in milliseconds, measured with `isolate.cpuTime` (time spent
   * waiting on the host is not counted). Polled by the watchdog, so it also stops code that spins
   * after an `await` → kind `timeout`.
   * @default 5000
   */
  cpuMs: number;
  /**
   * Wall-clock deadline of the program in milliseconds (a program awaiting forever, or waiting on
   * slow tools) → kind `timeout`.
   * @default 30000
   */
  wallMs: number;
  /**
   * Total console output in UTF-8 bytes (each entry counts its text plus one byte). Crossing it
   * ends the run → kind `output-limit`; the entries that fit are kept.
   * @default 65536 (64 KiB)
   */
  maxLogBytes: number;
  /**
   * UTF-8 bytes of the JSON of the returned value → kind `output-limit`.
   * @default 1048576 (1 MiB)
   */
  maxResultBytes: number;
  /**
   * UTF-8 bytes of the JSON of one binding call's arguments; a larger call rejects in the program
   * with `ToolCallError` code `LIMIT_EXCEEDED` and is not dispatched.
   * @default 1048576 (1 MiB)
   */
  maxArgBytes: number;
  /**
   * UTF-8 bytes of the JSON of one binding call's result; a larger result rejects that call with
   * `LIMIT_EXCEEDED`.
   * @default 4194304 (4 MiB)
   */
  maxBindingResultBytes: number;
  /**
   * Binding calls per run (counted when the host accepts a call for a known tool); later calls
   * reject with `LIMIT_EXCEEDED`.
   * @default 1000
   */
  maxCalls: number;
  /**
   * Binding calls of one run in flight to the host at once; further calls wait in the sandbox for
   * a slot (see `maxQueuedCalls`) and are rejected without dispatching if the run ends first. The
   * default equals the executor's `maxParallelSubCalls`: the sandbox bounds what crosses to the
   * host, the executor's scheduler orders it (exclusive and concurrency-safe tools).
   * @default 10
   */
  maxCallsInFlight: number;
  /**
   * Binding calls of one run waiting for an in-flight slot; one more rejects in the program with
   * `LIMIT_EXCEEDED` (not dispatched). Waiting calls are held as JSON text in the sandbox, never
   * parsed or sent to the host before they have a slot.
   * @default 256
   */
  maxQueuedCalls: number;
  /**
   * UTF-16 code units of the JSON arguments of one run's waiting calls together; a call that would
   * go over rejects with `LIMIT_EXCEEDED`.
   * @default 8388608 (8 Mi)
   */
  maxQueuedBytes: number;
  /**
   * Host time a run may cause through its binding calls, in milliseconds: the time the host's
   * thread is busy on them (validation, hooks, guards, the tool bodies, result encoding), measured
   * per async continuation; waiting is not counted. Past it the run ends → kind `host-limit`
   * (src/run-code/host-meter.ts).
   * @default 10000
   */
  hostMs: number;
}

/** The defaults of {@link SandboxLimits}. */
export const DEFAULT_LIMITS: Readonly<SandboxLimits> = Object.freeze({
  memoryMb: 64,
  cpuMs: 5_000,
  wallMs: 30_000,
  maxLogBytes: 64 * 1024,
  maxResultBytes: 1024 * 1024,
  maxArgBytes: 1024 * 1024,
  maxBindingResultBytes: 4 * 1024 * 1024,
  maxCalls: 1_000,
  maxCallsInFlight: 10,
  maxQueuedCalls: 256,
  maxQueuedBytes: 8 * 1024 * 1024,
  hostMs: 10_000,
});

/** A binding: `tools.a.b` in the program ↔ tool `"a.b"` (the mapping comes from the SDK generator). */
export interface SandboxBinding {
  /** Property path under `tools`: non-empty strings, not `__proto__`. */
  path: readonly string[];
  /** The tool name given to `dispatch`. `run_code` is never bound (such entries are dropped). */
  tool: string;
}

/**
 * What a dispatch settles with. `json` is the value already as JSON text: the form a result
 * crosses the process boundary in, made when the host answers (worker/handle.ts), so a value the
 * tool changes afterwards cannot reach the program, nor fail the channel's own serialisation.
 */
export type DispatchResult =
  | { ok: true; value: JsonValue }
  | { ok: true; json: string }
  | { ok: false; code: string; message: string };

/**
 * What a binding call of a durable run carries besides its arguments (see
 * `sdk-templates/isolate/durable.ts`). Everything in it comes from the program: hostile, checked
 * for shape and size only.
 */
export interface CallTrace {
  /**
   * The program's frames at the call, innermost first, as `line:column` in the program's own
   * coordinates, joined by ` < ` (empty when none could be read).
   */
  site: string;
  /** Values of `Date.now()`/`new Date()` the program produced since its previous call, in order. */
  clock: number[];
  /** Values of `Math.random()` likewise. */
  random: number[];
}

/** What makes a run durable: the values its earlier life recorded, served first, in order. */
export interface DurableTape {
  clock: readonly number[];
  random: readonly number[];
}

/**
 * Runs one nested tool call. Must never reject (a rejection is reported to the program as
 * `INTERNAL_ERROR`). `signal` is the run's signal: it aborts when the run settles for any reason.
 * The failure `message` is shown to the program as is: it must not carry host stacks or paths.
 * `trace` is set for every call of a durable run (see {@link RunRequest.durable}).
 */
export type Dispatch = (
  tool: string,
  args: JsonValue,
  signal: AbortSignal,
  trace?: CallTrace,
) => Promise<DispatchResult>;

/** One console line of the program. */
export interface LogEntry {
  level: 'log' | 'info' | 'warn' | 'error' | 'debug';
  text: string;
}

/** A binding call starting or ending (for audit and UIs). */
export type CallEvent =
  | { phase: 'start'; tool: string; seq: number }
  | {
      phase: 'end';
      tool: string;
      seq: number;
      ok: boolean;
      code: string | undefined;
      durationMs: number;
    };

/** One program to run. */
export interface RunRequest {
  /**
   * JavaScript that evaluates to an async function of no arguments, e.g.
   * `(async function () {\n'use strict';\n…\n})`.
   */
  js: string;
  /** The `tools` tree of the program. */
  bindings: readonly SandboxBinding[];
  /** Where binding calls go. The sandbox never sees the executor. */
  dispatch: Dispatch;
  /** Per-run overrides of the pool's default limits. A `memoryMb` other than the pool's default costs a cold isolate. */
  limits?: Partial<SandboxLimits> | undefined;
  /** Aborting it ends the run → kind `aborted`. */
  signal?: AbortSignal | undefined;
  /** The run's wall clock: `wallMs` does not count the time it is paused (a human deciding). */
  clock?: PauseClock | undefined;
  /**
   * Isolates serve runs of one partition only (the runtime passes the scope): an isolate that ran
   * a program of one partition is never handed to another, so nothing a program leaves in an
   * isolate (the `Symbol.for` registry, caches, timing of shared state) reaches another tenant.
   * Runs without a partition share one. @default undefined
   */
  partition?: string | undefined;
  /**
   * Makes the run durable: `Date.now()`, `new Date()` and `Math.random()` serve these values first,
   * then live ones, and every binding call carries its {@link CallTrace}. @default undefined (not durable)
   */
  durable?: DurableTape | undefined;
  /** Called for each kept console entry, in order, as it arrives. Exceptions are ignored. */
  onLog?: ((entry: LogEntry) => void) | undefined;
  /** Called when a binding dispatch starts and ends. Exceptions are ignored. */
  onCall?: ((event: CallEvent) => void) | undefined;
  /**
   * Maps a 1-based line/column of `js` (as V8 reports them) to the program's own coordinates;
   * `undefined` drops the position (e.g. inside the wrapper). Without it, positions stay in `js`.
   */
  mapPosition?:
    ((line: number, column: number) => { line: number; column: number } | undefined) | undefined;
}

/** Why a run failed. */
export type FailureKind =
  | 'exception'
  | 'timeout'
  | 'memory'
  | 'output-limit'
  | 'invalid-output'
  | 'aborted'
  | 'crashed'
  | 'internal';

/** Measurements of one run. */
export interface RunStats {
  /** CPU time used by the program's isolate during the run, in ms. */
  cpuMs: number;
  /** Wall-clock time from the program's start to its settlement, in ms. */
  wallMs: number;
  /** Binding calls dispatched to the host `dispatch`. */
  calls: number;
  /** Time to obtain a ready isolate and context (≈0 from the warm pool), in ms. */
  isolateMs: number;
  /** UTF-8 bytes of the kept console output (each entry plus one). */
  logBytes: number;
  /** True when console output went over `maxLogBytes` and was cut. */
  truncatedLogs: boolean;
}

/** One frame of the program in an exception's stack (program coordinates). */
export interface ProgramFrame {
  line: number;
  column: number;
  /** The function's name as V8 shows it (`outer`, `Array.map`); absent at the top level. */
  fn?: string;
}

/** How a run ended. `logs` always holds the console output captured before the end. */
export type RunOutcome =
  | { ok: true; result: JsonValue; logs: LogEntry[]; stats: RunStats }
  | {
      ok: false;
      kind: FailureKind;
      /** A message the model can act on; never a host stack or path. */
      message: string;
      /** Program line of an exception, when known. */
      line?: number;
      /** Program column of an exception, when known. */
      column?: number;
      /** The program's frames of an exception's stack, innermost first, at most 10 (outcome.ts). */
      frames?: ProgramFrame[];
      /** The bounded JSON preview of a thrown value that is not an Error (kind `exception`). */
      thrown?: JsonValue;
      logs: LogEntry[];
      stats: RunStats;
    };
