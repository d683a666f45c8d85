/** The `store` section of the config: parsed, paths resolved, one engine at a time. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/sources/config.js';

const write = (config: unknown): string => {
  const dir = mkdtempSync(join(tmpdir(), 'isocode-store-config-'));
  const path = join(dir, 'isocode.config.json');
  writeFileSync(path, JSON.stringify(config));
  return path;
};

describe('config: store', () => {
  it('is off without a section; an embedded path resolves against the config file', async () => {
    expect((await loadConfig(write({ sources: [{ builtin: 'demo' }] }))).store).toBeUndefined();
    const path = write({
      sources: [{ builtin: 'demo' }],
      store: { path: './runs', approvalTimeoutMs: 60000 },
    });
    const config = await loadConfig(path);
    expect(config.store).toMatchObject({
      path: join(path, '..', 'runs'),
      approvalTimeoutMs: 60000,
    });
  });

  it('accepts a PostgreSQL url or urlEnv; refuses two engines and other schemes', async () => {
    const ok = await loadConfig(
      write({ store: { url: 'postgres://u@h:5432/db', schema: 'runs_a' } }),
    );
    expect(ok.store).toMatchObject({ url: 'postgres://u@h:5432/db', schema: 'runs_a' });
    for (const store of [
      { url: 'postgres://h/db', path: './x' },
      { url: 'mysql://h/db' },
      { schema: 'bad-name; drop' },
      { unknown: 1 },
    ])
      await expect(loadConfig(write({ store }))).rejects.toMatchObject({ code: 'INVALID_CONFIG' });
  });
});
