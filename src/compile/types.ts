/**
 * Public types of the compile stage: diagnostics in the program's own coordinates, the SDK source a
 * program is checked against, the type-checker interface and the transpiler's result.
 */

/** One compiler finding, located in the program's own text (not in any wrapper isocode adds). */
export interface Diagnostic {
  /** `syntax` for parse errors, `typecheck` for type errors (and internal SDK/configuration problems). */
  kind: 'typecheck' | 'syntax';
  /** TypeScript error code (for example 2339); 0 when the finding does not come from TypeScript. */
  code: number;
  category: 'error' | 'warning' | 'suggestion' | 'message';
  /** The message with its chain flattened: detail lines are indented and joined with `\n`. */
  message: string;
  /** 1-based line in the program; 0 when the problem is not in the program (an internal SDK or configuration error). */
  line: number;
  /** 1-based column in UTF-16 code units; 0 together with `line: 0`. */
  column: number;
  endLine?: number;
  endColumn?: number;
}

/** The SDK text a program is checked against, identified by a stable hash of that text. */
export interface SdkSource {
  /** A global declaration script (prelude, `interface Tools {...}`, `declare const tools: Tools;`). */
  readonly text: string;
  /** A stable identifier of `text`; the checker caches one compiled SDK per hash. */
  readonly hash: string;
}

/** Options of a single {@link TypeChecker.check} call. */
export interface CheckOptions {
  /** Aborting rejects the check with an `IsocodeError` of code `ABORTED`. */
  signal?: AbortSignal;
}

/** Counters of a {@link TypeChecker}. */
export interface CheckerStats {
  /** Checks completed (with or without diagnostics). */
  checks: number;
  /** Compiler processes currently running. */
  processes: number;
  /** SDKs currently compiled and cached. */
  cachedSdks: number;
}

/** Type-checks run_code programs against an SDK. Implementations hide the compiler behind this interface. */
export interface TypeChecker {
  /**
   * Type-checks `program` (the body of an async function) against `sdk`. Resolves with the diagnostics
   * (empty when the program is well typed); rejects with an `IsocodeError` (`ABORTED`, `INTERNAL_ERROR`,
   * `SHUTTING_DOWN`, `INVALID_ARGS`) when no answer can be given.
   */
  check(program: string, sdk: SdkSource, options?: CheckOptions): Promise<Diagnostic[]>;
  /** Starts the compiler process (and compiles `sdk` when given), so the first request does not pay for it. */
  warmup(sdk?: SdkSource): Promise<void>;
  /** Stops the compiler process(es). Idempotent; later checks reject with `SHUTTING_DOWN`. */
  close(): Promise<void>;
  stats(): CheckerStats;
}

/** A position in the program's own coordinates (1-based line and UTF-16 column). */
export interface ProgramPosition {
  line: number;
  column: number;
}

/** The transpiler's output: a JS expression evaluating to an async function of no arguments, or syntax errors. */
export type TranspileResult =
  | {
      ok: true;
      /** `(async function() {\n'use strict'; ...\n})`: evaluate it, then call the function it yields. */
      js: string;
      /** Maps a 1-based (line, column) in `js` to the program's own position; `undefined` inside the wrapper. */
      mapPosition(line: number, column: number): ProgramPosition | undefined;
    }
  | { ok: false; diagnostics: Diagnostic[] };
