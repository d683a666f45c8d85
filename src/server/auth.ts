/**
 * Bearer API keys, each bound to a scope. Keys are compared in constant time: both sides are
 * hashed (SHA-256) and compared with `timingSafeEqual`, against every configured key.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { isIP } from 'node:net';

/** An API key and the scope its requests run in. */
export interface ApiKey {
  key: string;
  scope: string;
}

/** What authentication decided about a request. */
export type AuthOutcome =
  { ok: true; scope: string; anonymous: boolean } | { ok: false; reason: 'missing' | 'invalid' };

const digest = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();

/** True for 127.0.0.0/8, ::1, IPv4-mapped loopback and `localhost`. */
export function isLoopbackHost(host: string): boolean {
  const h = host
    .trim()
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1');
  if (h === 'localhost' || h.endsWith('.localhost')) return true;
  if (isIP(h) === 4) return h.startsWith('127.');
  if (isIP(h) === 6) return h === '::1' || /^::ffff:127\./.test(h) || h === '0:0:0:0:0:0:0:1';
  return false;
}

/** Options of {@link createAuthenticator}. */
export interface AuthenticatorOptions {
  apiKeys: readonly ApiKey[];
  defaultScope: string;
  /**
   * Requests without an `Authorization` header run in the default scope. They must also be
   * addressed to a loopback host name (the `Host` header: a DNS-rebinding guard).
   */
  allowAnonymous: boolean;
}

/** Builds the request authenticator. */
export function createAuthenticator(
  options: AuthenticatorOptions,
): (authorization: string | undefined, hostname: string) => AuthOutcome {
  const keys = options.apiKeys.map((k) => ({ hash: digest(k.key), scope: k.scope }));
  return (authorization, hostname) => {
    if (authorization === undefined || authorization.trim() === '') {
      if (options.allowAnonymous && isLoopbackHost(hostname))
        return { ok: true, scope: options.defaultScope, anonymous: true };
      return { ok: false, reason: 'missing' };
    }
    const match = /^Bearer[ ]+(\S+)[ ]*$/i.exec(authorization);
    if (!match) return { ok: false, reason: 'invalid' };
    const presented = digest(match[1]!);
    let scope: string | undefined;
    // No early exit: every key is compared, so timing does not reveal which one matched.
    for (const k of keys) {
      if (timingSafeEqual(presented, k.hash) && scope === undefined) scope = k.scope;
    }
    return scope === undefined
      ? { ok: false, reason: 'invalid' }
      : { ok: true, scope, anonymous: false };
  };
}
