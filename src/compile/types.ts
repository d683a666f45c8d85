/**
 * Public types of the compile stage: diagnostics in the program's own coordinates, the SDK source a
 * program is checked against, the type-checker interface and the transpiler's result.
 */

/** One compiler finding, located in the program's own text (not in any wrapper isocode adds). */
export interface Diagnostic {
  /** `syntax` for parse errors, `typecheck` for type errors (and internal SDK/configuration problems). */
  kind: 'typecheck' | 'syntax';
  /**
   * TypeScript error code (for example 2339); absent when the finding does not come from TypeScript
   * (oxc's and V8's syntax errors, isocode's own refusals).
   */
  code?: number;
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

/**
 * The transpiler's verdict on a program, small and serialisable (it crosses from a sandbox worker process
 * to the host): `ok`, or the syntax diagnostics. A {@link TranspileResult} is one too.
 */
export type TranspileVerdict = { ok: true } | { ok: false; diagnostics: Diagnostic[] };

/** Options of a single {@link TypeChecker.check} call. */
export interface CheckOptions {
  /** Aborting rejects the check with an `IsocodeError` of code `ABORTED`. */
  signal?: AbortSignal;
  /**
   * The transpiler's verdict on this program (from `transpileProgram`, possibly run in another process).
   * When given, the checker never runs the transpiler (oxc) itself; when absent, it transpiles the
   * program in this process to get the verdict (convenient for library use, not crash-safe: oxc's parser
   * can overflow the native stack on pathological input).
   */
  transpiled?: TranspileVerdict;
  /**
   * The partition of the checker's result cache this check may read and fill (the runner passes the
   * scope): results are never shared across partitions, so one tenant cannot learn by timing that
   * another ran the same program. @default ""
   */
  partition?: string;
}

/** Counters of a {@link TypeChecker}. */
export interface CheckerStats {
  /** Checks completed (with or without diagnostics). */
  checks: number;
  /** Compiler processes currently running. */
  processes: number;
  /** SDKs currently compiled and cached. */
  cachedSdks: number;
  /** Compiler processes started to replace one that crashed, hung or crossed the memory limit. */
  restarts: number;
  /** Resident memory of the running compiler process in bytes (0 when none is running or it cannot be read). */
  rssBytes: number;
  /** The result cache's counters (checkers that keep one). */
  cache?: { hits: number; misses: number; entries: number; bytes: number };
}

/** Type-checks run_code programs against an SDK. Implementations hide the compiler behind this interface. */
export interface TypeChecker {
  /**
   * Type-checks `program` (the body of an async function) against `sdk`. Resolves with the diagnostics
   * (empty when the program is well typed); rejects with an `IsocodeError` (`ABORTED`, `INTERNAL_ERROR`,
   * `SHUTTING_DOWN`, `INVALID_ARGS`, or `LIMIT_EXCEEDED` with `details.kind: 'typecheck'` when the check
   * took the compiler over its memory limit or its deadline) when no answer can be given.
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

/**
 * The serialisable form of a transpiled program's position map (plain JSON: it can cross a process
 * boundary); `positionMapper` turns it back into a `mapPosition` function without the transpiler.
 */
export interface PositionMap {
  /** The source map's `mappings` (Base64 VLQ, v3) from the output `js` to the wrapped program. */
  mappings: string;
  /** Lines of the wrapper before the program's first line in the wrapped source. */
  prefixLines: number;
  /** Lines of the program (positions mapped past it are in the wrapper: `undefined`). */
  programLines: number;
}

/** Maps a 1-based (line, column) in the transpiled `js` to the program's own position; `undefined` inside the wrapper. */
export type MapPosition = (line: number, column: number) => ProgramPosition | undefined;

/** The transpiler's output: a JS expression evaluating to an async function of no arguments, or syntax errors. */
export type TranspileResult =
  | {
      ok: true;
      /** `(async function() {\n'use strict'; ...\n})`: evaluate it, then call the function it yields. */
      js: string;
      /** Maps a 1-based (line, column) in `js` to the program's own position; `undefined` inside the wrapper. */
      mapPosition: MapPosition;
      /** The same map in serialisable form (rebuild it with `positionMapper`). */
      positions: PositionMap;
    }
  | { ok: false; diagnostics: Diagnostic[] };
