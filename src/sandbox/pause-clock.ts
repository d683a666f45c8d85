/**
 * A run's wall clock that stops while a nested call waits on a human (an approval): the time a
 * person takes to decide is not the program's. Pauses nest (`Promise.all` of three asks is one
 * pause until the last is decided). CPU time needs no pause: an isolate awaiting uses none.
 */

/** A pausable wall clock (performance.now() milliseconds). */
export class PauseClock {
  #depth = 0;
  #since = 0;
  #total = 0;
  readonly #listeners = new Set<(paused: boolean) => void>();

  /** True while at least one pause is held. */
  get paused(): boolean {
    return this.#depth > 0;
  }

  /** Milliseconds paused so far (including a pause in progress). */
  pausedMs(now: number = performance.now()): number {
    return this.#total + (this.#depth > 0 ? now - this.#since : 0);
  }

  /** Wall time elapsed since `start`, minus the time paused since then (pauses before `start` excluded by the caller). */
  elapsed(start: number, pausedAtStart: number, now: number = performance.now()): number {
    return now - start - (this.pausedMs(now) - pausedAtStart);
  }

  /** Holds a pause. @returns the release (idempotent). */
  pause(): () => void {
    if (this.#depth++ === 0) {
      this.#since = performance.now();
      this.#notify(true);
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      if (--this.#depth === 0) {
        this.#total += performance.now() - this.#since;
        this.#notify(false);
      }
    };
  }

  /** Called with `true` when the clock stops and `false` when it runs again. @returns the unsubscribe. */
  onChange(listener: (paused: boolean) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  #notify(paused: boolean): void {
    for (const l of this.#listeners) {
      try {
        l(paused);
      } catch {
        // a listener's failure is its own
      }
    }
  }
}

/** A timer that runs on a {@link PauseClock}: it fires after `ms` of unpaused time. */
export interface PausableTimer {
  cancel(): void;
}

/** Calls `fire` once `ms` of `clock`'s unpaused time has passed (plain time without a clock). */
export function pausableTimer(
  clock: PauseClock | undefined,
  ms: number,
  fire: () => void,
  onPauseChange?: (paused: boolean) => void,
): PausableTimer {
  const start = performance.now();
  const pausedAtStart = clock?.pausedMs(start) ?? 0;
  let timer: NodeJS.Timeout | undefined;
  const arm = (): void => {
    clearTimeout(timer);
    timer = undefined;
    if (clock?.paused) return;
    const used = clock ? clock.elapsed(start, pausedAtStart) : performance.now() - start;
    timer = setTimeout(fire, Math.max(0, ms - used));
  };
  const off = clock?.onChange((paused) => {
    onPauseChange?.(paused);
    arm();
  });
  if (clock?.paused) onPauseChange?.(true);
  arm();
  return {
    cancel: () => {
      clearTimeout(timer);
      off?.();
    },
  };
}
