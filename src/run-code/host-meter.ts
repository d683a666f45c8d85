/**
 * Host time per run (docs/decisions/029-host-work.md): the time the host's thread spends on a run's
 * nested calls — validation, hooks, guards, approval bookkeeping, the tool bodies, result encoding —
 * measured per async continuation. Each nested call is dispatched inside the run's meter (an
 * AsyncLocalStorage context), and one process-wide async hook adds the duration of every callback
 * that runs in a meter's context to it. Time spent waiting (I/O, timers, a human) is not counted;
 * only the host thread's busy time is. Past the run's `hostMs` limit the meter says so once, and the
 * runner ends the run (`host-limit`).
 *
 * Nested sections are counted once: the outermost metered one (an unmetered callback, such as the
 * worker's message handler, may contain a metered dispatch).
 */
import { AsyncLocalStorage, createHook } from 'node:async_hooks';

const storage = new AsyncLocalStorage<HostMeter>();
/** Callbacks (or {@link HostMeter.run} sections) currently running on this thread, nested. */
let depth = 0;
/** The outermost metered section running now, and the depth it started at. */
let measuring: { meter: HostMeter; since: number; at: number } | undefined;
let hooked = false;

function enter(meter: HostMeter | undefined): void {
  depth += 1;
  if (measuring === undefined && meter !== undefined)
    measuring = { meter, since: performance.now(), at: depth };
}

function leave(): void {
  if (measuring !== undefined && measuring.at >= depth) {
    const { meter, since } = measuring;
    measuring = undefined;
    meter.add(performance.now() - since);
  }
  depth = Math.max(0, depth - 1);
}

/** The hook is enabled on the first meter and stays (its cost is one check per callback). */
function hook(): void {
  if (hooked) return;
  hooked = true;
  createHook({
    before: () => enter(storage.getStore()),
    after: leave,
  }).enable();
}

/** The host time of one run. */
export class HostMeter {
  /** Host time counted so far, in ms. */
  ms = 0;
  /** True once {@link ms} went over the limit. */
  exceeded = false;

  constructor(
    /** The run's `hostMs` limit. */
    readonly limitMs: number,
    private readonly onExceeded: () => void,
  ) {
    hook();
  }

  /** Runs `fn` with this meter as the async context (so its continuations are metered), timed. */
  run<T>(fn: () => T): T {
    enter(this);
    try {
      return storage.run(this, fn);
    } finally {
      leave();
    }
  }

  /** Adds `ms` of host time; past the limit, calls `onExceeded` once. */
  add(ms: number): void {
    this.ms += ms;
    if (!this.exceeded && this.ms > this.limitMs) {
      this.exceeded = true;
      try {
        this.onExceeded();
      } catch {
        // the runner's abort cannot fail the callback that crossed the limit
      }
    }
  }
}
