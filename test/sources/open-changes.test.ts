import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openRuntime } from '../../src/sources/index.js';

const dir = mkdtempSync(join(tmpdir(), 'isocode-open-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('openRuntime follows an upstream catalog change', () => {
  it('a tool the upstream adds at run time becomes callable from the next program', async () => {
    const fixture = resolve(import.meta.dirname, '../fixtures/mcp/changing-server.mjs');
    const config = join(dir, 'isocode.config.json');
    writeFileSync(
      config,
      JSON.stringify({
        sources: [{ name: 'chg', mcp: { command: process.execPath, args: [fixture] } }],
      }),
    );
    const opened = await openRuntime({ configPath: config });
    try {
      const { runtime } = opened;
      expect(runtime.schemas().map((t) => t.name)).toEqual(['chg.grow']);
      const grow = await runtime.execute({
        name: 'run_code',
        args: { code: 'return (await tools.chg.grow()).text;', description: 'grow' },
      });
      expect(grow.ok && grow.value).toMatchObject({ result: 'grown' });
      for (let i = 0; i < 100 && !runtime.schemas().some((t) => t.name === 'chg.extra'); i++) {
        await new Promise((r) => setTimeout(r, 20));
      }
      expect(runtime.schemas().map((t) => t.name)).toEqual(['chg.extra', 'chg.grow']);
      const extra = await runtime.execute({
        name: 'run_code',
        args: { code: 'return (await tools.chg.extra()).text;', description: 'extra' },
      });
      expect(extra.ok && extra.value).toMatchObject({ result: 'extra works' });
    } finally {
      await opened.close();
    }
  });
});
