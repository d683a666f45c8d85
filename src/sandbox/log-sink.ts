/**
 * The host side of the program's console for one run. The host is authoritative about the byte
 * budget (the isolate counts too, but may be subverted): each entry costs its UTF-8 length plus
 * one; the entry that crosses `maxLogBytes` is kept cut to what fits, later ones are dropped, and
 * `onOverflow` fires once (the run then ends with `output-limit`).
 */
import { LOG_LEVELS } from '../../sdk-templates/isolate/protocol.js';
import { truncateUtf8 } from '../../sdk-templates/isolate/text.js';
import type { LogEntry } from './types.js';

/** Collects console entries within a byte budget. */
export class LogSink {
  /** The kept entries, in order. */
  readonly entries: LogEntry[] = [];
  /** UTF-8 bytes of the kept entries (each plus one). */
  bytes = 0;
  /** True once an entry did not fit. */
  overflowed = false;
  private closed = false;

  constructor(
    private readonly maxBytes: number,
    private readonly onEntry: ((entry: LogEntry) => void) | undefined,
    private readonly onOverflow: () => void,
  ) {}

  /** Receives one entry from the isolate (hostile input: anything malformed is ignored). */
  push(level: unknown, text: unknown): void {
    if (this.closed || this.overflowed) return;
    if (
      typeof level !== 'string' ||
      !(LOG_LEVELS as readonly string[]).includes(level) ||
      typeof text !== 'string'
    )
      return;
    const cost = Buffer.byteLength(text) + 1;
    if (this.bytes + cost > this.maxBytes) {
      this.overflowed = true;
      const kept = truncateUtf8(text, this.maxBytes - this.bytes - 1);
      if (kept !== '')
        this.keep({ level: level as LogEntry['level'], text: kept }, Buffer.byteLength(kept) + 1);
      this.onOverflow();
      return;
    }
    this.keep({ level: level as LogEntry['level'], text }, cost);
  }

  private keep(entry: LogEntry, cost: number): void {
    this.entries.push(entry);
    this.bytes += cost;
    try {
      this.onEntry?.(entry);
    } catch {
      // observers cannot break the run
    }
  }

  /** Ignores every later entry (the run is over). */
  close(): void {
    this.closed = true;
  }
}
