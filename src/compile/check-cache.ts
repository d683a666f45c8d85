/**
 * A bounded cache of type-check results. A check's diagnostics are a pure function of the SDK text,
 * the program text, the transpiler's verdict the caller gave, and what is fixed for the life of one
 * checker (its options: warnings, most diagnostics; the compiler options, the web globals' declarations
 * and the TypeScript version): the key holds the first three, the cache lives in one checker. Only
 * completed checks are stored: an abort, a timeout, a crash or the memory limit is never remembered.
 *
 * Entries are partitioned (the runner passes the scope): a hit answers in microseconds where a check
 * takes milliseconds, so a cache shared between tenants would tell one tenant, by timing, that another
 * ran exactly this program against this SDK (a confirmation oracle for guessed programs, which can hold
 * ids and secrets). Within a partition that is the tenant's own history.
 */
import { createHash } from 'node:crypto';
import type { Diagnostic, SdkSource, TranspileVerdict } from './types.js';
import { integerOptionOr } from '../options.js';

/** Bounds of a {@link CheckCache}. */
export interface CheckCacheOptions {
  /**
   * Results kept at most; the least recently used one makes room.
   * @default 1024
   */
  maxEntries?: number;
  /**
   * Bytes kept at most (keys and diagnostics as UTF-16, plus a fixed overhead per entry).
   * @default 4194304 (4 MiB)
   */
  maxBytes?: number;
}

/** Counters of a {@link CheckCache}. */
export interface CheckCacheStats {
  hits: number;
  misses: number;
  entries: number;
  bytes: number;
}

interface Entry {
  diagnostics: readonly Readonly<Diagnostic>[];
  bytes: number;
}

/** Bookkeeping bytes counted per entry beyond its key and diagnostics (Map slot, objects). */
const ENTRY_OVERHEAD = 160;

/** A digest of an SDK's text, computed once per SDK object while its text stays the same. */
const sdkDigests = new WeakMap<SdkSource, { text: string; digest: string }>();

function sdkDigest(sdk: SdkSource): string {
  const known = sdkDigests.get(sdk);
  // The same string (the usual case) compares by reference; a replaced text is hashed again.
  if (known !== undefined && known.text === sdk.text) return known.digest;
  const digest = createHash('sha256').update(sdk.text).digest('base64');
  sdkDigests.set(sdk, { text: sdk.text, digest });
  return digest;
}

const bound = (name: string, value: number | undefined, fallback: number): number =>
  integerOptionOr(name, value, fallback, 0);

function copy(diagnostics: readonly Readonly<Diagnostic>[]): Diagnostic[] {
  return diagnostics.map((d) => ({ ...d }));
}

/** The check cache of one checker. */
export class CheckCache {
  private readonly entries = new Map<string, Entry>();
  private readonly maxEntries: number;
  private readonly maxBytes: number;
  private bytes = 0;
  private hits = 0;
  private misses = 0;

  /** @throws IsocodeError `INVALID_CONFIG` for invalid bounds. */
  constructor(options: CheckCacheOptions = {}) {
    this.maxEntries = bound('cache.maxEntries', options.maxEntries, 1024);
    this.maxBytes = bound('cache.maxBytes', options.maxBytes, 4 * 1024 * 1024);
  }

  /**
   * The key of a check, or undefined when its result is not cached (a verdict with syntax errors:
   * rare, and its diagnostics depend on the caller's list).
   */
  key(
    partition: string,
    program: string,
    sdk: SdkSource,
    verdict: TranspileVerdict | undefined,
  ): string | undefined {
    if (this.maxEntries === 0 || this.maxBytes === 0) return undefined;
    if (verdict !== undefined && !verdict.ok) return undefined;
    // Length-prefixed fields: no two different inputs run together into one string.
    return createHash('sha256')
      .update(`${partition.length}:${partition}\0${sdkDigest(sdk)}\0${verdict ? 'ok' : 'auto'}\0`)
      .update(program)
      .digest('base64');
  }

  /** A copy of the cached diagnostics of `key`, or undefined. */
  get(key: string): Diagnostic[] | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) {
      this.misses++;
      return undefined;
    }
    this.hits++;
    this.entries.delete(key);
    this.entries.set(key, entry);
    return copy(entry.diagnostics);
  }

  /** Stores the diagnostics of a completed check (a copy), evicting the least recently used. */
  set(key: string, diagnostics: readonly Diagnostic[]): void {
    let bytes = ENTRY_OVERHEAD + key.length * 2;
    for (const d of diagnostics) bytes += 64 + d.message.length * 2;
    if (bytes > this.maxBytes) return;
    const old = this.entries.get(key);
    if (old !== undefined) {
      this.entries.delete(key);
      this.bytes -= old.bytes;
    }
    const frozen = Object.freeze(diagnostics.map((d) => Object.freeze({ ...d })));
    this.entries.set(key, { diagnostics: frozen, bytes });
    this.bytes += bytes;
    for (const [k, e] of this.entries) {
      if (this.entries.size <= this.maxEntries && this.bytes <= this.maxBytes) break;
      this.entries.delete(k);
      this.bytes -= e.bytes;
    }
  }

  /** Forgets every entry. */
  clear(): void {
    this.entries.clear();
    this.bytes = 0;
  }

  stats(): CheckCacheStats {
    return { hits: this.hits, misses: this.misses, entries: this.entries.size, bytes: this.bytes };
  }
}
