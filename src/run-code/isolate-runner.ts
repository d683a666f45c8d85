/**
 * The default code runner: transpile (oxc), type-check against the scope's SDK (native TypeScript),
 * run in a fresh isolated-vm context with limits, and route every binding call back to the executor.
 */
import { performance } from 'node:perf_hooks';
import {
  createNativeChecker,
  formatDiagnostics,
  transpileProgram,
  type Diagnostic,
  type TypeChecker,
} from '../compile/index.js';
import { IsocodeError } from '../errors.js';
import {
  SandboxPool,
  type RunOutcome,
  type SandboxLimits,
  type SandboxPoolOptions,
} from '../sandbox/index.js';
import { renderLogs } from './render.js';
import type {
  CallLine,
  CodeRunner,
  LogLine,
  ProgramDiagnostic,
  RunCodeValue,
  RunFailureDetails,
  RunFailureKind,
  RunnerContext,
} from './types.js';

/** How type errors are treated. */
export type TypecheckMode = 'error' | 'warn' | 'off';

/** Options of the isolate runner. */
export interface IsolateRunnerOptions {
  /** `error`: a program with type errors does not run; `warn`: it runs and the diagnostics are logged; `off`: no check. @default "error" */
  typecheck?: TypecheckMode | undefined;
  /** Sandbox limits of every run (memory, CPU, wall clock, output, calls). @default the sandbox defaults */
  limits?: Partial<SandboxLimits> | undefined;
  /** Isolate pool options. @default a warm pool of 2 isolates */
  pool?: SandboxPoolOptions | undefined;
  /** The type-checker. @default the native TypeScript 7 checker in its own process */
  checker?: TypeChecker | undefined;
  /** Per-scope limits layered over `limits` (for example a tenant with a smaller memory budget). */
  scopeLimits?: Readonly<Record<string, Partial<SandboxLimits>>> | undefined;
}

/** Stage timings of one run, in milliseconds. */
export interface RunTimings {
  transpileMs: number;
  typecheckMs: number;
  isolateMs: number;
  runMs: number;
  cpuMs: number;
  totalMs: number;
}

/** The isolate runner, with its counters. */
export interface IsolateRunner extends CodeRunner {
  stats(): {
    isolates: ReturnType<SandboxPool['stats']>;
    checker: ReturnType<TypeChecker['stats']> | undefined;
  };
}

const toDiagnostic = (d: Diagnostic): ProgramDiagnostic => ({
  kind: d.kind,
  code: d.code,
  message: d.message,
  line: d.line,
  column: d.column,
});

function failure(
  kind: RunFailureKind,
  message: string,
  details: Omit<RunFailureDetails, 'kind'>,
): IsocodeError {
  const logs =
    details.logs.length > 0
      ? `\n\nConsole output before the failure:\n${renderLogs(details.logs)}`
      : '';
  return new IsocodeError('CODE_RUN_FAILED', `${kind}: ${message}${logs}`, {
    details: { kind, ...details },
  });
}

/** Creates the default runner. Call `warmup()` at start-up so the first request does not pay for it. */
export function createIsolateRunner(options: IsolateRunnerOptions = {}): IsolateRunner {
  const typecheck = options.typecheck ?? 'error';
  const checker = typecheck === 'off' ? undefined : (options.checker ?? createNativeChecker());
  // Limits are validated once, here (INVALID_CONFIG), as the pool's defaults.
  const pool = new SandboxPool({
    ...options.pool,
    defaultLimits: { ...options.pool?.defaultLimits, ...options.limits },
  });

  async function run(
    program: { code: string },
    ctx: RunnerContext,
  ): Promise<RunCodeValue & { timings: RunTimings }> {
    const t0 = performance.now();
    const logs: LogLine[] = [];
    const calls: CallLine[] = [];
    const transpiled = transpileProgram(program.code);
    const t1 = performance.now();
    if (!transpiled.ok) {
      throw failure(
        'syntax',
        `the program does not parse:\n${formatDiagnostics(transpiled.diagnostics)}`,
        {
          logs,
          calls,
          diagnostics: transpiled.diagnostics.map(toDiagnostic),
        },
      );
    }
    const sdk = ctx.sdk();
    let typecheckMs = 0;
    if (checker) {
      let diagnostics: Diagnostic[];
      try {
        diagnostics = await checker.check(program.code, sdk, { signal: ctx.signal });
      } catch (err) {
        if (ctx.signal.aborted)
          throw failure('aborted', 'the run was aborted during type-checking', { logs, calls });
        throw failure(
          'internal',
          `the type-checker failed: ${err instanceof Error ? err.message : String(err)}`,
          { logs, calls },
        );
      }
      typecheckMs = performance.now() - t1;
      const errors = diagnostics.filter((d) => d.category === 'error');
      ctx.emit({
        type: 'typecheck',
        ok: errors.length === 0,
        ms: typecheckMs,
        diagnostics: diagnostics.length,
      });
      if (errors.length > 0 && typecheck === 'error') {
        const kind = errors.some((d) => d.kind === 'syntax') ? 'syntax' : 'typecheck';
        throw failure(
          kind,
          `the program does not type-check against the SDK; fix these and run it again:\n${formatDiagnostics(diagnostics)}`,
          {
            logs,
            calls,
            diagnostics: diagnostics.map(toDiagnostic),
          },
        );
      }
      if (diagnostics.length > 0) {
        const line: LogLine = {
          level: 'warn',
          text: `[typecheck] ${formatDiagnostics(diagnostics)}`,
        };
        logs.push(line);
        ctx.emit({ type: 'log', ...line });
      }
    }
    const t2 = performance.now();
    let outcome: RunOutcome;
    try {
      outcome = await pool.run({
        js: transpiled.js,
        mapPosition: (line, column) => transpiled.mapPosition(line, column),
        bindings: sdk.bindings,
        limits: options.scopeLimits?.[ctx.scope],
        signal: ctx.signal,
        dispatch: async (tool, args, signal) => {
          const started = performance.now();
          const r = await ctx.dispatch(tool, args, signal);
          const durationMs = performance.now() - started;
          calls.push(
            r.ok
              ? { name: tool, ok: true, durationMs }
              : { name: tool, ok: false, code: r.error.code, durationMs },
          );
          return r.ok
            ? { ok: true, value: r.value }
            : { ok: false, code: r.error.code, message: r.error.message };
        },
        onLog: (entry) => ctx.emit({ type: 'log', level: entry.level, text: entry.text }),
        onCall: (e) =>
          e.phase === 'start'
            ? ctx.emit({ type: 'call-start', name: e.tool })
            : ctx.emit({
                type: 'call-end',
                name: e.tool,
                ok: e.ok,
                code: e.ok ? undefined : (e.code as never),
                durationMs: e.durationMs,
              }),
      });
    } catch (err) {
      throw failure(
        'internal',
        `the sandbox could not run the program: ${err instanceof Error ? err.message : String(err)}`,
        { logs, calls },
      );
    }
    logs.push(...outcome.logs);
    const timings: RunTimings = {
      transpileMs: t1 - t0,
      typecheckMs,
      isolateMs: outcome.stats.isolateMs,
      runMs: performance.now() - t2 - outcome.stats.isolateMs,
      cpuMs: outcome.stats.cpuMs,
      totalMs: performance.now() - t0,
    };
    if (!outcome.ok) {
      const where =
        outcome.line !== undefined
          ? ` (program line ${outcome.line}${outcome.column !== undefined ? `, column ${outcome.column}` : ''})`
          : '';
      const details: Omit<RunFailureDetails, 'kind'> = { logs, calls };
      if (outcome.line !== undefined) details.line = outcome.line;
      if (outcome.column !== undefined) details.column = outcome.column;
      throw failure(outcome.kind, `${outcome.message}${where}`, details);
    }
    return { result: outcome.result, logs, calls, timings };
  }

  async function check(
    code: string,
    sdk: { text: string; hash: string },
    signal?: AbortSignal,
  ): Promise<ProgramDiagnostic[]> {
    const transpiled = transpileProgram(code);
    if (!transpiled.ok) return transpiled.diagnostics.map(toDiagnostic);
    const active = checker ?? createNativeChecker();
    try {
      return (await active.check(code, sdk, signal ? { signal } : {})).map(toDiagnostic);
    } finally {
      if (active !== checker) await active.close();
    }
  }

  return {
    run,
    check,
    async warmup(sdks = []) {
      await Promise.all([
        pool.warmup(),
        checker?.warmup(),
        ...(checker ? sdks.map((sdk) => checker.warmup(sdk)) : []),
      ]);
    },
    async close() {
      await Promise.allSettled([pool.close(), checker?.close()]);
    },
    stats: () => ({ isolates: pool.stats(), checker: checker?.stats() }),
  };
}
