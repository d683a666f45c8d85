/**
 * Provider wire names. isocode tool names may contain dots (`fs.read-file`); OpenAI and Anthropic
 * accept only `^[a-zA-Z0-9_-]{1,64}$`. This module owns the mapping between the two (decision
 * record 014):
 *
 * - a name that is already provider-legal is its own wire name (`run_code`, `math_add`);
 * - a dotted name becomes the name with each `.` written as `__` (`fs.read-file` → `fs__read-file`);
 * - when that spelling is longer than 64 characters, or is taken by another tool of the same set
 *   (a tool literally named `fs__read-file`), it is cut to 55 characters and given `_` plus 8 hex
 *   digits of the SHA-256 of the original name.
 *
 * The mapping is computed for a whole set of names (a scope's catalog), checked for collisions,
 * and reversed through the same table, so `execute()` accepts the wire name back.
 */
import { createHash } from 'node:crypto';

/** The name rule of the OpenAI and Anthropic tool APIs. */
export const PROVIDER_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;

const MAX = 64;
const HASH_DIGITS = 8;

/** Both directions of the wire-name mapping of one set of tool names. */
export interface WireNameTable {
  /** The wire name of a tool name of the set (the name itself when it is not in the set). */
  toWire(name: string): string;
  /** The tool name of a wire name, or `undefined` when no tool of the set has that wire name. */
  fromWire(wireName: string): string | undefined;
}

function hashed(name: string, base: string, salt: number): string {
  const digest = createHash('sha256')
    .update(salt === 0 ? name : `${name}\u0000${salt}`)
    .digest('hex')
    .slice(0, HASH_DIGITS);
  return `${base.slice(0, MAX - HASH_DIGITS - 1)}_${digest}`;
}

/** Builds the wire-name table of a set of valid isocode tool names (duplicates are ignored). */
export function wireNameTable(names: Iterable<string>): WireNameTable {
  const toWire = new Map<string, string>();
  const fromWire = new Map<string, string>();
  const assign = (name: string, wire: string): void => {
    toWire.set(name, wire);
    fromWire.set(wire, name);
  };
  const unique = [...new Set(names)];
  // Provider-legal names keep themselves: they are claimed first, so they never move.
  for (const name of unique) if (PROVIDER_NAME_PATTERN.test(name)) assign(name, name);
  // The rest in sorted order, so the table depends on the set, not on registration order.
  for (const name of unique.filter((n) => !toWire.has(n)).sort()) {
    const spelled = name.replaceAll('.', '__');
    let wire = spelled;
    for (let salt = 0; wire.length > MAX || fromWire.has(wire); salt++)
      wire = hashed(name, spelled, salt);
    assign(name, wire);
  }
  return {
    toWire: (name) => toWire.get(name) ?? name,
    fromWire: (wireName) => fromWire.get(wireName),
  };
}
