// The preinstall check: an unsupported Node gets a clear message before isolated-vm's native build.
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ROOT } from './helpers.js';

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Runs bin/check-node.cjs next to a package.json with the given engines range. */
function check(range: string): { status: number | null; stderr: string } {
  dir = mkdtempSync(join(tmpdir(), 'isocode-check-'));
  mkdirSync(join(dir, 'bin'));
  copyFileSync(join(ROOT, 'bin', 'check-node.cjs'), join(dir, 'bin', 'check-node.cjs'));
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ engines: { node: range } }));
  const out = spawnSync(process.execPath, [join(dir, 'bin', 'check-node.cjs')], {
    encoding: 'utf8',
  });
  return { status: out.status, stderr: out.stderr };
}

describe('bin/check-node.cjs (preinstall)', () => {
  it('passes on the Node running this test, with the real engines range', () => {
    const pkg = spawnSync(process.execPath, [join(ROOT, 'bin', 'check-node.cjs')], {
      encoding: 'utf8',
    });
    expect(pkg.status).toBe(0);
  });

  it('stops an unsupported Node with the supported lines and what to do', () => {
    const out = check('^98.0.0 || ^99.0.0');
    expect(out.status).toBe(1);
    expect(out.stderr).toContain('isocode supports Node 98, 99');
    expect(out.stderr).toContain(`this is Node ${process.versions.node}`);
    expect(out.stderr).toContain('Switch to a supported Node');
  });

  it('passes when this Node major is listed', () => {
    expect(check(`^${process.versions.node.split('.')[0]}.0.0 || ^99.0.0`).status).toBe(0);
  });
});
