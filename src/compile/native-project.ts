/**
 * One SDK's compiler projects: the shared `sdk.d.ts` under an unguessable directory and one project
 * (tsconfig + `main.ts`) per slot; a p-queue hands the slots to checks, first come, first served.
 */

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import PQueue from 'p-queue';
import { IsocodeError } from '../errors.js';
import { templatesDir } from '../sdk/templates.js';
import { wrapForCheck } from './native-diagnostics.js';
import { newProjectDir } from './native-vfs.js';
import type { VirtualFiles } from './native-vfs.js';
import type { Diagnostic, SdkSource } from './types.js';

/**
 * Compiler options of every project. `moduleDetection: "force"` makes the checked file a module (top-level
 * names stay local, no merging into the SDK's globals). The SDK file is type-checked once when its project
 * opens (`skipLibCheck: false`); TypeScript's own lib files are not (`skipDefaultLibCheck`).
 */
const COMPILER_OPTIONS = {
  target: 'es2022',
  lib: ['es2022'],
  module: 'es2022',
  moduleResolution: 'bundler',
  moduleDetection: 'force',
  strict: true,
  noEmit: true,
  skipLibCheck: false,
  skipDefaultLibCheck: true,
  types: [],
} as const;

let globalsText: string | undefined;

/**
 * The declarations of the web globals the sandbox implements (`sdk-templates/globals.d.ts`: URL,
 * TextEncoder, structuredClone, ...). Loaded next to every SDK, never part of the SDK text (the
 * model knows these APIs; the instructions list them). Read once.
 */
export function webGlobalsDeclarations(): string {
  globalsText ??= readFileSync(join(templatesDir(), 'globals.d.ts'), 'utf8').replace(
    /\r\n?/g,
    '\n',
  );
  return globalsText;
}

/** The error of an aborted check. */
export function abortError(): IsocodeError {
  return new IsocodeError('ABORTED', 'the type check was aborted');
}

/** One SDK: a shared `sdk.d.ts` and one project (tsconfig + main.ts) per slot. */
export class SdkProject {
  readonly dir = newProjectDir();
  readonly sdkFile = `${this.dir}/sdk.d.ts`;
  /** The web globals' declarations (see {@link webGlobalsDeclarations}). */
  readonly globalsFile = `${this.dir}/globals.d.ts`;
  /** The tsconfig of each slot's project. */
  readonly configs: readonly string[];
  /** Resolves once every slot project is open, with the SDK's own (internal) diagnostics. */
  ready: Promise<Diagnostic[]> = Promise.resolve([]);
  users = 0;
  retired = false;
  private readonly queue: PQueue;
  private readonly free: number[];

  constructor(
    readonly sdk: SdkSource,
    slots: number,
    vfs: VirtualFiles,
  ) {
    this.queue = new PQueue({ concurrency: slots });
    this.free = Array.from({ length: slots }, (_, i) => i);
    vfs.set(this.sdkFile, sdk.text);
    vfs.set(this.globalsFile, webGlobalsDeclarations());
    this.configs = this.free.map((slot) => {
      const config = `${this.dir}/s${slot}/tsconfig.json`;
      vfs.set(
        config,
        JSON.stringify({
          compilerOptions: COMPILER_OPTIONS,
          files: ['../globals.d.ts', '../sdk.d.ts', 'main.ts'],
        }),
      );
      vfs.set(this.mainFile(slot), wrapForCheck(''));
      return config;
    });
  }

  mainFile(slot: number): string {
    return `${this.dir}/s${slot}/main.ts`;
  }

  /**
   * Runs `work` with a free slot once one is free. While queued, the check rejects as soon as `signal`
   * aborts (`ABORTED`) or `lost` does (its reason: the session failed). Once started, the slot stays held
   * until `work` settles, even if the check was abandoned: a slot's file is never shared by two checks.
   */
  inSlot<T>(
    work: (slot: number) => Promise<T>,
    lost: AbortSignal,
    signal?: AbortSignal,
  ): Promise<T> {
    const queued = new AbortController();
    const onAbort = (): void => queued.abort(abortError());
    const onLost = (): void => queued.abort(lost.reason);
    const stopListening = (): void => {
      signal?.removeEventListener('abort', onAbort);
      lost.removeEventListener('abort', onLost);
    };
    if (lost.aborted) onLost();
    else if (signal?.aborted) onAbort();
    signal?.addEventListener('abort', onAbort, { once: true });
    lost.addEventListener('abort', onLost, { once: true });
    const done = this.queue.add(
      async () => {
        stopListening();
        const slot = this.free.pop();
        if (slot === undefined) throw new IsocodeError('INTERNAL_ERROR', 'no free check slot');
        try {
          return await work(slot);
        } finally {
          this.free.push(slot);
        }
      },
      { signal: queued.signal },
    );
    return done.finally(stopListening);
  }
}
