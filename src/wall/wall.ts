/**
 * The second wall's mode and whether this host has it. `auto` (the default) walls the sandbox workers
 * and the checker when bubblewrap works here and otherwise starts with one loud warning and reports
 * the wall off (`/healthz`, metrics, `stats()`); `bwrap` refuses to start without it; `none` turns it
 * off. The probe runs once per process, bubblewrap path and post-exec library: a walled start that
 * shows the post-exec filter working (which shows the wall working), else a walled `node --version`.
 */
import { IsocodeError } from '../errors.js';
import { findExecutable, probeNoExec, probeWall, type WallTools } from './bwrap.js';

/** How the processes that touch program text are walled. */
export type WallMode = 'auto' | 'bwrap' | 'none';

export const WALL_MODES: readonly WallMode[] = ['auto', 'bwrap', 'none'];

/** What a runtime reports about its wall. */
export interface WallStatus {
  /** The mode asked for. */
  mode: WallMode;
  /** True when the sandbox workers and the checker run behind bubblewrap. */
  active: boolean;
  /** Why it is off, when it is. */
  reason?: string | undefined;
  /**
   * True when a built sandbox worker also refuses `execve` and `execveat` once started (firejail's
   * post-exec filter library; src/wall/postexec.ts). Always false while the wall is off.
   */
  noExec: boolean;
  /** Why `execve` after start is not refused, when the wall is on but `noExec` is false. */
  noExecReason?: string | undefined;
}

/** A resolved wall: its status and, when active, the tools to build it with. */
export interface Wall {
  status: WallStatus;
  /** Defined exactly when `status.active`. */
  tools: WallTools | undefined;
}

/** The wall's off state, for processes started without one. */
export const NO_WALL: Wall = {
  status: { mode: 'none', active: false, reason: 'turned off (wall: "none")', noExec: false },
  tools: undefined,
};

interface Probe {
  tools: WallTools | undefined;
  failure: string | undefined;
  noExecReason: string | undefined;
}

const probes = new Map<string, Probe>();
let warned = false;
let warnedNoExec = false;

/**
 * The bubblewrap binary: `ISOCODE_BWRAP` (an absolute path, for a non-standard install; a missing
 * one makes the wall unavailable, which is how tests force the capability check off), else `bwrap`
 * on PATH.
 */
function bwrapPath(): string {
  return process.env.ISOCODE_BWRAP ?? 'bwrap';
}

function probe(): Probe {
  const key = `${bwrapPath()}\0${process.env.ISOCODE_POSTEXEC_SECCOMP ?? ''}`;
  let known = probes.get(key);
  if (known === undefined) {
    const bwrap = findExecutable(bwrapPath());
    const prlimit = findExecutable('prlimit');
    const tools = bwrap !== undefined && prlimit !== undefined ? { bwrap, prlimit } : undefined;
    // Where the post-exec filter works, so does the wall (one walled start); else ask the wall alone.
    const full =
      process.platform === 'linux' && tools !== undefined
        ? probeNoExec(tools, process.execPath)
        : undefined;
    const failure = full?.noExec !== undefined ? undefined : probeWall(tools, process.execPath);
    known =
      tools === undefined || failure !== undefined
        ? { tools: undefined, failure, noExecReason: undefined }
        : { tools: { ...tools, noExec: full?.noExec }, failure, noExecReason: full?.why };
    probes.set(key, known);
  }
  return known;
}

/**
 * Resolves `mode` on this host.
 * @throws IsocodeError `INVALID_CONFIG` for an unknown mode, or mode `bwrap` where bubblewrap
 * cannot start a sandbox.
 */
export function resolveWall(mode: WallMode = 'auto', options: { quiet?: boolean } = {}): Wall {
  if (!WALL_MODES.includes(mode))
    throw new IsocodeError(
      'INVALID_CONFIG',
      `wall must be one of ${WALL_MODES.join(', ')}, got ${JSON.stringify(mode)}`,
    );
  if (mode === 'none') return NO_WALL;
  const { tools, failure, noExecReason } = probe();
  if (tools !== undefined) {
    if (noExecReason !== undefined && !warnedNoExec && options.quiet !== true) {
      warnedNoExec = true;
      process.emitWarning(
        `the second wall is on, but a sandbox worker that escaped isolated-vm could still execute the Node binary it was given: ${noExecReason}`,
        { code: 'ISOCODE_WALL_EXEC_ALLOWED' },
      );
    }
    return {
      status: {
        mode,
        active: true,
        noExec: tools.noExec !== undefined,
        ...(noExecReason === undefined ? {} : { noExecReason }),
      },
      tools,
    };
  }
  const reason = failure ?? 'bubblewrap is not usable';
  if (mode === 'bwrap')
    throw new IsocodeError(
      'INVALID_CONFIG',
      `wall "bwrap" is required but ${reason}; install bubblewrap (Debian: apt-get install bubblewrap) or set wall to "auto"`,
      { details: { reason } },
    );
  if (!warned && options.quiet !== true) {
    warned = true;
    process.emitWarning(
      `the second wall is OFF (${reason}): sandbox workers and the type-checker run as this user, with its file system and network. Install bubblewrap, or set wall: "none" to say this is intended.`,
      { code: 'ISOCODE_WALL_OFF' },
    );
  }
  return { status: { mode, active: false, reason, noExec: false }, tools: undefined };
}
