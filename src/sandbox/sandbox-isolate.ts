/**
 * One isolate with one context, the bootstrap modules evaluated and the global locked down: ready
 * for exactly one run. It is never reused: after its run (or any limit) it is disposed.
 */
import ivm from 'isolated-vm';
import { ENTRY_SPECIFIER, loadIsolateModules } from './isolate-code.js';

/** The host's view of the bootstrap's `install` export. */
export type InstallRef = ivm.Reference<
  (dispatch: unknown, log: unknown, tick: unknown, optionsJson: string) => unknown
>;

/** A prepared isolate. */
export class SandboxIsolate {
  private disposedFlag = false;

  private constructor(
    /** The isolate. */
    readonly isolate: ivm.Isolate,
    /** Its only context. */
    readonly context: ivm.Context,
    /** The bootstrap's `install` function. */
    readonly install: InstallRef,
    /** The heap limit it was created with, in MiB. */
    readonly memoryMb: number,
    private readonly onDispose: (isolate: SandboxIsolate) => void,
  ) {}

  /**
   * Creates the isolate, its context, links and evaluates the bootstrap modules and runs
   * `lockdown()`. Costs are measured in docs/decisions/004-isolate-strategy.md.
   */
  static async create(
    memoryMb: number,
    onDispose: (isolate: SandboxIsolate) => void = () => {},
  ): Promise<SandboxIsolate> {
    const sources = await loadIsolateModules();
    const isolate = new ivm.Isolate({ memoryLimit: memoryMb });
    try {
      const context = await isolate.createContext();
      // Synchronous compile: ~0.13 ms for all modules, against ~1.8 ms of thread hops when each
      // module is compiled with an awaited compileModule (measured, decision record 004).
      const modules = new Map<string, ivm.Module>();
      for (const source of sources) {
        modules.set(
          source.specifier,
          isolate.compileModuleSync(source.code, { filename: source.filename }),
        );
      }
      const entry = modules.get(ENTRY_SPECIFIER);
      if (entry === undefined) throw new Error('bootstrap module missing');
      // Linking, evaluating and locking down run trusted code for well under a millisecond:
      // synchronous calls avoid a thread hop each.
      entry.instantiateSync(context, (specifier) => {
        const found = modules.get(specifier);
        if (found === undefined) throw new Error(`isolate module not found: ${specifier}`);
        return found;
      });
      entry.evaluateSync();
      const namespace = entry.namespace;
      const lockdown = namespace.getSync('lockdown', { reference: true }) as ivm.Reference<
        () => void
      >;
      lockdown.applySync(undefined, []);
      lockdown.release();
      const install = namespace.getSync('install', { reference: true }) as InstallRef;
      namespace.release();
      for (const module of modules.values()) module.release();
      return new SandboxIsolate(isolate, context, install, memoryMb, onDispose);
    } catch (error) {
      if (!isolate.isDisposed) isolate.dispose();
      throw error;
    }
  }

  /** True once disposed, by us or by isolated-vm (memory limit). */
  get disposed(): boolean {
    return this.disposedFlag || this.isolate.isDisposed;
  }

  /** Disposes the isolate (idempotent; never throws). */
  dispose(): void {
    if (this.disposedFlag) return;
    this.disposedFlag = true;
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
