/** Scopes: which tools an agent/session/tenant sees, and how they are presented to its model. */
import { IsocodeError } from '../errors.js';
import { RUN_CODE } from './names.js';
import type { PresentationMode } from './types.js';

/** The id of the scope every runtime has. */
export const DEFAULT_SCOPE = 'default';

/**
 * A scope declaration. Scopes nest through `parent`: a child sees at most what its parent sees
 * (visibility narrows down the chain), and the nearest declared `mode` wins.
 */
export interface ScopeConfig {
  /** The enclosing scope. @default "default" (for every scope but "default" itself) */
  parent?: string | undefined;
  /** How tools are presented to this scope's model. @default inherited; "native" at the root */
  mode?: PresentationMode | undefined;
  /** Tool-name patterns this scope may see (`*` matches any run of characters). @default everything the parent sees */
  allow?: readonly string[] | undefined;
  /** Tool-name patterns hidden from this scope; applied after `allow`. @default none */
  deny?: readonly string[] | undefined;
  /**
   * Tool-name patterns whose calls in this scope (and its children) wait for a human's approval
   * before they run, exactly like a pre-execute hook answering `ask`. @default none
   * @example ["fs.write_*", "kv.delete"]
   */
  ask?: readonly string[] | undefined;
}

const MODES: readonly PresentationMode[] = ['native', 'code', 'both'];
const SCOPE_ID = /^[A-Za-z0-9_.:-]{1,128}$/;

/** Compiles a `*` glob to a matcher. */
function globMatcher(pattern: string): (name: string) => boolean {
  if (!pattern.includes('*')) return (name) => name === pattern;
  const re = new RegExp(
    `^${pattern
      .split('*')
      .map((p) => p.replace(/[.+?^${}()|[\]\\-]/g, '\\$&'))
      .join('.*')}$`,
  );
  return (name) => re.test(name);
}

/** A validated scope with compiled patterns. */
export interface CompiledScope {
  readonly id: string;
  readonly parent: string | undefined;
  readonly mode: PresentationMode | undefined;
  readonly allow: ((name: string) => boolean) | undefined;
  readonly deny: (name: string) => boolean;
  readonly ask: (name: string) => boolean;
}

function compilePatterns(
  id: string,
  key: 'allow' | 'deny' | 'ask',
  patterns: unknown,
): ((name: string) => boolean)[] {
  if (!Array.isArray(patterns))
    throw new IsocodeError(
      'INVALID_SCOPE',
      `scope "${id}": ${key} must be an array of tool-name patterns`,
    );
  return patterns.map((p: unknown, i) => {
    if (typeof p !== 'string' || p.length === 0 || p.length > 200) {
      throw new IsocodeError(
        'INVALID_SCOPE',
        `scope "${id}": ${key}[${i}] must be a non-empty pattern string`,
      );
    }
    if (p === RUN_CODE) {
      throw new IsocodeError(
        'INVALID_SCOPE',
        `scope "${id}": ${key}[${i}] names "${RUN_CODE}", which is reserved: its presence follows the scope's mode (absent under "native")`,
      );
    }
    return globMatcher(p);
  });
}

/**
 * Validates a scope declaration.
 * @throws IsocodeError INVALID_SCOPE naming the scope and the bad key.
 */
export function compileScope(id: string, config: ScopeConfig): CompiledScope {
  if (!SCOPE_ID.test(id))
    throw new IsocodeError('INVALID_SCOPE', `invalid scope id ${JSON.stringify(id)}`);
  if (typeof config !== 'object' || config === null)
    throw new IsocodeError('INVALID_SCOPE', `scope "${id}": expected an object`);
  const known = new Set(['parent', 'mode', 'allow', 'deny', 'ask']);
  for (const key of Object.keys(config)) {
    if (!known.has(key))
      throw new IsocodeError('INVALID_SCOPE', `scope "${id}": unknown key "${key}"`);
  }
  if (config.mode !== undefined && !MODES.includes(config.mode)) {
    throw new IsocodeError(
      'INVALID_SCOPE',
      `scope "${id}": mode must be one of ${MODES.join(', ')}`,
    );
  }
  const parent = id === DEFAULT_SCOPE ? undefined : (config.parent ?? DEFAULT_SCOPE);
  if (id === DEFAULT_SCOPE && config.parent !== undefined) {
    throw new IsocodeError(
      'INVALID_SCOPE',
      `scope "${DEFAULT_SCOPE}" is the root and cannot have a parent`,
    );
  }
  if (parent === id)
    throw new IsocodeError('INVALID_SCOPE', `scope "${id}" cannot be its own parent`);
  const allow = config.allow === undefined ? undefined : compilePatterns(id, 'allow', config.allow);
  const deny = config.deny === undefined ? [] : compilePatterns(id, 'deny', config.deny);
  const ask = config.ask === undefined ? [] : compilePatterns(id, 'ask', config.ask);
  return {
    id,
    parent,
    mode: config.mode,
    allow: allow ? (name) => allow.some((m) => m(name)) : undefined,
    deny: (name) => deny.some((m) => m(name)),
    ask: (name) => ask.some((m) => m(name)),
  };
}
