/**
 * Stable keys of a durable run's nested calls: the call site in the program, the tool, the
 * arguments (canonical JSON: object keys sorted) and the occurrence (the nth arrival of the same
 * site, tool and arguments in this life of the run). The same program on the same path gives its
 * calls the same keys in every life, whatever order concurrent calls settle in.
 */
import { createHash } from 'node:crypto';

/** JSON with object keys in code-point order at every depth; `undefined` members are dropped. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value))
    return `[${(value as unknown[]).map((v) => (v === undefined ? 'null' : canonicalJson(v))).join(',')}]`;
  const record = value as Record<string, unknown>;
  const parts: string[] = [];
  for (const key of Object.keys(record).sort()) {
    const v = record[key];
    if (v === undefined) continue;
    parts.push(`${JSON.stringify(key)}:${canonicalJson(v)}`);
  }
  return `{${parts.join(',')}}`;
}

/** The digest of a call's site, tool and arguments (32 hex characters). */
export function callDigest(site: string, tool: string, args: unknown): string {
  return createHash('sha256')
    .update(site)
    .update('\u0000')
    .update(tool)
    .update('\u0000')
    .update(canonicalJson(args))
    .digest('hex')
    .slice(0, 32);
}

/** Assigns keys in arrival order: `<digest>#<occurrence>`, occurrences counted from 1. */
export class CallKeys {
  readonly #seen = new Map<string, number>();

  /** The key of the next arriving call. */
  next(site: string, tool: string, args: unknown): string {
    const digest = callDigest(site, tool, args);
    const n = (this.#seen.get(digest) ?? 0) + 1;
    this.#seen.set(digest, n);
    return `${digest}#${n}`;
  }
}
