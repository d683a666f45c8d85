/**
 * One isolate that serves runs one at a time, each in a fresh context. Where V8 supports it (≥ 12),
 * the isolate starts from the process's startup snapshot of the bootstrap and each new context only
 * claims its `entry` (decision record 039); elsewhere the bootstrap (the isolate side, linked into
 * one script) is compiled once per isolate — with V8's code cache produced by the first isolate of
 * the process — and run in every new context. The context is prepared before a run needs it (off
 * the hot path), handed to exactly one run, and released after it. Preparing also installs the
 * scope (`tools`, `console`, …) of the tools the isolate's previous run had: a run with the same
 * tools then finds it ready (decision record 004). Whether an isolate may serve another run is the
 * pool's decision.
 */
import ivm from 'isolated-vm';
import { loadBootstrapScript } from './isolate-code.js';
import {
  CLAIM_CODE,
  CLAIM_FILENAME,
  snapshotGaveUp,
  startupSnapshot,
  type BootstrapMode,
} from './isolate-snapshot.js';

/**
 * The host's view of the bootstrap's `entry`: `(port, index)` installs the scope (the tool index, see `TOOL_INDEX`), `(id, reply)`
 * answers a binding call. Always called with `applyIgnored`.
 */
export type EntryRef = ivm.Reference<(a: unknown, b: unknown) => void>;

/** A message from the isolate: `kind` (see `MESSAGE`) and up to five primitives. */
export type PortHandler = (
  kind: unknown,
  a: unknown,
  b: unknown,
  c: unknown,
  d?: unknown,
  e?: unknown,
) => void;

/**
 * The host function a context sends its messages to, made with the context. Messages go to the
 * run that took the context; the few that could come before (a failed installation) are kept.
 */
export class ContextPort {
  /** What the isolate holds. */
  readonly ref: ivm.Reference<PortHandler>;
  private handler: PortHandler | undefined;
  private readonly early: [unknown, unknown, unknown, unknown][] = [];

  constructor() {
    this.ref = new ivm.Reference<PortHandler>((kind, a, b, c, d, e) => {
      if (this.handler !== undefined) this.handler(kind, a, b, c, d, e);
      else if (this.early.length < 4) this.early.push([kind, a, b, c]);
    });
  }

  /** Routes the messages to `handler`, starting with those that came before. */
  attach(handler: PortHandler): void {
    this.handler = handler;
    for (const [kind, a, b, c] of this.early.splice(0)) handler(kind, a, b, c);
  }

  /** Stops routing and releases the reference (the isolate can no longer reach the host). */
  release(): void {
    this.handler = undefined;
    try {
      this.ref.release();
    } catch {
      // already released
    }
  }
}

/** A context ready for one run: bootstrap evaluated, global locked down. */
export interface PreparedContext {
  readonly context: ivm.Context;
  /** The bootstrap's `entry` in this context. */
  readonly entry: EntryRef;
  /** Where the context's messages arrive. */
  readonly port: ContextPort;
  /** The tool index (`TOOL_INDEX`) of the `tools` tree installed in the context, if one is. */
  tree: string | undefined;
}

/**
 * Called by isolated-vm instead of `abort()` when V8 loses control of an isolate (a last-resort
 * out-of-memory, for example). Only a sandbox worker process installs one: it reports the failure
 * to its supervisor and ends itself. Without one, isolated-vm aborts the process.
 */
let catastrophicHandler: ((message: string) => void) | undefined;

/** Installs the process-wide handler of isolates that V8 lost control of (see above). */
export function setCatastrophicErrorHandler(handler: (message: string) => void): void {
  catastrophicHandler = handler;
}

/** V8's code cache of the bootstrap script, produced by the first isolate of the process. */
let codeCache: ivm.ExternalCopy<ArrayBuffer> | undefined;

/** An isolate of the pool. */
export class SandboxIsolate {
  private disposedFlag = false;
  private prepared: PreparedContext | undefined;
  private runCount = 0;
  private lastHeapBytes: number | undefined;
  private lastTree: string | undefined;
  private ownerKey: string | undefined;

  private constructor(
    /** The isolate. */
    readonly isolate: ivm.Isolate,
    /**
     * Runs in each of its contexts and completes with `entry`: the bootstrap itself, or the claim of
     * a context made from the snapshot.
     */
    private readonly bootstrap: ivm.Script,
    /** How its contexts get the bootstrap. */
    readonly mode: BootstrapMode,
    /** The heap limit it was created with, in MiB. */
    readonly memoryMb: number,
    private readonly onDispose: (isolate: SandboxIsolate) => void,
  ) {}

  /**
   * Creates the isolate (from the process's startup snapshot unless `mode` is `script` or there is
   * none), compiles its bootstrap and prepares a first context (with the scope of `tree` installed,
   * when given). Costs are measured in docs/decisions/004-isolate-strategy.md and 039.
   */
  static async create(
    memoryMb: number,
    onDispose: (isolate: SandboxIsolate) => void = () => {},
    tree?: string,
    mode: BootstrapMode = 'snapshot',
  ): Promise<SandboxIsolate> {
    const blob = mode === 'snapshot' ? await startupSnapshot() : undefined;
    const source = blob === undefined ? await loadBootstrapScript() : undefined;
    const isolate = new ivm.Isolate({
      memoryLimit: memoryMb,
      ...(blob === undefined ? {} : { snapshot: blob }),
      ...(catastrophicHandler === undefined ? {} : { onCatastrophicError: catastrophicHandler }),
    });
    try {
      let bootstrap: ivm.Script;
      if (source === undefined) {
        bootstrap = isolate.compileScriptSync(CLAIM_CODE, { filename: CLAIM_FILENAME });
      } else {
        // Synchronous: a fresh isolate is idle, and compiling from the code cache is ~0.1 ms.
        const cache = codeCache;
        const compiled = isolate.compileScriptSync(
          source.code,
          cache === undefined
            ? { filename: source.filename, produceCachedData: true }
            : { filename: source.filename, cachedData: cache },
        ) as ivm.Script & ivm.CachedDataResult & { cachedDataRejected?: boolean };
        if (cache === undefined) codeCache = compiled.cachedData;
        else if (compiled.cachedDataRejected === true) codeCache = undefined;
        bootstrap = compiled;
      }
      const used = source === undefined ? 'snapshot' : 'script';
      const sandbox = new SandboxIsolate(isolate, bootstrap, used, memoryMb, onDispose);
      sandbox.lastTree = tree;
      try {
        await sandbox.prepare();
      } catch (error) {
        // A snapshot whose contexts cannot be claimed is never used again in this process; this
        // isolate fails as any isolate whose bootstrap fails.
        if (used === 'snapshot' && !isolate.isDisposed) snapshotGaveUp(error);
        throw error;
      }
      return sandbox;
    } catch (error) {
      if (!isolate.isDisposed) isolate.dispose();
      throw error;
    }
  }

  /** True once disposed, by us or by isolated-vm (memory limit). */
  get disposed(): boolean {
    return this.disposedFlag || this.isolate.isDisposed;
  }

  /** Runs started on this isolate. */
  get runs(): number {
    return this.runCount;
  }

  /** True while a prepared context waits for a run. */
  get ready(): boolean {
    return this.prepared !== undefined && !this.disposed;
  }

  /** The partition this isolate serves, once it has served a run; undefined before its first run. */
  get owner(): string | undefined {
    return this.ownerKey;
  }

  /** The tool index of the tools tree installed in the prepared context, if any. */
  get preparedTree(): string | undefined {
    return this.prepared?.tree;
  }

  /**
   * Prepares a fresh context: creates it, runs the bootstrap in it (which locks the global down and
   * completes with its `entry` function; in a context from the snapshot, the claim, which completes
   * with it), reads the heap statistics, and installs the scope of the tools of the isolate's last
   * run (one-way; the next run's script is queued after it). The two calls that run code are
   * asynchronous: the work runs on isolated-vm's thread. The first completes only once every earlier
   * task of the isolate has finished — after a run, that is the proof the isolate is idle (a leftover
   * that spins keeps it from completing; the caller's guard then disposes the isolate).
   * @throws when the isolate is disposed meanwhile, or the bootstrap fails
   */
  async prepare(): Promise<void> {
    if (this.prepared !== undefined) return;
    const context = await this.isolate.createContext();
    try {
      const entry = (await this.bootstrap.run(context, { reference: true })) as EntryRef;
      if (this.disposed) throw new Error('the isolate was disposed');
      // Synchronous, but only trusted code can be running: the isolate has just finished our task
      // (an asynchronous statistics call would cost a round trip and a stack capture).
      const heap = this.isolate.getHeapStatisticsSync();
      this.lastHeapBytes = heap.used_heap_size + heap.externally_allocated_size;
      const prepared: PreparedContext = {
        context,
        entry,
        port: new ContextPort(),
        tree: undefined,
      };
      this.prepared = prepared;
      if (this.lastTree !== undefined) install(prepared, this.lastTree);
    } catch (error) {
      context.release();
      throw error;
    }
  }

  /** Replaces the prepared context by a fresh one without a scope installed. */
  async reprepare(): Promise<void> {
    const prepared = this.prepared;
    this.prepared = undefined;
    if (prepared !== undefined) releaseContext(prepared);
    this.lastTree = undefined;
    await this.prepare();
  }

  /**
   * Hands the prepared context to a run (which releases it), with the scope of `tree` installed
   * (now, if the context has none yet); counts the run. The isolate belongs to `partition` from
   * its first run on.
   * @throws when no context is prepared, another scope is installed in it, or the isolate belongs
   * to another partition
   */
  take(tree: string, partition: string): PreparedContext {
    const prepared = this.prepared;
    if (prepared === undefined) throw new Error('no prepared context');
    if (this.ownerKey !== undefined && this.ownerKey !== partition)
      throw new Error('the isolate belongs to another partition');
    this.ownerKey = partition;
    if (prepared.tree !== undefined && prepared.tree !== tree)
      throw new Error('the prepared context has other tools installed');
    this.prepared = undefined;
    this.runCount++;
    this.lastTree = tree;
    if (prepared.tree === undefined) install(prepared, tree);
    return prepared;
  }

  /**
   * Heap in use (V8 heap plus memory allocated outside it that counts against `memoryLimit`) when
   * the last context was prepared, in bytes; undefined before. Garbage not yet collected counts.
   */
  get heapBytes(): number | undefined {
    return this.lastHeapBytes;
  }

  /** Disposes the isolate (idempotent; never throws). */
  dispose(): void {
    if (this.disposedFlag) return;
    this.disposedFlag = true;
    const prepared = this.prepared;
    this.prepared = undefined;
    prepared?.port.release();
    try {
      if (!this.isolate.isDisposed) this.isolate.dispose();
    } catch {
      // already gone
    }
    this.onDispose(this);
  }

  /** Total CPU time of the isolate in ms, or undefined once it is gone. */
  cpuMs(): number | undefined {
    try {
      return Number(this.isolate.cpuTime) / 1e6;
    } catch {
      return undefined;
    }
  }
}

/** Installs the scope of `tree` in a prepared context (one-way; never throws). */
function install(prepared: PreparedContext, tree: string): void {
  try {
    prepared.entry.applyIgnored(undefined, [prepared.port.ref, tree]);
    prepared.tree = tree;
  } catch {
    // the isolate is gone: the run finds out when it starts
  }
}

/** Releases a context, its port and the references into it (each may be gone; never throws). */
export function releaseContext(prepared: PreparedContext): void {
  prepared.port.release();
  for (const release of [() => prepared.entry.release(), () => prepared.context.release()]) {
    try {
      release();
    } catch {
      // the isolate is gone
    }
  }
}
