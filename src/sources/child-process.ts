/**
 * The child process of a stdio upstream MCP server: its environment, and the end of its stderr
 * that a connection error quotes (decision record 033).
 *
 * This module is the one owner of the list of variables inherited from isocode's own
 * environment (documented in docs/config.md; a test holds the two together).
 *
 * A child never gets isocode's whole environment (it would carry API keys, database URLs and
 * cloud credentials meant for isocode alone). It gets the names below, the source's `inheritEnv`
 * names or `PREFIX_*` patterns, and its `env` values (which win).
 */

import { visible } from '../text/visible.js';

/** What every process needs to start and find its tools (the MCP SDK's POSIX list, after sudo's). */
const POSIX_BASE = ['HOME', 'LOGNAME', 'PATH', 'SHELL', 'TERM', 'USER'] as const;
/** The MCP SDK's Windows list. */
const WINDOWS_BASE = [
  'APPDATA',
  'HOMEDRIVE',
  'HOMEPATH',
  'LOCALAPPDATA',
  'PATH',
  'PROCESSOR_ARCHITECTURE',
  'SYSTEMDRIVE',
  'SYSTEMROOT',
  'TEMP',
  'USERNAME',
  'USERPROFILE',
  'PROGRAMFILES',
] as const;

/**
 * What a server needs to reach the network from where isocode runs: proxies (both spellings, as
 * curl, npm, Python and Go read either), the extra CA certificates of a TLS-inspecting proxy
 * (Node, OpenSSL, Python's requests and curl), Node's opt-in to the proxy variables, the
 * temporary directory and the locale. None of these is a secret by convention; a proxy URL that
 * holds a password is the operator's own choice to pass.
 */
export const NETWORK_ENV = [
  'HTTP_PROXY',
  'HTTPS_PROXY',
  'NO_PROXY',
  'ALL_PROXY',
  'http_proxy',
  'https_proxy',
  'no_proxy',
  'all_proxy',
  'NODE_EXTRA_CA_CERTS',
  'NODE_USE_ENV_PROXY',
  'SSL_CERT_FILE',
  'SSL_CERT_DIR',
  'REQUESTS_CA_BUNDLE',
  'CURL_CA_BUNDLE',
  'TMPDIR',
  'LANG',
  'LC_ALL',
  'LC_CTYPE',
] as const;

/** The names every stdio upstream inherits (on this platform), before its own `inheritEnv`. */
export const DEFAULT_INHERITED_ENV: readonly string[] = [
  ...(process.platform === 'win32' ? WINDOWS_BASE : POSIX_BASE),
  ...NETWORK_ENV,
];

/** An `inheritEnv` entry: a variable name, or a name prefix followed by `*` (`AWS_*`). */
export const INHERIT_ENV_RE = /^[A-Za-z_][A-Za-z0-9_]*\*?$/;

function matcher(patterns: readonly string[]): (name: string) => boolean {
  const exact = new Set<string>();
  const prefixes: string[] = [];
  for (const p of patterns) {
    if (p.endsWith('*')) prefixes.push(p.slice(0, -1));
    else exact.add(p);
  }
  return (name) => exact.has(name) || prefixes.some((prefix) => name.startsWith(prefix));
}

/**
 * The child's environment: the default names and `inheritEnv` taken from `from` when set
 * (a value starting with `()`, a shell function export, is left out as the SDK does), then `env`.
 */
export function childEnvironment(
  inheritEnv: readonly string[] | undefined,
  env: Readonly<Record<string, string>> | undefined,
  from: NodeJS.ProcessEnv = process.env,
): Record<string, string> {
  const inherits = matcher([...DEFAULT_INHERITED_ENV, ...(inheritEnv ?? [])]);
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(from)) {
    if (value === undefined || value.startsWith('()') || !inherits(name)) continue;
    out[name] = value;
  }
  return { ...out, ...env };
}

/** Of the stderr tail, the last lines and characters a connection error quotes. */
const MESSAGE_TAIL_LINES = 8;
const MESSAGE_TAIL_CHARS = 1000;

/**
 * The end of a child's stderr for an error message: its last non-empty lines joined with ` | `,
 * shown by the visible-text rule (a terminal escape or a bidi control the child wrote cannot act
 * on the operator's terminal) and cut from the front to {@link MESSAGE_TAIL_CHARS}.
 */
export function stderrTailForMessage(stderr: string): string {
  const lines = stderr
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l !== '')
    .slice(-MESSAGE_TAIL_LINES)
    .map((l) => visible(l, 'line'));
  let joined = lines.join(' | ');
  if (joined.length > MESSAGE_TAIL_CHARS) {
    // keep the end (the fatal line is last), from a word start when there is one, never from half a surrogate pair
    const cut = joined.slice(joined.length - MESSAGE_TAIL_CHARS + 1);
    const fromWord = cut.replace(/^\S*\s+/, '');
    joined = `…${fromWord.length > 0 && fromWord.length < cut.length ? fromWord : cut.replace(/^[\udc00-\udfff]/, '')}`;
  }
  return joined;
}
