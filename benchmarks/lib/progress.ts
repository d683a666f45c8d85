/**
 * Progress reporting on stderr: a redrawn bar on a TTY, plain line updates otherwise,
 * nothing at all under `CI=true` (or when asked to be quiet).
 */

/** A progress reporter for one task at a time. */
export interface Progress {
  /** Starts a task of `total` steps (replaces any running task). */
  start(label: string, total: number): void;
  /** Advances the running task by `steps`. @default 1 */
  tick(steps?: number): void;
  /** Finishes the running task. */
  done(): void;
  /** Prints a one-line note (above the bar on a TTY). */
  note(message: string): void;
}

/** Options for {@link createProgress}. */
export interface ProgressOptions {
  /** Where to draw. @default process.stderr */
  stream?: NodeJS.WriteStream;
  /** Suppress everything. @default true when `process.env.CI` is `true` or `1` */
  quiet?: boolean;
}

const BAR_WIDTH = 24;
const REDRAW_EVERY_MS = 60;
const PLAIN_STEPS = 4;

/** Creates a progress reporter. */
export function createProgress(options: ProgressOptions = {}): Progress {
  const stream = options.stream ?? process.stderr;
  const quiet = options.quiet ?? (process.env.CI === 'true' || process.env.CI === '1');
  const tty = stream.isTTY;
  let label = '';
  let total = 0;
  let current = 0;
  let lastDraw = 0;
  let lastPlainStep = -1;
  let active = false;

  const bar = (): string => {
    const fraction = total > 0 ? Math.min(1, current / total) : 1;
    const filled = Math.round(fraction * BAR_WIDTH);
    const percent = Math.floor(fraction * 100);
    return `${label} [${'#'.repeat(filled)}${'.'.repeat(BAR_WIDTH - filled)}] ${percent}% ${current}/${total}`;
  };
  const draw = (force: boolean): void => {
    if (quiet || !active) return;
    if (tty) {
      const now = Date.now();
      if (!force && now - lastDraw < REDRAW_EVERY_MS) return;
      lastDraw = now;
      stream.write(`\r\x1b[2K${bar()}`);
      return;
    }
    const step =
      total > 0 ? Math.floor((Math.min(current, total) / total) * PLAIN_STEPS) : PLAIN_STEPS;
    if (step !== lastPlainStep || force) {
      lastPlainStep = step;
      stream.write(`${bar()}\n`);
    }
  };
  const clearLine = (): void => {
    if (!quiet && tty && active) stream.write('\r\x1b[2K');
  };

  return {
    start(nextLabel, nextTotal) {
      if (active) this.done();
      label = nextLabel;
      total = Math.max(0, nextTotal);
      current = 0;
      lastDraw = 0;
      lastPlainStep = -1;
      active = true;
      draw(true);
    },
    tick(steps = 1) {
      current += steps;
      draw(false);
    },
    done() {
      if (!active) return;
      current = Math.max(current, total);
      if (tty) {
        clearLine();
      } else if (lastPlainStep !== PLAIN_STEPS) {
        draw(true);
      }
      active = false;
    },
    note(message) {
      if (quiet) return;
      clearLine();
      stream.write(`${message}\n`);
      if (tty) draw(true);
    },
  };
}
