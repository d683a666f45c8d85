/**
 * The compiler process's memory cap: while checks are in the compiler, its RSS is polled; over the limit,
 * the check that has been in the compiler the longest is blamed (a type-level bomb runs for seconds,
 * ordinary checks for milliseconds) and the owner kills the process.
 */

import { IsocodeError } from '../errors.js';

/** One check while it is in the compiler. */
export interface Ticket {
  since: number;
}

/** What crossing the limit means: the blamed check's error, and the failure every other check sees. */
interface MemoryVerdict {
  blamed: Ticket | undefined;
  error: IsocodeError;
  failure: IsocodeError;
}

/** How often the RSS is read while a check is in the compiler (one small /proc read). */
const POLL_MS = 100;
const MIB = 1024 * 1024;

export class MemoryWatch {
  private readonly inCompiler = new Set<Ticket>();
  private poll: NodeJS.Timeout | undefined;

  constructor(
    private readonly limitBytes: number,
    private readonly rssBytes: () => number,
    private readonly onExceeded: (verdict: MemoryVerdict) => void,
  ) {}

  /** A check enters the compiler: memory is watched until every check has left. */
  enter(ticket: Ticket): void {
    ticket.since = performance.now();
    this.inCompiler.add(ticket);
    this.poll ??= setInterval(() => this.measure(), POLL_MS).unref();
  }

  leave(ticket: Ticket): void {
    this.inCompiler.delete(ticket);
    if (this.inCompiler.size === 0) this.stop();
  }

  stop(): void {
    if (this.poll !== undefined) clearInterval(this.poll);
    this.poll = undefined;
  }

  private measure(): void {
    const rss = this.rssBytes();
    const limit = this.limitBytes;
    if (rss <= limit) return;
    this.stop();
    let blamed: Ticket | undefined;
    for (const ticket of this.inCompiler)
      if (!blamed || ticket.since < blamed.since) blamed = ticket;
    const sizes = `${Math.round(rss / MIB)} MiB, over its limit maxRssBytes = ${Math.round(limit / MIB)} MiB`;
    this.onExceeded({
      blamed,
      error: new IsocodeError(
        'LIMIT_EXCEEDED',
        `the type check exceeded the type-checker's memory limit (the compiler reached ${sizes}) and was stopped; simplify the program's types`,
        { details: { kind: 'typecheck', limit: 'maxRssBytes', limitBytes: limit, rssBytes: rss } },
      ),
      failure: new IsocodeError(
        'INTERNAL_ERROR',
        `the TypeScript compiler process was killed (memory ${sizes}); it is restarted on the next check`,
      ),
    });
  }
}
