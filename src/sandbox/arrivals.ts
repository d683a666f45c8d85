/**
 * Counts the messages (console entries, binding calls) that reached the host from one isolate.
 * isolated-vm delivers them and the program's outcome through different queues, so the outcome
 * can overtake them; the outcome says how many were sent and the run waits for them here.
 */
export class Arrivals {
  private count = 0;
  private waiter: { target: number; done: () => void } | undefined;

  /** Records one arrival. */
  arrive(): void {
    this.count++;
    if (this.waiter !== undefined && this.count >= this.waiter.target) this.waiter.done();
  }

  /** Messages arrived so far. */
  get arrived(): number {
    return this.count;
  }

  /**
   * Resolves `true` once `target` messages have arrived, or `false` after `graceMs` (a lying or
   * broken isolate cannot hold the run).
   */
  waitFor(target: number, graceMs: number): Promise<boolean> {
    if (this.count >= target) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(
        () => {
          this.waiter = undefined;
          resolve(false);
        },
        Math.max(0, graceMs),
      );
      this.waiter = {
        target,
        done: () => {
          clearTimeout(timer);
          this.waiter = undefined;
          resolve(true);
        },
      };
    });
  }
}
