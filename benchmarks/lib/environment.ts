/** The machine, OS, Node and package versions a report was measured on. */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import type { Environment } from './types.js';

/** The packages whose versions every report names. */
export const REPORTED_PACKAGES = [
  'isolated-vm',
  'typescript-native',
  'oxc-transform',
  'run',
  'zod',
  'tsx',
] as const;

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

function packageVersion(name: string): string {
  try {
    const raw = readFileSync(`${REPO_ROOT}node_modules/${name}/package.json`, 'utf8');
    const parsed = JSON.parse(raw) as { version?: unknown };
    return typeof parsed.version === 'string' ? parsed.version : 'unknown';
  } catch {
    return 'not installed';
  }
}

function gitCommit(): string | null {
  try {
    const out = execFileSync('git', ['rev-parse', '--short', 'HEAD'], {
      cwd: REPO_ROOT,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    return out.trim() || null;
  } catch {
    return null;
  }
}

/** Describes this machine and runtime. */
export function describeEnvironment(): Environment {
  const cpus = os.cpus();
  return {
    cpuModel: cpus[0]?.model.trim() ?? 'unknown',
    cores: cpus.length,
    availableParallelism: os.availableParallelism(),
    totalMemoryBytes: os.totalmem(),
    os: `${os.type()} ${os.release()} ${os.arch()}`,
    node: process.version,
    v8: process.versions.v8,
    packages: Object.fromEntries(REPORTED_PACKAGES.map((name) => [name, packageVersion(name)])),
    gitCommit: gitCommit(),
    ci: process.env.CI === 'true' || process.env.CI === '1',
    loadAverage: { start: os.loadavg()[0] ?? 0, end: os.loadavg()[0] ?? 0 },
  };
}
