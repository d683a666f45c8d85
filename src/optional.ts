/**
 * Optional packages (decision record 038): the one owner of how isocode loads a package only some
 * users need, and of what a user reads when it is not installed. A feature names the package and
 * what needs it; a missing package is `IsocodeError DEPENDENCY_MISSING` whose message is the one
 * line to act on (`… needs pg, which is not installed: npm install pg`). An error from inside an
 * installed package is not turned into this: only the package itself not being found is.
 */
import { createRequire } from 'node:module';
import { IsocodeError } from './errors.js';

/**
 * The packages isocode loads only when a feature needs them, with the feature that needs each.
 * The install hint of a missing one names every package of its group.
 */
export const OPTIONAL_PACKAGES = {
  pg: { install: ['pg'], feature: 'the PostgreSQL run store (store.url)' },
  tsx: { install: ['tsx'], feature: 'loading a TypeScript tools module (.ts, .mts, .cts)' },
  '@apidevtools/json-schema-ref-parser': {
    install: ['@apidevtools/json-schema-ref-parser'],
    feature: 'an OpenAPI tool source',
  },
  '@opentelemetry/api': {
    install: ['@opentelemetry/api'],
    feature: 'OpenTelemetry tracing (instrument)',
  },
  '@modelcontextprotocol/sdk': {
    install: ['@modelcontextprotocol/sdk'],
    feature: 'MCP (isocode mcp, createMcpServer, and MCP tool sources)',
  },
  hono: {
    install: ['hono', '@hono/node-server'],
    feature: 'the HTTP service (isocode serve, startHttpServer)',
  },
  '@hono/node-server': {
    install: ['hono', '@hono/node-server'],
    feature: 'the HTTP service (isocode serve, startHttpServer)',
  },
} as const satisfies Record<string, { install: readonly string[]; feature: string }>;

/** A package isocode may load lazily. */
export type OptionalPackage = keyof typeof OPTIONAL_PACKAGES;

/** The error of a missing optional package: one line naming what needs it and the command. */
export function dependencyMissing(pkg: OptionalPackage, cause?: unknown): IsocodeError {
  const { install, feature } = OPTIONAL_PACKAGES[pkg];
  return new IsocodeError(
    'DEPENDENCY_MISSING',
    `${feature} needs ${install.join(' and ')}, which ${install.length > 1 ? 'are' : 'is'} not installed: npm install ${install.join(' ')}`,
    { details: { package: pkg, install: [...install] }, ...(cause === undefined ? {} : { cause }) },
  );
}

/**
 * The error of a missing platform package: a native binary isocode depends on through one optional
 * dependency per platform (TypeScript 7's compiler), absent when the platform is not one of them or
 * the install left optional dependencies out (`--omit=optional`, `--no-optional`).
 */
export function platformPackageMissing(
  pkg: string,
  version: string,
  feature: string,
): IsocodeError {
  return new IsocodeError(
    'DEPENDENCY_MISSING',
    `${feature} needs ${pkg}@${version} (for ${process.platform}-${process.arch}), which is not installed: npm install ${pkg}@${version}`,
    { details: { package: pkg, install: [`${pkg}@${version}`] } },
  );
}

/**
 * Whether `error` (of an `import()` or a `require`) says that `pkg` itself was not found — not a
 * file inside it, not another package it imports.
 */
export function isPackageNotFound(error: unknown, pkg: string): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (code !== 'ERR_MODULE_NOT_FOUND' && code !== 'MODULE_NOT_FOUND') return false;
  if (typeof message !== 'string') return false;
  // ESM: "Cannot find package 'pg' imported from …"; CommonJS: "Cannot find module 'pg'" or
  // "Cannot find module 'tsx/esm/api'" (a subpath of the missing package).
  const firstLine = message.split('\n', 1)[0] ?? '';
  return firstLine.includes(`'${pkg}'`) || firstLine.includes(`'${pkg}/`);
}

/**
 * `load()`, an `import()` of an optional package or of a module of isocode's that imports them;
 * `DEPENDENCY_MISSING` when one of `pkgs` itself is not found.
 */
export async function importOptional<T>(
  pkgs: OptionalPackage | readonly OptionalPackage[],
  load: () => Promise<T>,
): Promise<T> {
  try {
    return await load();
  } catch (error) {
    const missing = (typeof pkgs === 'string' ? [pkgs] : pkgs).find((p) =>
      isPackageNotFound(error, p),
    );
    throw missing === undefined ? error : dependencyMissing(missing, error);
  }
}

const requireHere = createRequire(import.meta.url);

/** `require` of an optional CommonJS package, synchronously; `DEPENDENCY_MISSING` if absent. */
export function requireOptional<T>(pkg: OptionalPackage): T {
  try {
    return requireHere(pkg) as T;
  } catch (error) {
    throw isPackageNotFound(error, pkg) ? dependencyMissing(pkg, error) : error;
  }
}
