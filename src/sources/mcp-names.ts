/** Local names for upstream MCP tools: `<namespace>.<upstream name>`, made valid and unique. */
import { createHash } from 'node:crypto';

/** What an isocode tool name must match. */
export const TOOL_NAME_RE = /^[A-Za-z0-9_.-]{1,64}$/;
const MAX_NAME = 64;

/** Replaces every character an isocode tool name may not contain with `_`. */
export function sanitizeToolNamePart(name: string): string {
  return name.replace(/[^A-Za-z0-9_.-]/g, '_');
}

function hashOf(name: string, length: number): string {
  return createHash('sha256').update(name, 'utf8').digest('hex').slice(0, length);
}

/**
 * Maps upstream tool names to local names. The local name is `<namespace>.<sanitized upstream
 * name>` when that is at most 64 characters and no other upstream tool maps to it (an upstream
 * name that needed no sanitizing keeps its plain name even in a collision); otherwise the
 * sanitized name is cut to fit and gets `_` plus a short hash of the upstream name. The result
 * depends only on the set of names, not their order.
 * @returns upstream name → local name, for every distinct upstream name.
 */
export function assignLocalNames(
  namespace: string,
  upstreamNames: readonly string[],
): Map<string, string> {
  const unique = [...new Set(upstreamNames)].sort();
  const plain = new Map<string, string>(
    unique.map((u) => [u, `${namespace}.${sanitizeToolNamePart(u)}`]),
  );
  const byCandidate = new Map<string, string[]>();
  for (const [u, candidate] of plain)
    byCandidate.set(candidate, [...(byCandidate.get(candidate) ?? []), u]);

  const result = new Map<string, string>();
  const taken = new Set<string>();
  const needsHash: string[] = [];
  for (const u of unique) {
    const candidate = plain.get(u) ?? '';
    const rivals = byCandidate.get(candidate) ?? [];
    const fits = candidate.length <= MAX_NAME && u.length > 0;
    const unchanged = sanitizeToolNamePart(u) === u;
    const owns =
      rivals.length === 1 ||
      (unchanged && rivals.filter((r) => sanitizeToolNamePart(r) === r).length === 1);
    if (fits && owns) {
      result.set(u, candidate);
      taken.add(candidate);
    } else needsHash.push(u);
  }
  for (const u of needsHash) {
    const candidate = plain.get(u) ?? namespace;
    for (let length = 8; ; length += 4) {
      const suffix = `_${hashOf(u, length)}`;
      const name = candidate.slice(0, MAX_NAME - suffix.length) + suffix;
      if (!taken.has(name) || length >= 64) {
        result.set(u, name);
        taken.add(name);
        break;
      }
    }
  }
  return result;
}
