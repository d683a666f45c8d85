/**
 * The {@link TypeChecker} backed by the native TypeScript 7 compiler (one long-lived process, restarted
 * after a crash or a hang). The compiler's unstable API stays behind this module and `native-session.ts`.
 */

import { resolveWall, type WallMode } from '../wall/wall.js';
import { IsocodeError } from '../errors.js';
import { CheckCache, type CheckCacheOptions } from './check-cache.js';
import { abortError } from './native-project.js';
import { NativeSession, SessionLost } from './native-session.js';
import type { SessionSettings } from './native-session.js';
import { isBodyRejection, isRefusal, programRefusal } from './refusals.js';
import type { transpileGuarded as TranspileGuarded } from './guarded-transpile.js';
import type {
  CheckOptions,
  CheckerStats,
  Diagnostic,
  SdkSource,
  TranspileVerdict,
  TypeChecker,
} from './types.js';
import { durationOptionOr, integerOptionOr } from '../options.js';

/** Options of {@link createNativeChecker}. */
export interface NativeCheckerOptions {
  /**
   * SDKs (distinct hashes) kept compiled; the least recently used idle one is dropped beyond this.
   * @default 8
   */
  maxSdks?: number;
  /**
   * Checks of one SDK that run at the same time (one compiler project each; more wait in a queue).
   * @default 2
   */
  slotsPerSdk?: number;
  /**
   * A compiler request not answered within this time fails the check with `LIMIT_EXCEEDED` (`details:
   * { kind: 'typecheck', limit: 'timeoutMs' }`) and kills the compiler process (other checks in flight on
   * it are retried on a new one).
   * @default 15000
   */
  timeoutMs?: number;
  /**
   * Also report diagnostics of category `warning` (errors are always reported).
   * @default false
   */
  includeWarnings?: boolean;
  /**
   * Most diagnostics returned by one check (first ones by position).
   * @default 20
   */
  maxDiagnostics?: number;
  /**
   * Resident memory (bytes) the compiler process may use. Polled every 100 ms while a check is in it
   * (Linux `/proc`; not enforced where it cannot be read); when crossed, the process is killed, the check
   * that was running the longest fails with `LIMIT_EXCEEDED` and the other checks are retried once.
   * @default 536870912 (512 MiB)
   */
  maxRssBytes?: number;
  /**
   * The cache of check results (per partition, keyed by SDK text, program text and the transpiler's
   * verdict; see `check-cache.ts`), or `false` for none.
   * @default { maxEntries: 1024, maxBytes: 4 MiB }
   */
  cache?: CheckCacheOptions | false;
  /**
   * The second wall around the compiler process (decision record 032): `auto` walls it with
   * bubblewrap where that works (else warns once), `bwrap` requires it, `none` does not wall it.
   * In every mode the process receives only `PATH` and `NODE_ENV` of the host's environment.
   * @default "auto"
   */
  wall?: WallMode;
}

/** How many times one check may lose its compiler process to other checks before it fails. */
const MAX_BYSTANDER_LOSSES = 16;

const positiveInt = (value: number | undefined, fallback: number, name: string): number =>
  integerOptionOr(name, value, fallback, 1);

/** Creates a type checker that runs the native TypeScript 7 compiler in a child process (started lazily or by `warmup`). */
export function createNativeChecker(options: NativeCheckerOptions = {}): TypeChecker {
  const settings: SessionSettings = {
    maxSdks: positiveInt(options.maxSdks, 8, 'maxSdks'),
    slotsPerSdk: positiveInt(options.slotsPerSdk, 2, 'slotsPerSdk'),
    timeoutMs: durationOptionOr('timeoutMs', options.timeoutMs, 15_000, 1),
    maxDiagnostics: positiveInt(options.maxDiagnostics, 20, 'maxDiagnostics'),
    includeWarnings: options.includeWarnings ?? false,
    maxRssBytes: positiveInt(options.maxRssBytes, 512 * 1024 * 1024, 'maxRssBytes'),
    wall: resolveWall(options.wall ?? 'auto'),
  };
  const cache = options.cache === false ? undefined : new CheckCache(options.cache);
  return new NativeChecker(settings, cache);
}

class NativeChecker implements TypeChecker {
  private session: NativeSession | undefined;
  private starting: Promise<NativeSession> | undefined;
  private readonly live = new Set<NativeSession>();
  private closed = false;
  private closing: Promise<void> | undefined;
  private checks = 0;
  private restarts = 0;

  constructor(
    private readonly settings: SessionSettings,
    private readonly cache: CheckCache | undefined,
  ) {}

  async check(program: string, sdk: SdkSource, options: CheckOptions = {}): Promise<Diagnostic[]> {
    validate(program, sdk);
    validateVerdict(options.transpiled);
    const { signal } = options;
    if (signal?.aborted) throw abortError();
    if (options.partition !== undefined && typeof options.partition !== 'string')
      throw new IsocodeError('INVALID_ARGS', 'partition must be a string');
    // A closed checker answers as it did before it kept a cache.
    const key = this.closed
      ? undefined
      : this.cache?.key(options.partition ?? '', program, sdk, options.transpiled);
    const cached = key === undefined ? undefined : this.cache?.get(key);
    if (cached !== undefined) {
      this.checks++;
      return cached;
    }
    const diagnostics = await this.checkUncached(program, sdk, options);
    if (key !== undefined) this.cache?.set(key, diagnostics);
    return diagnostics;
  }

  private async checkUncached(
    program: string,
    sdk: SdkSource,
    options: CheckOptions,
  ): Promise<Diagnostic[]> {
    const { signal } = options;
    // A program never makes the compiler resolve a module or file (other tenants' SDKs live in it too), and
    // never nests deep enough to keep it busy for seconds.
    const reference = programRefusal(program);
    if (reference) {
      this.checks++;
      return [reference];
    }
    // The transpiler's verdict keeps check and run consistent: a program that closes its wrapper early (and
    // could then declare globals) is rejected without type-checking, and one the transpiler cannot parse
    // never passes the check. The compiler's own syntax messages (with TS codes) come first otherwise.
    const transpiled = options.transpiled ?? (await transpileHere(program));
    const escaped = transpiled.ok
      ? []
      : transpiled.diagnostics.filter((d) => isBodyRejection(d) || isRefusal(d));
    if (escaped.length > 0) {
      this.checks++;
      return escaped;
    }
    const work = this.run(program, sdk, signal);
    let diagnostics = await (signal ? raceAbort(work, signal) : work);
    if (!transpiled.ok && !diagnostics.some((d) => d.category === 'error')) {
      diagnostics = [...diagnostics, ...transpiled.diagnostics];
    }
    this.checks++;
    return diagnostics;
  }

  async warmup(sdk?: SdkSource): Promise<void> {
    if (sdk !== undefined) validate('', sdk);
    const session = await this.currentSession();
    if (sdk !== undefined) {
      await session.prepare(sdk);
      // The first check of a project pays for the checker's own warm-up; pay it now.
      await session.check('', sdk);
    }
  }

  close(): Promise<void> {
    this.closed = true;
    this.cache?.clear();
    this.closing ??= (async () => {
      await this.starting?.catch(() => undefined);
      await Promise.all([...this.live].map((s) => s.close()));
      this.session = undefined;
    })();
    return this.closing;
  }

  stats(): CheckerStats {
    return {
      checks: this.checks,
      processes: this.live.size,
      cachedSdks: this.session?.usable ? this.session.sdkCount : 0,
      restarts: this.restarts,
      rssBytes: this.session?.rssBytes ?? 0,
      ...(this.cache ? { cache: this.cache.stats() } : {}),
    };
  }

  /**
   * Checks on the current session. A check that lost its process through no fault of its own is
   * retried on a new one: always when another check was blamed for the loss (that check is stopped
   * and never retried, so each such loss removes one culprit: another tenant's type bombs cannot
   * fail this check, only delay it), at most {@link MAX_BYSTANDER_LOSSES} times in all, and once
   * when the compiler crashed with nobody to blame (a program that crashes it every time then costs
   * two restarts, not a loop).
   */
  private async run(
    program: string,
    sdk: SdkSource,
    signal: AbortSignal | undefined,
  ): Promise<Diagnostic[]> {
    let crashes = 0;
    for (let losses = 0; ; losses++) {
      const session = await this.currentSession();
      try {
        return await session.check(program, sdk, signal);
      } catch (error) {
        if (!(error instanceof SessionLost)) throw error;
        if (!error.attributed) crashes++;
        if (crashes > 1 || losses >= MAX_BYSTANDER_LOSSES || signal?.aborted) throw error.failure;
      }
    }
  }

  /** The running session, or a new one when there is none or the last one failed. */
  private currentSession(): Promise<NativeSession> {
    if (this.closed)
      return Promise.reject(new IsocodeError('SHUTTING_DOWN', 'the type checker was closed'));
    if (this.session?.usable) return Promise.resolve(this.session);
    if (this.starting) return this.starting;
    const previous = this.session;
    if (previous) {
      this.restarts++;
      void previous.close();
    }
    const session = new NativeSession(this.settings, () => this.live.delete(session));
    this.live.add(session);
    this.starting = session.start().then(
      () => {
        this.starting = undefined;
        this.session = session;
        return session;
      },
      (error: unknown) => {
        this.starting = undefined;
        void session.close();
        throw error;
      },
    );
    return this.starting;
  }
}

/**
 * The verdict of the in-process transpiler, for callers that did not pass one (library use). Loaded on
 * first use: a host that always passes the verdict never loads oxc.
 */
async function transpileHere(program: string): Promise<TranspileVerdict> {
  transpiler ??= import('./guarded-transpile.js');
  const { transpileGuarded } = await transpiler;
  return transpileGuarded(program);
}

let transpiler: Promise<{ transpileGuarded: typeof TranspileGuarded }> | undefined;

function validate(program: unknown, sdk: unknown): void {
  if (typeof program !== 'string')
    throw new IsocodeError('INVALID_ARGS', 'program must be a string');
  const s = sdk as Partial<SdkSource> | null;
  if (
    typeof s !== 'object' ||
    s === null ||
    typeof s.text !== 'string' ||
    typeof s.hash !== 'string' ||
    s.hash === ''
  ) {
    throw new IsocodeError('INVALID_ARGS', 'sdk must be { text: string, hash: non-empty string }');
  }
}

function validateVerdict(verdict: TranspileVerdict | undefined): void {
  if (verdict === undefined) return;
  const v = verdict as Partial<Record<'ok' | 'diagnostics', unknown>> | null;
  const valid =
    typeof v === 'object' &&
    v !== null &&
    (v.ok === true || (v.ok === false && Array.isArray(v.diagnostics)));
  if (!valid) {
    throw new IsocodeError(
      'INVALID_ARGS',
      'transpiled must be { ok: true } or { ok: false, diagnostics: Diagnostic[] }',
    );
  }
}

/** Rejects with `ABORTED` as soon as `signal` aborts; the abandoned work settles in the background. */
function raceAbort<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  work.catch(() => undefined);
  if (signal.aborted) return Promise.reject(abortError());
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(abortError());
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error instanceof Error ? error : new IsocodeError('INTERNAL_ERROR', String(error)));
      },
    );
  });
}
