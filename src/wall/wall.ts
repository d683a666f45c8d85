/**
 * The second wall's mode and whether this host has it. `auto` (the default) walls the sandbox workers
 * and the checker when bubblewrap works here and otherwise starts with one loud warning and reports
 * the wall off (`/healthz`, metrics, `stats()`); `bwrap` refuses to start without it; `none` turns it
 * off. The probe runs once per process and bubblewrap path: a walled `node --version`.
 */
import { IsocodeError } from '../errors.js';
import { findExecutable, probeWall, type WallTools } from './bwrap.js';

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
}

/** A resolved wall: its status and, when active, the tools to build it with. */
export interface Wall {
  status: WallStatus;
  /** Defined exactly when `status.active`. */
  tools: WallTools | undefined;
}

/** The wall's off state, for processes started without one. */
export const NO_WALL: Wall = {
  status: { mode: 'none', active: false, reason: 'turned off (wall: "none")' },
  tools: undefined,
};

const probes = new Map<string, { tools: WallTools | undefined; failure: string | undefined }>();
let warned = false;

/**
 * The bubblewrap binary: `ISOCODE_BWRAP` (an absolute path, for a non-standard install; a missing
 * one makes the wall unavailable, which is how tests force the capability check off), else `bwrap`
 * on PATH.
 */
function bwrapPath(): string {
  return process.env.ISOCODE_BWRAP ?? 'bwrap';
}

function probe(): { tools: WallTools | undefined; failure: string | undefined } {
  const key = bwrapPath();
  let known = probes.get(key);
  if (known === undefined) {
    const bwrap = findExecutable(key);
    const prlimit = findExecutable('prlimit');
    const tools = bwrap !== undefined && prlimit !== undefined ? { bwrap, prlimit } : undefined;
    const failure = probeWall(tools, process.execPath);
    known = { tools: failure === undefined ? tools : undefined, failure };
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
  const { tools, failure } = probe();
  if (tools !== undefined) return { status: { mode, active: true }, tools };
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
  return { status: { mode, active: false, reason }, tools: undefined };
}
