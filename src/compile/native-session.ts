/**
 * One native TypeScript 7 compiler process (`typescript-native/unstable/async`) with a virtual file
 * system: one compiled project per SDK slot, checks routed to free slots. Every compiler request is
 * guarded by a deadline and by the process's life: a dead or hung process fails its checks, never hangs.
 */

import type { ChildProcess } from 'node:child_process';
import { API } from 'typescript-native/unstable/async';
import type { Diagnostic as NativeDiagnostic, Snapshot } from 'typescript-native/unstable/async';
import { IsocodeError, isIsocodeError } from '../errors.js';
import { DiagnosticMapper, internalDiagnostic, wrapForCheck } from './native-diagnostics.js';
import {
  compilerProcess,
  residentBytes,
  spawnCompiler,
  waitForExit,
  withTimeout,
} from './native-process.js';
import { MemoryWatch } from './native-memory.js';
import { compilerCommand } from './native-launcher.js';
import { killWalled, walledPid } from '../wall/tree.js';
import type { Wall } from '../wall/wall.js';
import type { Ticket } from './native-memory.js';
import { SdkProject } from './native-project.js';
import { VFS_ROOT, VirtualFiles, hideProjectPaths } from './native-vfs.js';
import type { Diagnostic, SdkSource } from './types.js';

/** The settings a session runs with (resolved {@link NativeCheckerOptions}). */
export interface SessionSettings {
  maxSdks: number;
  slotsPerSdk: number;
  timeoutMs: number;
  includeWarnings: boolean;
  maxDiagnostics: number;
  maxRssBytes: number;
  /** The wall the compiler process starts behind. */
  wall: Wall;
}

/**
 * A check that lost its compiler process through no fault of its own: a crash nobody is blamed for
 * (`attributed` false), or another check's timeout or memory, that check blamed and stopped
 * (`attributed` true). The checker retries it on a new process. Never leaves the checker.
 */
export class SessionLost extends Error {
  constructor(
    readonly failure: IsocodeError,
    readonly attributed: boolean,
  ) {
    super(failure.message);
  }
}

const noop = (): void => {};
/** How long close() waits for a graceful exit before killing the compiler. */
const GRACE_MS = 250;

/** A compiler process and the SDK projects open in it. */
export class NativeSession {
  private readonly vfs = new VirtualFiles();
  private readonly api: API;
  private readonly projects = new Map<string, SdkProject>();
  private readonly failureListeners = new Set<(error: IsocodeError) => void>();
  /** Aborted (with the failure) when the session fails: queued checks reject at once. */
  private readonly lost = new AbortController();
  private readonly memory: MemoryWatch;
  private child: ChildProcess | undefined;
  private failure: IsocodeError | undefined;
  /** The check blamed for the failure (a timeout or the memory limit) and the error it gets. */
  private blamed: { ticket: Ticket; error: IsocodeError } | undefined;
  private exited = false;
  private closing: Promise<void> | undefined;
  private readonly releases = new Set<Promise<void>>();

  /** `onExit` runs once when the compiler process has exited (or could not be started). */
  constructor(
    private readonly settings: SessionSettings,
    private readonly onExit: () => void,
  ) {
    this.api = new API({
      fs: this.vfs.toFileSystem(),
      cwd: VFS_ROOT,
      tsserverPath: compilerCommand(settings.wall),
    });
    this.memory = new MemoryWatch(
      settings.maxRssBytes,
      () => this.rssBytes,
      ({ blamed, error, failure }) => this.fail(failure, blamed && { ticket: blamed, error }),
    );
  }

  /** False once the process died, hung or was closed: the owner starts a new session. */
  get usable(): boolean {
    return this.failure === undefined;
  }

  /** Number of SDKs with open projects. */
  get sdkCount(): number {
    return this.projects.size;
  }

  /** The compiler process's resident memory in bytes (0 when not running or unreadable). */
  get rssBytes(): number {
    const pid = this.exited ? undefined : this.compilerPid();
    return pid === undefined ? 0 : (residentBytes(pid) ?? 0);
  }

  /** Behind the wall: the compiler's own pid (the child is bubblewrap), once it has started. */
  private innerPid: number | undefined;

  private compilerPid(): number | undefined {
    const pid = this.child?.pid;
    if (pid === undefined || !this.settings.wall.status.active) return pid;
    this.innerPid ??= walledPid(pid);
    return this.innerPid;
  }

  /** Spawns the compiler process and waits until it answers. */
  async start(): Promise<void> {
    const deadline = Date.now() + this.settings.timeoutMs;
    await this.guard(spawnCompiler(this.api), deadline);
    this.attachChild();
    const snapshot = await this.guard(this.api.updateSnapshot(), deadline);
    this.attachChild();
    this.dispose(snapshot);
  }

  /**
   * Type-checks `program` against `sdk` in a free slot of the SDK's projects. Rejects with
   * {@link SessionLost} when the process was lost because of something else than this check.
   */
  async check(program: string, sdk: SdkSource, signal?: AbortSignal): Promise<Diagnostic[]> {
    const ticket: Ticket = { since: 0 };
    if (this.failure) throw this.blame(ticket, this.failure);
    const project = this.project(sdk);
    project.users++;
    try {
      const internal = await this.guard(project.ready, Date.now() + this.settings.timeoutMs);
      return await project.inSlot(
        (slot) => this.checkInSlot(project, slot, program, internal, ticket),
        this.lost.signal,
        signal,
      );
    } catch (error) {
      throw this.blame(ticket, error);
    } finally {
      project.users--;
      if (project.retired && project.users === 0) this.closeProject(project);
      this.evictIdle();
    }
  }

  /** Opens the SDK's projects (if not yet open) and waits for them. */
  async prepare(sdk: SdkSource): Promise<void> {
    if (this.failure) throw this.failure;
    await this.guard(this.project(sdk).ready, Date.now() + this.settings.timeoutMs);
    this.evictIdle();
  }

  /** Stops the process: pending checks reject with `SHUTTING_DOWN`; resolves once the process exited. */
  close(): Promise<void> {
    this.closing ??= this.shutdown();
    return this.closing;
  }

  private async shutdown(): Promise<void> {
    this.fail(new IsocodeError('SHUTTING_DOWN', 'the type checker was closed'), undefined, false);
    this.attachChild();
    await withTimeout(Promise.all([...this.releases]), GRACE_MS);
    // Closing stdin makes an idle compiler exit. One blocked on a file-system callback that will never be
    // answered does not: SIGKILL after a short grace period (it holds nothing worth saving).
    await withTimeout(this.api.close().catch(noop), GRACE_MS);
    const child = this.child;
    if (child && !(await waitForExit(child, GRACE_MS))) {
      killWalled(child, this.settings.wall.status.active);
      await waitForExit(child, 5000);
    }
    if (!child) this.markExited();
  }

  /**
   * What a failed check rejects with: its own error, unless the session failed: then the blamed check's
   * error, `SHUTTING_DOWN` on close, and {@link SessionLost} (retry elsewhere) for everyone else.
   */
  private blame(ticket: Ticket, error: unknown): unknown {
    const failure = this.failure;
    if (failure === undefined || failure.code === 'SHUTTING_DOWN') return error;
    if (isIsocodeError(error) && error.code === 'ABORTED') return error;
    if (this.blamed?.ticket === ticket) return this.blamed.error;
    return new SessionLost(failure, this.blamed !== undefined);
  }

  private async checkInSlot(
    project: SdkProject,
    slot: number,
    program: string,
    internal: Diagnostic[],
    ticket: Ticket,
  ): Promise<Diagnostic[]> {
    const deadline = Date.now() + this.settings.timeoutMs;
    const file = project.mainFile(slot);
    this.vfs.set(file, wrapForCheck(program));
    this.memory.enter(ticket);
    try {
      // Naming the changed file is what makes the compiler re-read it (else the previous program's results).
      const snapshot = await this.guard(
        this.api.updateSnapshot({ fileChanges: { changed: [file] } }),
        deadline,
        ticket,
      );
      try {
        const compiled = snapshot.getProject(project.configs[slot] ?? '');
        if (!compiled)
          throw new IsocodeError(
            'INTERNAL_ERROR',
            'the type-check project is missing from the compiler',
          );
        // Semantic diagnostics omit syntax errors: ask for both; report syntax errors alone when there are any (as tsc).
        const [syntactic, semantic] = await this.guard(
          Promise.all([
            compiled.program.getSyntacticDiagnostics(file),
            compiled.program.getSemanticDiagnostics(file),
          ]),
          deadline,
          ticket,
        );
        const mapper = new DiagnosticMapper(program, file);
        const convert = (d: NativeDiagnostic, kind: Diagnostic['kind']): Diagnostic =>
          d.fileName === file
            ? mapper.map(d, kind)
            : internalDiagnostic(d, project.sdkFile, project.sdk.text);
        const found =
          syntactic.length > 0
            ? syntactic.map((d) => convert(d, 'syntax'))
            : semantic.map((d) => convert(d, 'typecheck'));
        return this.select([...internal, ...found]);
      } finally {
        // Not awaited (saves a round trip); an undisposed snapshot leaks 0.25-0.75 MB in the compiler.
        this.dispose(snapshot);
      }
    } finally {
      this.memory.leave(ticket);
    }
  }

  /** Errors (and warnings if asked), by position, at most `maxDiagnostics`, no project path in any message. */
  private select(diagnostics: Diagnostic[]): Diagnostic[] {
    return diagnostics
      .filter(
        (d) =>
          d.category === 'error' || (this.settings.includeWarnings && d.category === 'warning'),
      )
      .sort((a, b) => a.line - b.line || a.column - b.column)
      .slice(0, this.settings.maxDiagnostics)
      .map((d) => ({ ...d, message: hideProjectPaths(d.message) }));
  }

  /** The SDK's projects, opened on first use; most recently used last (LRU order). */
  private project(sdk: SdkSource): SdkProject {
    let project = this.projects.get(sdk.hash);
    if (project && project.sdk.text !== sdk.text) {
      // Same hash, different text: never check against a stale SDK.
      this.projects.delete(sdk.hash);
      project.retired = true;
      if (project.users === 0) this.closeProject(project);
      project = undefined;
    }
    if (project) {
      this.projects.delete(sdk.hash);
    } else {
      project = this.openProject(sdk);
      const opened = project;
      project.ready.catch(() => {
        if (this.projects.get(sdk.hash) === opened) this.projects.delete(sdk.hash);
      });
    }
    this.projects.set(sdk.hash, project);
    return project;
  }

  private openProject(sdk: SdkSource): SdkProject {
    const project = new SdkProject(sdk, this.settings.slotsPerSdk, this.vfs);
    const { configs, sdkFile } = project;
    project.ready = (async (): Promise<Diagnostic[]> => {
      const deadline = Date.now() + this.settings.timeoutMs;
      const snapshot = await this.guard(
        this.api.updateSnapshot({ openProjects: [...configs] }),
        deadline,
      );
      try {
        const first = configs[0] === undefined ? undefined : snapshot.getProject(configs[0]);
        if (!first)
          throw new IsocodeError('INTERNAL_ERROR', 'the compiler did not open the SDK project');
        const p = first.program;
        const lists = await this.guard(
          Promise.all([
            p.getConfigFileParsingDiagnostics(),
            p.getProgramDiagnostics(),
            p.getGlobalDiagnostics(),
            p.getSyntacticDiagnostics(sdkFile),
            p.getSemanticDiagnostics(sdkFile),
          ]),
          deadline,
        );
        return lists.flat().map((d) => internalDiagnostic(d, sdkFile, sdk.text));
      } finally {
        this.dispose(snapshot);
      }
    })();
    return project;
  }

  /** Closes least recently used idle SDK projects beyond `maxSdks`. */
  private evictIdle(): void {
    if (this.failure) return;
    for (const project of this.projects.values()) {
      if (this.projects.size <= this.settings.maxSdks) return;
      if (project.users > 0) continue;
      this.projects.delete(project.sdk.hash);
      this.closeProject(project);
    }
  }

  private closeProject(project: SdkProject): void {
    if (this.failure) return;
    const closed = project.ready
      .then(() => this.api.updateSnapshot({ closeProjects: [...project.configs] }))
      .then((snapshot) => this.dispose(snapshot))
      .finally(() => this.vfs.deleteDirectory(project.dir));
    closed.catch(noop);
  }

  /** Releases a snapshot without waiting (saves a round trip); shutdown waits for the releases in flight. */
  private dispose(snapshot: Snapshot): void {
    const released = snapshot.dispose().catch(noop);
    this.releases.add(released);
    void released.finally(() => this.releases.delete(released));
  }

  /**
   * Settles with `work`, or rejects when the session fails first or `deadline` passes (a hung compiler is
   * killed, which fails every pending request of this session; `ticket`'s check is blamed for it and fails
   * with `LIMIT_EXCEEDED`, the others are retried).
   */
  private guard<T>(work: Promise<T>, deadline: number, ticket?: Ticket): Promise<T> {
    work.catch(noop);
    if (this.failure) return Promise.reject(this.failure);
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(
        () => {
          const { timeoutMs } = this.settings;
          const failure = new IsocodeError(
            'INTERNAL_ERROR',
            `the TypeScript compiler did not answer within ${timeoutMs} ms; it is restarted on the next check`,
          );
          const error = new IsocodeError(
            'LIMIT_EXCEEDED',
            `the type check did not finish within the type-checker's time limit (timeoutMs = ${timeoutMs} ms) and was stopped; simplify the program's types`,
            { details: { kind: 'typecheck', limit: 'timeoutMs', limitMs: timeoutMs } },
          );
          this.fail(failure, ticket && { ticket, error });
        },
        Math.max(0, deadline - Date.now()),
      );
      const onFailure = (error: IsocodeError): void => {
        cleanup();
        reject(error);
      };
      const cleanup = (): void => {
        clearTimeout(timer);
        this.failureListeners.delete(onFailure);
      };
      this.failureListeners.add(onFailure);
      work.then(
        (value) => {
          cleanup();
          resolve(value);
        },
        (cause: unknown) => {
          cleanup();
          reject(
            this.failure ??
              (isIsocodeError(cause)
                ? cause
                : new IsocodeError('INTERNAL_ERROR', 'the TypeScript compiler failed', { cause })),
          );
        },
      );
    });
  }

  /**
   * Marks the session failed (`blamed`: the check at fault, if one is): every pending request rejects
   * with `error`, queued checks at once; the process is killed.
   */
  private fail(
    error: IsocodeError,
    blamed?: { ticket: Ticket; error: IsocodeError },
    killProcess = true,
  ): void {
    if (this.failure) return;
    this.failure = error;
    this.blamed = blamed;
    this.memory.stop();
    for (const listener of [...this.failureListeners]) listener(error);
    this.lost.abort(error);
    if (killProcess) {
      this.attachChild();
      if (this.child) killWalled(this.child, this.settings.wall.status.active);
      // Releases the connection; requests left pending on it are dropped with it.
      this.api.close().catch(noop);
      if (!this.child) this.markExited();
    }
  }

  /** Watches the compiler process for an unexpected exit, once the client has spawned it. */
  private attachChild(): void {
    if (this.child) return;
    const proc = compilerProcess(this.api);
    if (!proc) return;
    this.child = proc;
    const onExit = (code: number | null, signal: NodeJS.Signals | null): void => {
      this.markExited();
      this.fail(
        new IsocodeError(
          'INTERNAL_ERROR',
          `the TypeScript compiler process exited unexpectedly (${signal ?? `exit code ${code}`}); it is restarted on the next check`,
        ),
      );
    };
    if (proc.exitCode !== null || proc.signalCode !== null) onExit(proc.exitCode, proc.signalCode);
    else proc.once('exit', onExit);
  }

  private markExited(): void {
    if (this.exited) return;
    this.exited = true;
    this.onExit();
  }
}
