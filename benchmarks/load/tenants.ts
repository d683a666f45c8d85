/**
 * The two-tenant service the load, fault and hostile suites run against: one config file in a fresh
 * temporary directory with two code-mode scopes, a bearer key for each, the demo tools, an audit log
 * and limits tight enough that a hostile run ends quickly.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** One tenant: its scope and bearer key. */
export interface Tenant {
  name: 'a' | 'b';
  scope: string;
  key: string;
}

/** A written config and where its files are. */
export interface TenantSetup {
  dir: string;
  configPath: string;
  auditPath: string;
  tenants: readonly [Tenant, Tenant];
  /** Removes the directory. */
  dispose(): void;
}

/**
 * Budget for the server's resident memory plus its child processes (checker, sandbox workers), in
 * MiB: the figure the load report and the hostile suite hold the server to.
 */
export const DEFAULT_RSS_BUDGET_MB = 1024;

/** Per-run limits of both tenants: small enough that a hostile program ends fast. */
export const TENANT_LIMITS = { memoryMb: 64, cpuMs: 1000, wallMs: 5000 } as const;

/** Options of {@link writeTenantConfig}. */
export interface TenantConfigOptions {
  /** Extra `sources` entries after the demo tools (e.g. an upstream MCP server). */
  sources?: readonly object[];
  /** Scope entries merged over the two tenants' (`tenant-a`, `tenant-b`). */
  scopes?: Record<string, object>;
  /** Top-level config keys merged last (e.g. `limits`, `typecheck`). */
  extra?: Record<string, unknown>;
}

/** Writes the two-tenant config (port 0: the face picks a free port) into a new temporary directory. */
export function writeTenantConfig(options: TenantConfigOptions = {}): TenantSetup {
  const dir = mkdtempSync(join(tmpdir(), 'isocode-load-'));
  const tenants: [Tenant, Tenant] = [
    { name: 'a', scope: 'tenant-a', key: `ka-${randomBytes(16).toString('hex')}` },
    { name: 'b', scope: 'tenant-b', key: `kb-${randomBytes(16).toString('hex')}` },
  ];
  const auditPath = join(dir, 'audit.jsonl');
  const config = {
    sources: [{ builtin: 'demo' }, ...(options.sources ?? [])],
    defaultScope: 'tenant-a',
    scopes: {
      'tenant-a': { mode: 'code' },
      'tenant-b': { mode: 'code' },
      ...options.scopes,
    },
    limits: TENANT_LIMITS,
    audit: { path: auditPath },
    server: {
      host: '127.0.0.1',
      port: 0,
      apiKeys: tenants.map((t) => ({ key: t.key, scope: t.scope })),
    },
    ...options.extra,
  };
  const configPath = join(dir, 'isocode.config.json');
  writeFileSync(configPath, JSON.stringify(config, null, 2));
  return {
    dir,
    configPath,
    auditPath,
    tenants,
    dispose: () => rmSync(dir, { recursive: true, force: true }),
  };
}
