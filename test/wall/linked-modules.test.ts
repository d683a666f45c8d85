/**
 * A package whose `node_modules` is a link (a workspace, or a checkout sharing another's install)
 * runs its sandbox workers behind the wall: the worker resolves its packages through the link's
 * own path, which the wall now binds too. Before, the worker could not load isolated-vm inside the
 * wall and every run failed "could not start a sandbox worker process".
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveWall } from '../../src/wall/wall.js';

const ROOT = resolve(import.meta.dirname, '../..');
const available = resolveWall('auto', { quiet: true }).status.active;

describe.runIf(available)('a package with a linked node_modules', () => {
  it('runs a program behind the wall', () => {
    const dir = mkdtempSync(join(tmpdir(), 'isocode-linked-'));
    try {
      for (const part of ['src', 'sdk-templates', 'package.json', 'tsconfig.json'])
        cpSync(join(ROOT, part), join(dir, part), { recursive: true });
      symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
      const script = `
        const { createRuntime } = await import(${JSON.stringify(join(dir, 'src/index.ts'))});
        const rt = await createRuntime({ tools: [], scopes: { default: { mode: 'code' } },
          codeMode: { typecheck: 'off', wall: 'bwrap', workers: { spareWorkers: 0 } } });
        const r = await rt.execute({ name: 'run_code', args: { code: 'return 6 * 7;', description: 'linked' } });
        console.log(JSON.stringify(r.ok ? r.value.result : r.error));
        await rt.close();`;
      const child = spawnSync(
        process.execPath,
        ['--no-node-snapshot', '--import', 'tsx', '--input-type=module', '-e', script],
        { cwd: dir, encoding: 'utf8', timeout: 120_000 },
      );
      expect(child.stdout.trim().split('\n').at(-1), child.stderr).toBe('42');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 150_000);
});
