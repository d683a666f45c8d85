/**
 * Where programs are transpiled and run. The default host is a pool of sandbox worker processes
 * (src/sandbox/worker): a program that crashes, pins or bloats its process costs that process, not
 * the host. The in-process host runs isolates in this process: faster to start, and not crash-safe
 * (a hostile program can end the process; decision record 016) — for trusted programs only.
 * A slot is one run's claim on a host: transpile, then run what was transpiled, then release.
 */
import { transpileGuarded } from '../compile/guarded-transpile.js';
import type { Diagnostic, TranspileResult } from '../compile/types.js';
import { SandboxPool, type SandboxPoolOptions } from '../sandbox/index.js';
import type { RunOutcome, RunRequest, SandboxLimits } from '../sandbox/types.js';
import type { WorkerRun } from '../sandbox/worker/worker-run.js';
import {
  WorkerPool,
  type WorkerPoolOptions,
  type WorkerPoolStats,
} from '../sandbox/worker/supervisor.js';
import type { SandboxPoolStats } from '../sandbox/pool-options.js';
import type { Wall } from '../wall/wall.js';

/** What a transpile says: fine, the program's syntax errors, or the process that tried died. */
export type TranspileVerdict =
  { ok: true } | { ok: false; diagnostics: Diagnostic[] } | { ok: false; crashed: string };

/** A run as a slot takes it: the program is the one transpiled there. */
export type SlotRun = Omit<RunRequest, 'js' | 'mapPosition'> & { limits: SandboxLimits };

/** One run's claim on a program host. */
export interface ProgramSlot {
  /** Transpiles `code` where it will run. */
  transpile(code: string): Promise<TranspileVerdict>;
  /** Runs the program of the last successful {@link transpile}. Never rejects. */
  run(request: SlotRun): Promise<RunOutcome>;
  /**
   * Transpiles `code` and, when it transpiled, runs it at once — for a run with nothing to do in
   * between (no type-check): a sandbox worker gets both in one message, not two round trips.
   * `verdict` settles first; `outcome` is undefined when the program did not transpile. Never rejects.
   */
  transpileAndRun(
    code: string,
    request: SlotRun,
  ): { verdict: Promise<TranspileVerdict>; outcome: Promise<RunOutcome | undefined> };
  /** Gives the slot back (idempotent). */
  release(): void;
}

/** Counters of a program host. */
export interface ProgramHostStats {
  mode: 'process' | 'in-process';
  isolates?: SandboxPoolStats | undefined;
  workers?: WorkerPoolStats | undefined;
}

/** Runs programs. */
export interface ProgramHost {
  /** Programs this host runs at once at most (admission control's default). */
  readonly capacity: number;
  /**
   * True when `capacity` is a hard bound (a pool of worker processes): a program admitted past it
   * would be refused `OVERLOADED`, so admission may not allow more.
   */
  readonly bounded: boolean;
  slot(partition: string): Promise<ProgramSlot>;
  warmup(): Promise<void>;
  close(): Promise<void>;
  stats(): ProgramHostStats;
}

/** The default: sandbox worker processes. */
export function workerHost(
  options: WorkerPoolOptions,
  limits: SandboxLimits,
  wall?: Wall,
): ProgramHost {
  const pool = new WorkerPool(options, limits, wall);
  return {
    capacity: pool.maxWorkers,
    bounded: true,
    async slot(partition) {
      let worker = await pool.lease(partition);
      let program: number | undefined;
      let released = false;
      let lastOutcome: RunOutcome | undefined;
      const crashedTwice: TranspileVerdict = {
        ok: false,
        crashed:
          'the sandbox process crashed while transpiling the program, twice (very deeply nested code can do that: flatten it)',
      };
      const workerRun = (request: SlotRun): WorkerRun => ({
        bindings: request.bindings,
        limits: request.limits,
        partition,
        dispatch: request.dispatch,
        signal: request.signal,
        onLog: request.onLog,
        durable: request.durable,
        clock: request.clock,
      });
      const slot: ProgramSlot = {
        async transpile(code) {
          program = undefined;
          let reply = await worker.transpile(code);
          if (reply === undefined) {
            // The worker died: maybe this program crashed the parser, maybe the process was lost
            // for another reason just before. One more try on a fresh worker tells them apart.
            pool.release(worker);
            worker = await pool.lease(partition);
            reply = await worker.transpile(code);
          }
          if (reply === undefined) return crashedTwice;
          if (!reply.verdict.ok) return { ok: false, diagnostics: reply.verdict.diagnostics };
          program = reply.program;
          return { ok: true };
        },
        async run(request) {
          if (program === undefined) throw new Error('no transpiled program');
          const outcome = await worker.run(program, workerRun(request));
          lastOutcome = outcome;
          return outcome;
        },
        transpileAndRun(code, request) {
          program = undefined;
          const first = worker.transpileAndRun(code, workerRun(request));
          // The worker died while transpiling: the two-step path on a fresh worker tells a
          // program that crashes the parser from a process lost for another reason (as transpile).
          const retried = first.verdict.then((reply) =>
            reply === undefined ? slot.transpile(code) : undefined,
          );
          const verdict = first.verdict.then(async (reply): Promise<TranspileVerdict> => {
            if (reply === undefined) return (await retried) ?? crashedTwice;
            return reply.ok ? { ok: true } : { ok: false, diagnostics: reply.diagnostics };
          });
          const outcome = verdict.then(async (v): Promise<RunOutcome | undefined> => {
            if (!v.ok) return undefined;
            const out =
              (await retried) === undefined ? await first.outcome : await slot.run(request);
            lastOutcome = out;
            return out;
          });
          return { verdict, outcome };
        },
        release() {
          if (released) return;
          released = true;
          pool.release(worker, lastOutcome);
        },
      };
      return slot;
    },
    warmup: () => pool.warmup(),
    close: () => pool.close(),
    stats: () => ({ mode: 'process', workers: pool.stats() }),
  };
}

/** Isolates in this process. Not crash-safe: for trusted programs only. */
export function inProcessHost(options: SandboxPoolOptions, capacity: number): ProgramHost {
  const pool = new SandboxPool(options);
  return {
    capacity,
    bounded: false,
    // eslint-disable-next-line @typescript-eslint/require-await
    async slot(partition) {
      let program: (TranspileResult & { ok: true }) | undefined;
      const slot: ProgramSlot = {
        // eslint-disable-next-line @typescript-eslint/require-await
        async transpile(code) {
          const result = transpileGuarded(code);
          program = result.ok ? result : undefined;
          return result.ok ? { ok: true } : { ok: false, diagnostics: result.diagnostics };
        },
        run(request) {
          const current = program;
          if (current === undefined) throw new Error('no transpiled program');
          return pool.run({
            ...request,
            js: current.js,
            mapPosition: (line, column) => current.mapPosition(line, column),
            partition,
          });
        },
        transpileAndRun(code, request) {
          const verdict = slot.transpile(code);
          const outcome = verdict.then((v) => (v.ok ? slot.run(request) : undefined));
          return { verdict, outcome };
        },
        release() {},
      };
      return slot;
    },
    warmup: () => pool.warmup(),
    close: () => pool.close(),
    stats: () => ({ mode: 'in-process', isolates: pool.stats() }),
  };
}
