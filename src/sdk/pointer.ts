/** JSON pointers: escaping, `$ref` fragment parsing, own-property resolution. */

/** Escapes one reference token (`~` → `~0`, `/` → `~1`). */
export function escapeToken(token: string): string {
  return token.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** Appends tokens to a pointer. */
export function child(pointer: string, ...tokens: (string | number)[]): string {
  return pointer + tokens.map((t) => `/${escapeToken(String(t))}`).join('');
}

/**
 * The tokens of a local `$ref` (`#`, `#/$defs/A`, `#/definitions/a%20b`), or undefined when the
 * reference is not a local JSON pointer (another document, an anchor, malformed escapes).
 */
export function parseLocalRef(ref: string): string[] | undefined {
  if (!ref.startsWith('#')) return undefined;
  let fragment: string;
  try {
    fragment = decodeURIComponent(ref.slice(1));
  } catch {
    return undefined;
  }
  if (fragment === '') return [];
  if (!fragment.startsWith('/')) return undefined;
  const tokens = fragment.slice(1).split('/');
  if (tokens.some((t) => /~[^01]|~$/.test(t))) return undefined;
  return tokens.map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** Walks `tokens` from `root` through own properties and array indices. */
export function resolvePointer(
  root: unknown,
  tokens: readonly string[],
): { found: boolean; value: unknown } {
  let node = root;
  for (const token of tokens) {
    if (Array.isArray(node)) {
      if (!/^(0|[1-9]\d*)$/.test(token) || Number(token) >= node.length)
        return { found: false, value: undefined };
      node = node[Number(token)];
    } else if (
      typeof node === 'object' &&
      node !== null &&
      Object.prototype.hasOwnProperty.call(node, token)
    ) {
      node = (node as Record<string, unknown>)[token];
    } else {
      return { found: false, value: undefined };
    }
  }
  return { found: true, value: node };
}
