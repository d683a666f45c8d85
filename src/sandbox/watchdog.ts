/**
 * One timer for all running programs of a pool (and the renewals of reused isolates). isolated-vm's
 * `timeout` option only covers synchronous execution, so a program that spins after an `await` is
 * stopped here: every tick polls each run's `isolate.cpuTime` and wall clock, and the run disposes
 * its isolate when over. A tick costs ~1.5 µs per watched item; no difference in throughput was
 * measurable against a 1 s interval (decision record 004).
 */

/** Something the watchdog polls. */
export interface Watched {
  /** Checks the run's clocks; disposes its isolate when a limit is over. Must not throw. */
  check(now: number): void;
}

/** A polling watchdog; its timer runs only while something is watched. */
export class Watchdog {
  private readonly watched = new Set<Watched>();
  private timer: NodeJS.Timeout | undefined;

  /** @param intervalMs polling period in ms */
  constructor(private readonly intervalMs: number) {}

  /** Starts watching. */
  add(item: Watched): void {
    this.watched.add(item);
    this.timer ??= setInterval(() => this.tick(), this.intervalMs);
  }

  /** Stops watching. */
  delete(item: Watched): void {
    this.watched.delete(item);
    if (this.watched.size === 0 && this.timer !== undefined) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
  }

  private tick(): void {
    const now = performance.now();
    for (const item of this.watched) {
      try {
        item.check(now);
      } catch {
        // a broken check must not stop the others
      }
    }
  }
}
