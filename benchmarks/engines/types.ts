/**
 * The pluggable engine interface: every runtime measured here (isocode and each baseline)
 * runs the same TypeScript programs against the same tool catalog through this shape.
 */
import type { JsonSchema, SchemaLike } from '../../src/tools/types.js';

/** A benchmark tool: a host function with a fake, latency-free body. */
export interface BenchTool {
  /** Dotted name: `kv.get` is called as `tools.kv.get(args)` from programs. */
  name: string;
  description: string;
  /** The input schema (zod 4 or JSON Schema); baselines ignore it, isocode validates against it. */
  input: SchemaLike;
  /** The input schema as JSON Schema, for engines that only take JSON Schema. */
  inputJsonSchema: JsonSchema;
  /** The output schema as JSON Schema (isocode renders SDK return types from it). */
  output: JsonSchema;
  /** Whether concurrent calls may overlap. */
  isConcurrencySafe: boolean;
  /** The body: synchronous, no I/O, JSON in and out. */
  execute: (args: Record<string, unknown>) => unknown;
}

/** A tool catalog: what an engine is set up with. */
export interface BenchCatalog {
  /** A short label such as `sdk-50`. */
  id: string;
  tools: readonly BenchTool[];
}

/** Per-stage timings a runtime may report (isocode's run_code timings). Milliseconds. */
export interface StageTimings {
  typecheckMs?: number;
  transpileMs?: number;
  isolateMs?: number;
  runMs?: number;
  settleMs?: number;
  /** CPU time of the program in its isolate. */
  cpuMs?: number;
  /** The runner's own total (the stages above); end to end minus this is executor and settle overhead. */
  totalMs?: number;
}

/** The outcome of one program run (or one direct tool call). */
export interface RunOutcome {
  ok: boolean;
  result?: unknown;
  /** Why it failed, when `ok` is false. */
  error?: string;
  timings?: StageTimings;
}

/** A runtime under test. One instance serves one catalog; runs may overlap. */
export interface Engine {
  /** Stable id used in tables and JSON, e.g. `isocode`, `worker-thread`. */
  name: string;
  /** Prepares the engine for `catalog` (builds SDKs, pools, tool tables). Called once. */
  setup(catalog: BenchCatalog): Promise<void>;
  /** Runs one TypeScript program; it reaches tools through a global `tools` object and may `return` a value. */
  runProgram(programTs: string): Promise<RunOutcome>;
  /** Releases everything (workers, isolates, child processes). */
  close(): Promise<void>;
  /** Calls one tool without a program, through the engine's normal dispatch path (the floor of scenario 1). */
  callDirect?(name: string, args: Record<string, unknown>): Promise<RunOutcome>;
  /** Runtime counters such as isolates alive or checker RSS; numbers only. */
  stats?(): Record<string, number>;
}

/** How the runner finds and creates an engine. */
export interface EngineFactory {
  name: string;
  kind: 'isocode' | 'baseline';
  /** Whether the engine type-checks programs (only isocode with typecheck on). */
  typecheck: boolean;
  /** One line for the report: what this engine is and how faithful it is. */
  description: string;
  /** Resolves to a reason when the engine cannot run here, `undefined` when it can. */
  probe(): Promise<string | undefined>;
  create(): Promise<Engine>;
}
