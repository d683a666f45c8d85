/** The run_code tool's value, failure details and the runner seam. */
import type { ErrorCode } from '../errors.js';
import type { ToolResult } from '../executor/types.js';
import type { ParentToken } from '../tools/types.js';
import type { JsonValue } from '../json.js';
import type { CallTrace, DurableTape, FailureKind, ProgramFrame } from '../sandbox/types.js';
import type { PauseClock } from '../pause-clock.js';

/** One captured console line. */
export interface LogLine {
  level: 'log' | 'info' | 'warn' | 'error' | 'debug';
  text: string;
}

/** One nested call a program made. */
export interface CallLine {
  name: string;
  ok: boolean;
  /** The error code of a failed call (absent on success). */
  code?: ErrorCode;
  durationMs: number;
}

/** The value of a successful run_code call. */
export interface RunCodeValue {
  /**
   * The program's return value as JSON, converted by the rule of decision record 018 (`undefined` →
   * null, Date → ISO string, Map → object, Set → array, ...).
   */
  result: JsonValue;
  logs: LogLine[];
  calls: CallLine[];
  /**
   * What isocode changed about the program before running it, for the model to learn from (e.g. a
   * Markdown fence it ignored). Absent when nothing was changed.
   */
  notes?: string[];
}

/**
 * Why a run failed: before running (`typecheck`, `syntax`), how the sandbox ended it, or because its
 * tool calls kept the host busy past its `hostMs` limit (`host-limit`).
 */
export type RunFailureKind = 'typecheck' | 'syntax' | 'host-limit' | FailureKind;

/** A type or syntax diagnostic in the program's own coordinates. */
export interface ProgramDiagnostic {
  kind: 'typecheck' | 'syntax';
  /** TypeScript's error code; absent for syntax errors of the transpiler and isocode's refusals. */
  code?: number;
  message: string;
  line: number;
  column: number;
  /** A one-line suggestion for common codes (see `hintFor`). */
  hint?: string;
}

/** The `details` of a CODE_RUN_FAILED error. */
export interface RunFailureDetails {
  kind: RunFailureKind;
  logs: LogLine[];
  calls: CallLine[];
  diagnostics?: ProgramDiagnostic[];
  line?: number;
  column?: number;
  /**
   * For kind `exception`: the program's frames of the error's stack, innermost first (at most 10;
   * program coordinates; `fn` the function's name as V8 shows it, at most 100 characters). The
   * first is `line`/`column`.
   */
  frames?: ProgramFrame[];
  /**
   * For kind `exception` when the program threw something that is not an Error (`throw { code: 42 }`,
   * `throw 'x'`): the thrown value as JSON, bounded in size (long strings cut, extra entries
   * replaced by a `"…"` marker; functions and cycles shown as strings).
   */
  thrown?: JsonValue;
  /** As in {@link RunCodeValue.notes}. */
  notes?: string[];
}

/** What a runner receives for one run. */
export interface RunnerContext {
  readonly scope: string;
  readonly callId: string;
  /** Aborted when the caller aborts run_code. */
  readonly signal: AbortSignal;
  /** This run's parent token (already bound into `dispatch`). */
  readonly parentToken: ParentToken;
  /**
   * Set when the run is durable: the runner runs the program with this tape (see
   * `RunRequest.durable`) and passes each binding call's trace to {@link dispatch}.
   */
  readonly durable?: DurableTape | undefined;
  /**
   * Makes a nested call carrying this run's parent token. Never rejects. `trace` (durable runs)
   * lets a durable run answer the call from its journal.
   */
  dispatch(
    name: string,
    args: unknown,
    signal?: AbortSignal,
    trace?: CallTrace,
    watch?: CallWatch,
  ): Promise<ToolResult>;
  /** Streams progress (logs, call start/end) as it happens. */
  emit(event: RunProgressEvent): void;
  /**
   * False while nobody listens to progress: a runner may then skip building events that cost
   * something to build (a call's arguments and result as JSON). @default someone listens
   */
  listening?: (() => boolean) | undefined;
  /** The SDK of this run's scope (cached per catalog). */
  sdk(): ScopeSdk;
  /**
   * A run slot already taken for this run ({@link CodeRunner.reserve}): the runner releases it when
   * the run ends instead of waiting for one. @default none: the runner waits for a slot
   */
  readonly reserved?: (() => void) | undefined;
  /** The run's wall clock, paused while a nested call waits on a human. @default never paused */
  readonly clock?: PauseClock | undefined;
}

/** The SDK of a scope as a runner needs it. */
export interface ScopeSdk {
  text: string;
  hash: string;
  /** Binding paths (`tools.a.b`) to tool names. */
  bindings: readonly { path: readonly string[]; tool: string }[];
}

/** What a dispatch tells its caller about the call as it goes. */
export interface CallWatch {
  /** The executor call id the call runs as, when the dispatch chooses it (durable runs). */
  id(callId: string): void;
}

/** Progress events of one run, for streaming interfaces. */
export type RunProgressEvent =
  | { type: 'typecheck'; ok: boolean; ms: number; diagnostics: number }
  | { type: 'log'; level: LogLine['level']; text: string }
  | {
      type: 'call-start';
      name: string;
      /** The call's number in the run, in arrival (program) order, from 1; its call-end has the same. */
      seq: number;
      /** The arguments, bounded (`eventJson` in call-record.ts). */
      args: JsonValue | undefined;
      /** The executor's id of the call when known at its start (a durable run's: approvals' callKey). */
      callId?: string | undefined;
      /** When the call left the program (epoch ms). */
      at: number;
    }
  | {
      type: 'call-end';
      name: string;
      seq: number;
      ok: boolean;
      code: ErrorCode | undefined;
      durationMs: number;
      /** When the call settled (epoch ms). */
      at: number;
      /** The call's value, bounded like the arguments (`eventJson` in call-record.ts); ok calls only. */
      result?: JsonValue | undefined;
      /** The error's message, at most `MAX_EVENT_MESSAGE_CHARS` characters; failed calls only. */
      message?: string | undefined;
      /** A durable run's replay answered the call from its journal (the tool did not run again). */
      replayed?: true | undefined;
    };

/**
 * Runs run_code programs. The default runner type-checks against the scope's SDK and runs the
 * program in an isolated-vm isolate; `isocode/testing` has a scripted one for tests.
 * `run` throws an IsocodeError CODE_RUN_FAILED (details: {@link RunFailureDetails}) on failure.
 */
export interface CodeRunner {
  run(program: { code: string; description: string }, ctx: RunnerContext): Promise<RunCodeValue>;
  /**
   * Type-checks (and syntax-checks) a program against an SDK without running it. `scope` is the
   * caller's scope: its admission slots, and the partition of the checker's result cache (one scope
   * never gets, nor times, another's cached answer).
   */
  check?(
    code: string,
    sdk: ScopeSdk,
    signal?: AbortSignal,
    scope?: string,
  ): Promise<ProgramDiagnostic[]>;
  /**
   * A run slot of `scope` if one is free now (admission), without waiting: its release function,
   * or undefined. A run started with it in {@link RunnerContext.reserved} uses it instead of waiting.
   */
  reserve?(scope: string): Promise<(() => void) | undefined>;
  /**
   * Starts processes and pools; `sdks` are the SDKs to prepare (compile) ahead of the first run.
   * `createRuntime` calls it twice: with no SDKs before it compiles the catalog (the processes start
   * meanwhile), then with the SDKs. A second call waits for what the first started; it starts nothing twice.
   */
  warmup?(sdks?: readonly ScopeSdk[]): Promise<void>;
  close?(): Promise<void>;
}
