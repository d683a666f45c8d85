/**
 * The program's `console`: `log`, `info`, `warn`, `error` and `debug`. Arguments are formatted in
 * the isolate (see `formatArgs`), bytes are counted here as well as on the host, and once the
 * budget is spent nothing more is sent: the entry that crosses the cap is sent cut to just past it
 * (so the host sees the overflow and ends the run with `output-limit`), later entries are dropped.
 */
import type { Send, Wire } from './host-ref.js';
import { LOG_LEVELS, MESSAGE, type LogLevel, type RunLimits } from './protocol.js';
import { ObjectCreate, ObjectDefineProperty, ObjectFreeze } from './primordials.js';
import { formatArgs, truncateUtf8, utf8Length } from './text.js';

/** The console object installed on the program's global. */
export type ProgramConsole = Readonly<Record<LogLevel, (...args: unknown[]) => void>>;

/**
 * Builds the console (`limits.maxLogBytes` is read at each entry). Each entry costs its UTF-8
 * length plus one byte (the line break), so a flood of empty lines is bounded too. Nothing is sent
 * once `wire.closed`.
 */
export function createConsole(send: Send, limits: RunLimits, wire: Wire): ProgramConsole {
  let used = 0;
  let stopped = false;

  const write = (level: LogLevel, args: unknown[]): void => {
    if (stopped || wire.closed) return;
    let text = formatArgs(args);
    const remaining = limits.maxLogBytes - used;
    // UTF-8 never takes fewer bytes than UTF-16 units: a text longer than the budget is over it.
    const cost = text.length + 1 > remaining ? remaining + 1 : utf8Length(text) + 1;
    if (cost > remaining) {
      stopped = true;
      text = truncateUtf8(text, remaining + 1);
    }
    used += cost;
    try {
      send([MESSAGE.log, level, text]);
      wire.sent++;
    } catch {
      stopped = true;
    }
  };

  const target = ObjectCreate(null) as Record<LogLevel, (...args: unknown[]) => void>;
  for (let i = 0; i < LOG_LEVELS.length; i++) {
    const level = LOG_LEVELS[i] as LogLevel;
    const method = (...args: unknown[]): void => write(level, args);
    ObjectDefineProperty(method, 'name', { value: level });
    ObjectDefineProperty(target, level, { value: ObjectFreeze(method), enumerable: true });
  }
  return ObjectFreeze(target);
}
