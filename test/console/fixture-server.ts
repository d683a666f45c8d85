/**
 * The service the console's browser tests drive, in its own process: durable runs (embedded store,
 * or PostgreSQL from ISOCODE_TEST_PG_URL), two tenants with their keys, a `kv.delete` that asks a
 * human, and the console on. Run with `node --no-node-snapshot --import tsx`; prints `ready <url>`.
 *
 * It serves the same app `isocode serve` builds (startHttpServer with `runs` and `console`); the
 * CLI cannot yet configure approvals (hooks are library-only), which these tests need.
 */
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { defineTool } from '../../src/index.js';
import { createDurableRuntime } from '../../src/durable/index.js';
import { startHttpServer } from '../../src/server/index.js';

const [keyA, keyB] = [process.env.CONSOLE_KEY_A, process.env.CONSOLE_KEY_B];
if (!keyA || !keyB) throw new Error('CONSOLE_KEY_A and CONSOLE_KEY_B are required');
const pg = process.env.ISOCODE_TEST_PG_URL;
const store = {
  pollMs: 100,
  ...(pg ? { url: pg, schema: `console_${randomBytes(6).toString('hex')}` } : {}),
};

const runtime = await createDurableRuntime({
  store,
  scopes: { alpha: { mode: 'code' }, beta: { mode: 'code' } },
  tools: [
    defineTool({
      name: 'kv.put',
      description: 'Stores a value.',
      input: z.object({ key: z.string(), value: z.string() }),
      output: z.object({ ok: z.boolean() }),
      execute: () => ({ ok: true }),
    }),
    defineTool({
      name: 'kv.delete',
      description: 'Deletes a key (a human approves it first).',
      input: z.object({ key: z.string() }),
      output: z.object({ deleted: z.string() }),
      isConcurrencySafe: true,
      execute: ({ key }: { key: string }) => ({ deleted: key }),
    }),
  ],
  hooks: {
    preExecute: (ctx) =>
      ctx.call.name === 'kv.delete' ? { action: 'ask', message: 'deletes data' } : undefined,
  },
});
const server = await startHttpServer({
  runtime,
  defaultScope: 'alpha',
  apiKeys: [
    { key: keyA, scope: 'alpha' },
    { key: keyB, scope: 'beta' },
  ],
  port: 0,
  runs: runtime.runs,
  console: { enabled: true },
});
process.stdout.write(`ready ${server.url}\n`);

const stop = (): void => {
  void server
    .close()
    .then(() => runtime.close())
    .finally(() => process.exit(0));
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
