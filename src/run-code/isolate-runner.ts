/**
 * The default code runner: admission (a run slot of its scope), transpile (oxc) and run in a
 * sandbox worker process, type-check against the scope's SDK (native TypeScript) in between, and
 * route every binding call back to the executor. Every binding call is recorded once
 * (`recordingDispatch`); the progress events and the result's `calls` both come from that record.
 */
import { performance } from 'node:perf_hooks';
import {
  createNativeChecker,
  FENCE_NOTE,
  formatDiagnostics,
  hintFor,
  unfence,
  type Diagnostic,
} from '../compile/index.js';
import { IsocodeError, isIsocodeError, thrownText } from '../errors.js';
import {
  DEFAULT_LIMITS,
  resolveLimits,
  type DispatchResult,
  type RunOutcome,
  type SandboxLimits,
} from '../sandbox/index.js';
import { checkedFrames } from '../sandbox/outcome.js';
import { HostMeter } from './host-meter.js';
import { Admission } from './admission.js';
import {
  inProcessHost,
  workerHost,
  type ProgramHost,
  type ProgramSlot,
  type SlotRun,
} from './program-host.js';
import { recordingDispatch } from './call-record.js';
import { resolveWall } from '../wall/wall.js';
import { renderLogs } from './render.js';
import type {
  CallLine,
  LogLine,
  ProgramDiagnostic,
  RunCodeValue,
  RunFailureDetails,
  RunFailureKind,
  RunnerContext,
  ScopeSdk,
} from './types.js';

import type { IsolateRunner, IsolateRunnerOptions, RunTimings } from './isolate-runner-types.js';
export type {
  IsolateRunner,
  IsolateRunnerOptions,
  RunTimings,
  TypecheckMode,
} from './isolate-runner-types.js';

/** The details' form of a diagnostic: TypeScript's code only when there is one, and a hint. */
const toDiagnostic = (d: Diagnostic): ProgramDiagnostic => {
  const out: ProgramDiagnostic = {
    kind: d.kind,
    message: d.message,
    line: d.line,
    column: d.column,
  };
  if (d.code !== undefined && d.code > 0) out.code = d.code;
  const hint = hintFor(d);
  if (hint !== undefined) out.hint = hint;
  return out;
};

/** Distinct diagnostics for the details, in the order (and number) the failure's text shows them. */
const detailsDiagnostics = (diags: readonly Diagnostic[]): ProgramDiagnostic[] => {
  const seen = new Set<string>();
  const out: ProgramDiagnostic[] = [];
  for (const d of diags) {
    const key = `${d.line}:${d.column}:${d.code ?? ''}:${d.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(toDiagnostic(d));
  }
  return out;
};

function failure(
  kind: RunFailureKind,
  message: string,
  details: Omit<RunFailureDetails, 'kind'>,
  notes: readonly string[] = [],
): IsocodeError {
  const logs =
    details.logs.length > 0
      ? `\n\nConsole output before the failure:\n${renderLogs(details.logs)}`
      : '';
  const noted = notes.length > 0 ? `\n\n${notes.map((n) => `Note: ${n}`).join('\n')}` : '';
  return new IsocodeError('CODE_RUN_FAILED', `${kind}: ${message}${logs}${noted}`, {
    details: { kind, ...details, ...(notes.length > 0 ? { notes: [...notes] } : {}) },
  });
}

/** Creates the default runner. Call `warmup()` at start-up so the first request does not pay for it. */
export function createIsolateRunner(options: IsolateRunnerOptions = {}): IsolateRunner {
  const typecheck = options.typecheck ?? 'error';
  const wall = resolveWall(options.wall ?? 'auto');
  const checkerOptions = { wall: wall.status.mode };
  const checker =
    typecheck === 'off' ? undefined : (options.checker ?? createNativeChecker(checkerOptions));
  // Limits are validated once, here (INVALID_CONFIG), and per scope on first use.
  const baseLimits = resolveLimits(DEFAULT_LIMITS, options.pool?.defaultLimits, options.limits);
  for (const overrides of Object.values(options.scopeLimits ?? {}))
    resolveLimits(baseLimits, overrides);
  const host: ProgramHost =
    options.sandbox === 'in-process'
      ? inProcessHost({ ...options.pool, defaultLimits: baseLimits }, 8)
      : workerHost(options.workers ?? {}, baseLimits, wall);
  let admission: Admission;
  try {
    admission = new Admission(
      options.admission ?? {},
      host.capacity,
      host.bounded ? host.capacity : undefined,
    );
  } catch (error) {
    void host.close();
    throw error;
  }
  const limitsOf = (scope: string): SandboxLimits =>
    resolveLimits(baseLimits, options.scopeLimits?.[scope]);

  /**
   * A run slot of `scope` and a sandbox slot, or the failure that refused them. `done` gives both
   * back; `freeSlot` only the sandbox slot (a check keeps its run slot while the compiler works).
   */
  async function claim(
    scope: string,
    signal: AbortSignal | undefined,
    reserved: (() => void) | undefined,
  ): Promise<{ slot: ProgramSlot; done: () => void; freeSlot: () => void }> {
    let leave: () => void;
    try {
      leave = reserved ?? (await admission.acquire(scope, signal));
    } catch (error) {
      if (isIsocodeError(error) && error.code === 'ABORTED')
        throw failure('aborted', 'the run was aborted while waiting for a slot', {
          logs: [],
          calls: [],
        });
      throw error;
    }
    try {
      const slot = await host.slot(scope);
      let held = true;
      const freeSlot = (): void => {
        if (held) slot.release();
        held = false;
      };
      return {
        slot,
        freeSlot,
        done: () => {
          freeSlot();
          leave();
        },
      };
    } catch (error) {
      leave();
      throw error;
    }
  }

  async function run(
    program: { code: string },
    ctx: RunnerContext,
  ): Promise<RunCodeValue & { timings: RunTimings }> {
    const t0 = performance.now();
    const logs: LogLine[] = [];
    const calls: CallLine[] = [];
    const limits = limitsOf(ctx.scope);
    const { code, unfenced } = unfence(program.code);
    const notes = unfenced ? [FENCE_NOTE] : [];
    const { slot, done } = await claim(ctx.scope, ctx.signal, ctx.reserved);
    try {
      const sdk = ctx.sdk();
      // The host time its calls cause is the run's: past `hostMs` the run is ended (host-meter.ts).
      const overHost = new AbortController();
      const meter = new HostMeter(limits.hostMs, () => overHost.abort());
      const dispatch = recordingDispatch(ctx, calls);
      const request: SlotRun = {
        bindings: sdk.bindings,
        limits,
        signal: AbortSignal.any([ctx.signal, overHost.signal]),
        durable: ctx.durable,
        clock: ctx.clock,
        dispatch: (tool, args, signal, trace) =>
          meter.run(async (): Promise<DispatchResult> => {
            const r = await dispatch(tool, args, signal, trace);
            return r.ok
              ? { ok: true, value: r.value }
              : { ok: false, code: r.error.code, message: r.error.message };
          }),
        onLog: (entry) => ctx.emit({ type: 'log', level: entry.level, text: entry.text }),
      };
      const tq = performance.now();
      // Nothing to do between transpile and run without a check: one message does both.
      const started = checker ? undefined : slot.transpileAndRun(code, request);
      const transpiled = await (started?.verdict ?? slot.transpile(code));
      const t1 = performance.now();
      if (!transpiled.ok) {
        if ('crashed' in transpiled)
          throw failure('crashed', transpiled.crashed, { logs, calls }, notes);
        throw failure(
          'syntax',
          `the program does not parse:\n${formatDiagnostics(transpiled.diagnostics, { program: code })}`,
          { logs, calls, diagnostics: detailsDiagnostics(transpiled.diagnostics) },
          notes,
        );
      }
      const typecheckMs = checker ? await typeCheck(code, sdk, ctx, logs, calls, notes) : 0;
      const t2 = performance.now();
      const outcome: RunOutcome = (started && (await started.outcome)) ?? (await slot.run(request));
      logs.push(...outcome.logs);
      const timings: RunTimings = {
        queueMs: tq - t0,
        transpileMs: t1 - tq,
        typecheckMs,
        isolateMs: outcome.stats.isolateMs,
        runMs: performance.now() - t2 - outcome.stats.isolateMs,
        cpuMs: outcome.stats.cpuMs,
        hostMs: meter.ms,
        totalMs: performance.now() - t0,
      };
      if (meter.exceeded && !ctx.signal.aborted)
        throw failure(
          'host-limit',
          `the program's tool calls kept the host busy for more than ${limits.hostMs} ms (host time limit, hostMs); make fewer or cheaper calls`,
          { logs, calls },
          notes,
        );
      if (!outcome.ok) {
        const where =
          outcome.line !== undefined
            ? ` (program line ${outcome.line}${outcome.column !== undefined ? `, column ${outcome.column}` : ''})`
            : '';
        const details: Omit<RunFailureDetails, 'kind'> = { logs, calls };
        if (outcome.line !== undefined) details.line = outcome.line;
        if (outcome.column !== undefined) details.column = outcome.column;
        const frames = checkedFrames(outcome.frames);
        if (frames.length > 0) details.frames = frames;
        if (outcome.thrown !== undefined) details.thrown = outcome.thrown;
        throw failure(outcome.kind, `${outcome.message}${where}`, details, notes);
      }
      return {
        result: outcome.result,
        logs,
        calls,
        ...(notes.length > 0 ? { notes } : {}),
        timings,
      };
    } finally {
      done();
    }
  }

  /** Type-checks; throws the run's failure for type errors in mode `error`. Returns the time taken. */
  async function typeCheck(
    code: string,
    sdk: ScopeSdk,
    ctx: RunnerContext,
    logs: LogLine[],
    calls: CallLine[],
    notes: readonly string[],
  ): Promise<number> {
    if (!checker) return 0;
    const t = performance.now();
    let diagnostics: Diagnostic[];
    try {
      // The program was transpiled in its sandbox process: the checker gets that verdict and never
      // runs the transpiler in this process.
      // The scope is the check cache's partition: one tenant never gets (nor times) another's entry.
      diagnostics = await checker.check(code, sdk, {
        signal: ctx.signal,
        transpiled: { ok: true },
        partition: ctx.scope,
      });
    } catch (err) {
      if (ctx.signal.aborted)
        throw failure(
          'aborted',
          'the run was aborted during type-checking',
          { logs, calls },
          notes,
        );
      // The program made the checker hit its time or memory limit: the program's fault.
      if (isIsocodeError(err) && err.code === 'LIMIT_EXCEEDED')
        throw failure('typecheck', err.message, { logs, calls }, notes);
      throw failure(
        'internal',
        `the type-checker failed: ${thrownText(err)}`,
        { logs, calls },
        notes,
      );
    }
    const ms = performance.now() - t;
    const errors = diagnostics.filter((d) => d.category === 'error');
    ctx.emit({ type: 'typecheck', ok: errors.length === 0, ms, diagnostics: diagnostics.length });
    if (errors.length > 0 && typecheck === 'error') {
      const kind = errors.some((d) => d.kind === 'syntax') ? 'syntax' : 'typecheck';
      throw failure(
        kind,
        `the program does not type-check against the SDK; fix these and run it again:\n${formatDiagnostics(diagnostics, { program: code })}`,
        { logs, calls, diagnostics: detailsDiagnostics(diagnostics) },
        notes,
      );
    }
    if (diagnostics.length > 0) {
      const line: LogLine = {
        level: 'warn',
        text: `[typecheck] ${formatDiagnostics(diagnostics, { program: code })}`,
      };
      logs.push(line);
      ctx.emit({ type: 'log', ...line });
    }
    return ms;
  }

  async function check(
    program: string,
    sdk: { text: string; hash: string },
    signal?: AbortSignal,
    scope = '',
  ): Promise<ProgramDiagnostic[]> {
    const { code } = unfence(program);
    // A check counts against its scope's run slots until the compiler answers (one tenant's
    // checks queue behind its own slots, as its runs do); the sandbox slot is free after the transpile.
    const { slot, done, freeSlot } = await claim(scope, signal, undefined);
    try {
      let transpiled;
      try {
        transpiled = await slot.transpile(code);
      } finally {
        freeSlot();
      }
      if (!transpiled.ok) {
        if ('crashed' in transpiled)
          return [{ kind: 'syntax', message: transpiled.crashed, line: 0, column: 0 }];
        return detailsDiagnostics(transpiled.diagnostics);
      }
      const active = checker ?? createNativeChecker(checkerOptions);
      try {
        const options = { transpiled: { ok: true } as const, partition: scope };
        return detailsDiagnostics(
          await active.check(code, sdk, signal ? { ...options, signal } : options),
        );
      } finally {
        if (active !== checker) await active.close();
      }
    } finally {
      done();
    }
  }

  return {
    run,
    check,
    reserve: (scope) => admission.tryAcquire(scope),
    async warmup(sdks = []) {
      await Promise.all([
        host.warmup(),
        checker?.warmup(),
        ...(checker ? sdks.map((sdk) => checker.warmup(sdk)) : []),
      ]);
    },
    async close() {
      await Promise.allSettled([host.close(), checker?.close()]);
    },
    stats: () => ({
      sandbox: host.stats(),
      admission: admission.stats(),
      checker: checker?.stats(),
      wall: wall.status,
    }),
  };
}
