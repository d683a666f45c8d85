/** The isolate runner's options, stage timings and counters (`isolate-runner.ts`). */
import type { TypeChecker } from '../compile/index.js';
import type { SandboxLimits, SandboxPoolOptions } from '../sandbox/index.js';
import type { WorkerPoolOptions } from '../sandbox/worker/supervisor.js';
import type { WallMode, WallStatus } from '../wall/wall.js';
import type { AdmissionOptions, AdmissionStats } from './admission.js';
import type { ProgramHostStats } from './program-host.js';
import type { CodeRunner } from './types.js';

/** How type errors are treated. */
export type TypecheckMode = 'error' | 'warn' | 'off';

/** Options of the isolate runner. */
export interface IsolateRunnerOptions {
  /** `error`: a program with type errors does not run; `warn`: it runs and the diagnostics are logged; `off`: no check. @default "error" */
  typecheck?: TypecheckMode | undefined;
  /** Sandbox limits of every run (memory, CPU, wall clock, output, calls). @default the sandbox defaults */
  limits?: Partial<SandboxLimits> | undefined;
  /**
   * Where programs run. `process`: in supervised sandbox worker processes — a program that
   * crashes, pins or bloats its process fails only its own run. `in-process`: isolates in this
   * process — no process start, but NOT crash-safe (a hostile program can end the process or
   * grow it past any limit); for trusted programs only.
   * @default "process"
   */
  sandbox?: 'process' | 'in-process' | undefined;
  /** Sandbox worker processes (mode `process`). @default max(4, 2 × cores) workers of at most 256 MiB, 2 kept spare */
  workers?: WorkerPoolOptions | undefined;
  /** Isolate pool options (mode `in-process`). @default a warm pool of 2 isolates */
  pool?: SandboxPoolOptions | undefined;
  /** Runs at once and waiting, overall and per scope. @default see {@link AdmissionOptions} */
  admission?: AdmissionOptions | undefined;
  /** The type-checker. @default the native TypeScript 7 checker in its own process */
  checker?: TypeChecker | undefined;
  /** Per-scope limits layered over `limits` (for example a tenant with a smaller memory budget). */
  scopeLimits?: Readonly<Record<string, Partial<SandboxLimits>>> | undefined;
  /**
   * The second wall around the processes that touch program text — the sandbox workers and the
   * checker (decision record 032). `auto`: bubblewrap where it works here, else one warning and
   * the wall reported off (`stats().wall`, `/healthz`, metrics); `bwrap`: refuse to start without
   * it (INVALID_CONFIG); `none`: off.
   * @default "auto"
   */
  wall?: WallMode | undefined;
}

/** Stage timings of one run, in milliseconds. */
export interface RunTimings {
  /** Waiting for a run slot (admission) and a sandbox process. */
  queueMs: number;
  transpileMs: number;
  typecheckMs: number;
  isolateMs: number;
  runMs: number;
  cpuMs: number;
  /** Host time the run's tool calls caused (host-meter.ts). */
  hostMs: number;
  totalMs: number;
}

/** The isolate runner, with its counters. */
export interface IsolateRunner extends CodeRunner {
  stats(): {
    sandbox: ProgramHostStats;
    admission: AdmissionStats;
    checker: ReturnType<TypeChecker['stats']> | undefined;
    /** Whether the second wall is up. */
    wall: WallStatus;
  };
}
