/**
 * The measuring loops: warm-up excluded, `process.hrtime.bigint()` per sample, and engines
 * interleaved block by block so slow drift (thermal, GC, neighbours on the machine) spreads
 * over every subject instead of landing on whichever ran last.
 */
import type { Progress } from './progress.js';
import { startResourceMeter } from './resources.js';
import type { ResourceUsage } from './resources.js';

/** One thing being measured: `run` performs one operation and throws if it failed. */
export interface Subject {
  id: string;
  run: () => Promise<unknown>;
}

/** Samples and failures of one subject. */
export interface SubjectSamples {
  /** Milliseconds per successful operation, warm-up excluded. */
  samples: number[];
  errors: number;
  firstError: string | undefined;
}

/** Options for {@link measureInterleaved}. */
export interface InterleaveOptions {
  /** Unmeasured operations per subject before measuring. */
  warmup: number;
  /** Measured operations per subject. */
  iterations: number;
  /** Operations per subject per block; the subject order rotates every block. @default 10 */
  blockSize?: number;
  progress?: Progress | undefined;
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function emptySamples(): SubjectSamples {
  return { samples: [], errors: 0, firstError: undefined };
}

async function timeOnce(subject: Subject, into: SubjectSamples, record: boolean): Promise<void> {
  const start = process.hrtime.bigint();
  try {
    await subject.run();
    if (record) into.samples.push(Number(process.hrtime.bigint() - start) / 1e6);
  } catch (error) {
    into.errors += 1;
    into.firstError ??= describe(error);
  }
}

/**
 * Measures every subject, interleaved: warm-up for each, then blocks of `blockSize`
 * operations per subject, rotating which subject goes first. A subject that fails keeps
 * being tried (its errors are counted) so one broken engine does not hide the others.
 */
export async function measureInterleaved(
  subjects: readonly Subject[],
  options: InterleaveOptions,
): Promise<Map<string, SubjectSamples>> {
  const results = new Map<string, SubjectSamples>(subjects.map((s) => [s.id, emptySamples()]));
  const blockSize = Math.max(1, options.blockSize ?? 10);
  for (const subject of subjects) {
    const into = results.get(subject.id) ?? emptySamples();
    for (let i = 0; i < options.warmup; i++) await timeOnce(subject, into, false);
    options.progress?.tick(options.warmup);
  }
  const blocks = Math.ceil(options.iterations / blockSize);
  for (let block = 0; block < blocks; block++) {
    const count = Math.min(blockSize, options.iterations - block * blockSize);
    for (let k = 0; k < subjects.length; k++) {
      const subject = subjects[(block + k) % subjects.length];
      if (subject === undefined) continue;
      const into = results.get(subject.id) ?? emptySamples();
      for (let i = 0; i < count; i++) await timeOnce(subject, into, true);
      options.progress?.tick(count);
    }
  }
  return results;
}

/** What {@link measureThroughput} reports for one subject. */
export interface ThroughputResult {
  concurrency: number;
  runs: number;
  errors: number;
  firstError: string | undefined;
  wallMs: number;
  runsPerSecond: number;
  /** Process CPU time per successful run (this process's threads: isolates, workers). */
  cpuMsPerRun: number;
  /** CPU time of child processes per successful run (isocode: the type-checker). */
  childCpuMsPerRun: number;
  peakRssBytes: number;
}

/** Runs `total` operations with `concurrency` in flight, recording wall, CPU and RSS. */
async function runConcurrent(
  subject: Subject,
  concurrency: number,
  total: number,
  progress: Progress | undefined,
): Promise<{ usage: ResourceUsage; ok: number; errors: number; firstError: string | undefined }> {
  let next = 0;
  let ok = 0;
  let errors = 0;
  let firstError: string | undefined;
  const meter = startResourceMeter();
  const lane = async (): Promise<void> => {
    while (next < total) {
      next += 1;
      try {
        await subject.run();
        ok += 1;
      } catch (error) {
        errors += 1;
        firstError ??= describe(error);
      }
      progress?.tick();
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, total)) }, lane));
  return { usage: meter.stop(), ok, errors, firstError };
}

/** Options for {@link measureThroughput}. */
export interface ThroughputOptions {
  concurrency: number;
  /** Unmeasured operations per subject (run at the same concurrency). */
  warmup: number;
  /** Measured operations per subject, split into `blocks` interleaved blocks. */
  runs: number;
  /** @default 3 */
  blocks?: number;
  progress?: Progress | undefined;
}

/** Throughput of every subject at one concurrency, interleaved in blocks. */
export async function measureThroughput(
  subjects: readonly Subject[],
  options: ThroughputOptions,
): Promise<Map<string, ThroughputResult>> {
  // Every block keeps all lanes busy: at least `concurrency` runs per block.
  const blocks = Math.max(
    1,
    Math.min(options.blocks ?? 3, Math.floor(options.runs / options.concurrency)),
  );
  const acc = new Map<string, ThroughputResult>();
  for (const subject of subjects) {
    await runConcurrent(subject, options.concurrency, options.warmup, undefined);
    options.progress?.tick(options.warmup);
    acc.set(subject.id, {
      concurrency: options.concurrency,
      runs: 0,
      errors: 0,
      firstError: undefined,
      wallMs: 0,
      runsPerSecond: 0,
      cpuMsPerRun: 0,
      childCpuMsPerRun: 0,
      peakRssBytes: 0,
    });
  }
  const perBlock = Math.ceil(options.runs / blocks);
  const cpu = new Map<string, number>();
  const childCpu = new Map<string, number>();
  for (let block = 0; block < blocks; block++) {
    const count = Math.min(perBlock, options.runs - block * perBlock);
    for (let k = 0; k < subjects.length && count > 0; k++) {
      const subject = subjects[(block + k) % subjects.length];
      const into = subject === undefined ? undefined : acc.get(subject.id);
      if (subject === undefined || into === undefined) continue;
      const outcome = await runConcurrent(subject, options.concurrency, count, options.progress);
      into.runs += outcome.ok;
      into.errors += outcome.errors;
      into.firstError ??= outcome.firstError;
      into.wallMs += outcome.usage.wallMs;
      into.peakRssBytes = Math.max(into.peakRssBytes, outcome.usage.peakRssBytes);
      cpu.set(subject.id, (cpu.get(subject.id) ?? 0) + outcome.usage.cpuMs);
      childCpu.set(subject.id, (childCpu.get(subject.id) ?? 0) + outcome.usage.childCpuMs);
    }
  }
  for (const [id, into] of acc) {
    into.runsPerSecond = into.wallMs > 0 ? (into.runs * 1000) / into.wallMs : 0;
    into.cpuMsPerRun = into.runs > 0 ? (cpu.get(id) ?? 0) / into.runs : Number.NaN;
    into.childCpuMsPerRun = into.runs > 0 ? (childCpu.get(id) ?? 0) / into.runs : Number.NaN;
  }
  return acc;
}
