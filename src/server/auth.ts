/**
 * The one access rule of both HTTP faces (`isocode serve` and `isocode mcp --http`): which peer
 * addresses, `Host` names and `Origin`s count as loopback, how bearer keys are hashed and matched,
 * and when a request may run anonymously. See docs/decisions/011-one-access-rule.md.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { BlockList, isIP } from 'node:net';
import { getConnInfo } from '@hono/node-server/conninfo';
import type { Context } from 'hono';
import { IsocodeError } from '../index.js';
import { KEY_NAME } from '../sources/config-schema.js';

/** An API key and the scope its requests run in. */
export interface ApiKey {
  key: string;
  scope: string;
  /**
   * Who holds the key (a person or a system; 1 to 64 of `A-Z a-z 0-9 . _ @ -`): approvals it
   * decides are by `key:<name>` instead of `http:<scope>:<request id>`. @default none
   */
  name?: string | undefined;
}

/** Loopback IP ranges: 127.0.0.0/8 and ::1 (IPv4-mapped `::ffff:127.x.y.z` in any spelling matches too). */
const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

/** True for an IP literal in 127.0.0.0/8, `::1` or IPv4-mapped loopback (`::ffff:127.0.0.1`). Names are false. */
export function isLoopbackAddress(address: string): boolean {
  const a = address.trim().replace(/^\[(.*)\]$/, '$1');
  const family = isIP(a);
  return family !== 0 && LOOPBACK.check(a, family === 4 ? 'ipv4' : 'ipv6');
}

/**
 * True for a host name that can only mean this machine: a loopback IP literal (see
 * {@link isLoopbackAddress}, brackets allowed), `localhost` and any `*.localhost` (RFC 6761), with or
 * without a trailing dot. `127.attacker.example` is a DNS name, not an address: false.
 */
export function isLoopbackHost(host: string): boolean {
  const h = host
    .trim()
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1')
    .replace(/(?<=.)\.$/, '');
  if (h === 'localhost' || (h.endsWith('.localhost') && h.length > '.localhost'.length))
    return true;
  return isLoopbackAddress(h);
}

/** The host name of a `Host` header value (`name`, `name:port`, `[v6]:port`), normalised by the URL parser. */
function hostnameOf(hostHeader: string): string | undefined {
  try {
    return new URL(`http://${hostHeader}`).hostname;
  } catch {
    return undefined;
  }
}

/** True for an `Origin` of an http(s) page on a loopback host. `null` and other schemes are false. */
export function isLoopbackOrigin(origin: string): boolean {
  try {
    const url = new URL(origin);
    return (url.protocol === 'http:' || url.protocol === 'https:') && isLoopbackHost(url.hostname);
  } catch {
    return false;
  }
}

/** What the access rule looks at in a request. */
export interface RequestFacts {
  authorization: string | undefined;
  /** The names the request is addressed to: the `Host` header and the request URL's host. */
  hosts: string[];
  origin: string | undefined;
  /** The peer's IP address, when the adapter knows it (Node does; `app.request` in tests does not). */
  peer: string | undefined;
}

/** Reads the {@link RequestFacts} of a Hono request. */
export function requestFacts<C extends Context>(c: C): RequestFacts {
  let peer: string | undefined;
  try {
    peer = getConnInfo(c).remote.address;
  } catch {
    peer = undefined; // not served by @hono/node-server
  }
  const header = c.req.header('host');
  const hosts = [new URL(c.req.url).hostname];
  if (header !== undefined) hosts.push(hostnameOf(header) ?? '');
  return {
    authorization: c.req.header('authorization'),
    hosts,
    origin: c.req.header('origin'),
    peer,
  };
}

/** What authentication decided about a request. `tenant` identifies the key (or `anonymous`). */
export type AuthOutcome =
  | { ok: true; scope: string; tenant: string; anonymous: boolean; name?: string | undefined }
  | { ok: false; reason: 'missing' | 'invalid' | 'not-loopback' };

/** Options of {@link createAuthenticator}. */
export interface AuthenticatorOptions {
  apiKeys: readonly ApiKey[];
  defaultScope: string;
  /**
   * Requests without an `Authorization` header run in the default scope. They must come from a
   * loopback peer, be addressed to a loopback host name and carry no foreign `Origin` (a
   * DNS-rebinding and cross-site guard).
   */
  allowAnonymous: boolean;
}

const digest = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();

/** The tenant id of anonymous requests. */
const ANONYMOUS_TENANT = 'anonymous';

/**
 * Builds the request authenticator. Keys are compared in constant time: both sides are hashed
 * (SHA-256) and compared with `timingSafeEqual` against every configured key, with no early exit.
 */
export function createAuthenticator(
  options: AuthenticatorOptions,
): (request: RequestFacts) => AuthOutcome {
  const keys = options.apiKeys.map((k, i) => ({
    hash: digest(k.key),
    scope: k.scope,
    tenant: `key-${i}`,
    name: k.name,
  }));
  return (request) => {
    const { authorization } = request;
    if (authorization === undefined || authorization.trim() === '') {
      if (!options.allowAnonymous) return { ok: false, reason: 'missing' };
      const local =
        (request.peer === undefined || isLoopbackAddress(request.peer)) &&
        request.hosts.every(isLoopbackHost) &&
        (request.origin === undefined || isLoopbackOrigin(request.origin));
      return local
        ? { ok: true, scope: options.defaultScope, tenant: ANONYMOUS_TENANT, anonymous: true }
        : { ok: false, reason: 'not-loopback' };
    }
    const match = /^Bearer[ ]+(\S+)[ ]*$/i.exec(authorization);
    if (!match) return { ok: false, reason: 'invalid' };
    const presented = digest(match[1]!);
    let found: (typeof keys)[number] | undefined;
    for (const k of keys) if (timingSafeEqual(presented, k.hash) && found === undefined) found = k;
    return found === undefined
      ? { ok: false, reason: 'invalid' }
      : {
          ok: true,
          scope: found.scope,
          tenant: found.tenant,
          anonymous: false,
          ...(found.name === undefined ? {} : { name: found.name }),
        };
  };
}

/** How a face answers a refused request: the code (401 or 403), the message and the headers. */
export function refusal(reason: 'missing' | 'invalid' | 'not-loopback'): {
  code: 'UNAUTHORIZED' | 'FORBIDDEN';
  message: string;
  headers: Record<string, string>;
} {
  switch (reason) {
    case 'missing':
      return {
        code: 'UNAUTHORIZED',
        message: 'an API key is required: Authorization: Bearer <key>',
        headers: { 'WWW-Authenticate': 'Bearer realm="isocode"' },
      };
    case 'invalid':
      return {
        code: 'UNAUTHORIZED',
        message: 'the API key is not valid',
        headers: { 'WWW-Authenticate': 'Bearer realm="isocode", error="invalid_token"' },
      };
    case 'not-loopback':
      return {
        code: 'FORBIDDEN',
        message:
          'anonymous access needs a loopback Host (127.0.0.1, [::1], localhost, *.localhost) and no foreign Origin',
        headers: {},
      };
  }
}

/** Problems with a list of API keys (empty, whitespace, listed twice), as `apiKeys[i]: ...` lines. */
export function apiKeyProblems(keys: readonly ApiKey[]): string[] {
  const problems: string[] = [];
  const seen = new Set<string>();
  const names = new Set<string>();
  keys.forEach((k, i) => {
    if (k.name !== undefined) {
      if (typeof k.name !== 'string' || !KEY_NAME.test(k.name))
        problems.push(
          `apiKeys[${i}].name: a key name is 1 to 64 of A-Z a-z 0-9 . _ @ - (starting with a letter or digit)`,
        );
      else if (names.has(k.name))
        problems.push(`apiKeys[${i}].name: the same name is listed twice`);
      else names.add(k.name);
    }
    if (typeof k.key !== 'string' || k.key === '' || /\s/.test(k.key))
      problems.push(`apiKeys[${i}]: a key must be a non-empty string without whitespace`);
    else if (seen.has(k.key)) problems.push(`apiKeys[${i}]: the same key is listed twice`);
    else seen.add(k.key);
  });
  return problems;
}

/**
 * Refuses to serve anonymous access on a non-loopback interface.
 * @throws IsocodeError INVALID_CONFIG naming the host.
 */
export function assertAnonymousBind(host: string, anonymous: boolean, what: string): void {
  if (anonymous && !isLoopbackHost(host))
    throw new IsocodeError(
      'INVALID_CONFIG',
      `refusing to serve ${what} without API keys on ${host}: anonymous access is allowed only on a loopback host (127.0.0.1, ::1, localhost). Configure server.apiKeys or bind to 127.0.0.1.`,
      { details: { host } },
    );
}
